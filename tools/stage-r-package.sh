#!/usr/bin/env bash
# Stages what the R package compiles and ships but git keeps only once, elsewhere in the
# repository, into rpkg/ (every destination is in .gitignore):
#   cpp/include, cpp/<engine area>  ->  rpkg/src/engine/...
#   prompts/                        ->  rpkg/inst/prompts/
#   vignettes/                      ->  rpkg/vignettes/
# With --third-party, also the header-only libraries the engine includes (nlohmann-json and
# toml11, with their copyright files), taken from the Debian packages that tools/setup.sh
# installs, into rpkg/src/third_party/: a source tarball built after it installs on Windows
# and macOS without those headers (configure and Makevars.win fall back to that folder).
#
# Used by tools/build-r-tarball.sh (the tarball), by rpkg/configure and configure.win at every
# `R CMD INSTALL rpkg` from a checkout, and by rpkg/bootstrap.R (pkgbuild, hence remotes/pak
# installs of the `rpkg` subdirectory). `--clean` removes what was staged.
#
# Staging is incremental: a file is copied only when its content differs from the staged copy,
# and staged files whose source is gone are removed, so that an install after an edit to cpp/
# compiles the edit (and only what it touches: unchanged copies keep their times, so make
# leaves their objects alone). Before, configure staged only when nothing was staged, and every
# later install silently compiled the frozen first copy (issue 40).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
package="$root/rpkg"
third_party=no
clean=no
while [ $# -gt 0 ]; do
  case "$1" in
    --third-party) third_party=yes ;;
    --clean) clean=yes ;;
    # Another copy of the package folder (tools/build-r-tarball.sh stages a temporary copy, so
    # that rpkg/ keeps no staged third-party headers).
    --into) package=$(cd "${2:?--into needs a folder}" && pwd); shift ;;
    *) echo "usage: tools/stage-r-package.sh [--third-party] [--clean] [--into DIR]" >&2; exit 2 ;;
  esac
  shift
done

staged=(src/engine inst/prompts vignettes src/third_party)
if [ "$clean" = yes ]; then
  for destination in "${staged[@]}"; do
    rm -rf "${package:?}/$destination"
  done
  echo "stage-r-package: removed ${staged[*]} from rpkg/"
  exit 0
fi
rm -rf "${package:?}/src/third_party"  # only --third-party stages it, whole, below

# The engine areas the package compiles: every area of cpp/ but the command-line tool.
engine_areas=(core settings stats llm transport cache pipeline)
copies=("cpp/include|src/engine/include|*.hpp")
for area in "${engine_areas[@]}"; do
  copies+=("cpp/$area|src/engine/$area|*.[ch]pp")
done
copies+=("prompts|inst/prompts|*" "vignettes|vignettes|*")

# The files of a source folder, relative to it, NUL-separated: in a git checkout the tracked
# files only (never a half-written untracked file), elsewhere every file but dotfiles. An
# export of the repository (as remotes and pak download it) may lie inside another checkout:
# only a checkout whose top is this root counts.
in_checkout=no
if [ "$(git -C "$root" rev-parse --show-toplevel 2>/dev/null)" = "$root" ]; then
  in_checkout=yes
fi
list_files() {
  local source=$1 pattern=$2
  if [ "$in_checkout" = yes ]; then
    git -C "$root/$source" ls-files -z -- "$pattern" | while IFS= read -r -d '' file; do
      [ -f "$root/$source/$file" ] && printf '%s\0' "$file"
    done
  else
    (cd "$root/$source" && find . -type f -name "$pattern" ! -name '.*' -print0)
  fi
}

copied=0
for copy in "${copies[@]}"; do
  IFS='|' read -r source destination pattern <<<"$copy"
  mkdir -p "$package/$destination"
  wanted=$(mktemp)
  while IFS= read -r -d '' file; do
    file=${file#./}
    printf '%s\n' "$file" >>"$wanted"
    target="$package/$destination/$file"
    if ! cmp -s "$root/$source/$file" "$target"; then
      mkdir -p "$(dirname "$target")"
      cp "$root/$source/$file" "$target"
      copied=$((copied + 1))
    fi
  done < <(list_files "$source" "$pattern")
  # Staged files of this pattern whose source is gone (a file removed or renamed in cpp/), and
  # the objects compiled from them.
  while IFS= read -r -d '' file; do
    file=${file#./}
    if ! grep -qxF -- "$file" "$wanted"; then
      rm -f "$package/$destination/$file" "$package/$destination/${file%.cpp}.o"
    fi
  done < <(cd "$package/$destination" && find . -type f -name "$pattern" ! -name '*.o' -print0)
  rm -f "$wanted"
done

if [ "$third_party" = yes ]; then
  # Debian package | the paths under /usr/include it installs that the engine includes
  libraries=("nlohmann-json3-dev|nlohmann" "libtoml11-dev|toml.hpp toml")
  mkdir -p "$package/src/third_party/licenses"
  for library in "${libraries[@]}"; do
    IFS='|' read -r debian_package paths <<<"$library"
    if ! dpkg -s "$debian_package" >/dev/null 2>&1; then
      echo "stage-r-package: $debian_package is not installed (tools/setup.sh installs it)" >&2
      exit 1
    fi
    for path in $paths; do
      cp -R "/usr/include/$path" "$package/src/third_party/"
    done
    version=$(dpkg-query -W -f='${Version}' "$debian_package")
    cp "/usr/share/doc/$debian_package/copyright" \
      "$package/src/third_party/licenses/$debian_package-$version.copyright"
  done
  # CRAN refuses pragmas that silence compiler diagnostics: the copies lose them (the code is
  # unchanged; only warnings that the libraries hid may then show).
  find "$package/src/third_party" -name '*.hpp' -exec sed -i -E \
    -e 's/^[[:space:]]*#[[:space:]]*pragma[[:space:]]+(GCC|clang)[[:space:]]+diagnostic.*$//' \
    -e 's/_Pragma[[:space:]]*\([[:space:]]*"(GCC|clang) diagnostic([^"\\]|\\.)*"[[:space:]]*\)//g' {} +
  [ -f "$package/src/third_party/nlohmann/json.hpp" ] && [ -f "$package/src/third_party/toml.hpp" ] || {
    echo "stage-r-package: the header-only libraries were not staged" >&2
    exit 1
  }
fi
echo "stage-r-package: staged ${engine_areas[*]}, include, prompts and vignettes into rpkg/" \
  "($copied file(s) copied)$([ "$third_party" = yes ] && echo " with nlohmann-json and toml11" || true)"
