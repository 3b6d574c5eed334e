#!/usr/bin/env bash
# Copies the engine into the R package, so that `R CMD build rpkg` gives a self-contained
# tarball:
#   cpp/include, cpp/<area> (the areas below)  ->  rpkg/src/engine/...
#   prompts/                                   ->  rpkg/inst/prompts/
#   vignettes/                                 ->  rpkg/vignettes/
# The copy is committed. `tools/sync-engine.sh --check` changes nothing and exits 1 when the
# copy is stale (CI runs it), printing what differs. `--from=HEAD` copies the committed
# files rather than the work tree (for committing a copy while others edit the engine).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=sync
revision=""  # --from=REV: copy the files as committed in REV (e.g. HEAD), not the work tree
for arg in "$@"; do
  case "$arg" in
    --check) mode=check ;;
    --from=*) revision=${arg#--from=} ;;
    *) echo "usage: tools/sync-engine.sh [--check] [--from=REV]" >&2; exit 2 ;;
  esac
done

# The engine areas the package compiles (every area of cpp/ but the CLI).
engine_areas=(core stats llm transport cache pipeline)

# source directory (relative to the root) | destination | file pattern (find -name)
copies=("cpp/include|rpkg/src/engine/include|*.hpp")
for area in "${engine_areas[@]}"; do
  copies+=("cpp/$area|rpkg/src/engine/$area|*.[ch]pp")
done
copies+=("prompts|rpkg/inst/prompts|*" "vignettes|rpkg/vignettes|*")

# Files of a source directory, relative to it, NUL-separated. In a git checkout only tracked
# files count (never another helper's half-written untracked file); elsewhere every file.
list_files() {
  local source=$1 pattern=$2
  if [ -n "$revision" ]; then
    git -C "$root" ls-tree -r -z --name-only "$revision" -- "$source/" |
      while IFS= read -r -d '' file; do
        file=${file#"$source/"}
        # shellcheck disable=SC2254
        case "$(basename "$file")" in $pattern) printf '%s\0' "$file" ;; esac
      done
  elif git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$root/$source" ls-files -z -- "$pattern" | while IFS= read -r -d '' file; do
      [ -f "$root/$source/$file" ] && printf '%s\0' "$file"
    done
  else
    (cd "$root/$source" && find . -type f -name "$pattern" ! -name '.*' -print0)
  fi
}

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT

stale=0
for copy in "${copies[@]}"; do
  IFS='|' read -r source destination pattern <<<"$copy"
  expected="$staging/$destination"
  mkdir -p "$expected"
  if [ -d "$root/$source" ]; then
    list_files "$source" "$pattern" |
      while IFS= read -r -d '' file; do
        mkdir -p "$expected/$(dirname "$file")"
        if [ -n "$revision" ]; then
          git -C "$root" show "$revision:$source/$file" >"$expected/$file"
        else
          cp "$root/$source/$file" "$expected/$file"
        fi
      done
  fi
  if [ "$mode" = check ]; then
    actual="$root/$destination"
    if [ ! -d "$actual" ]; then  # git keeps no empty directories
      actual="$staging/.missing"
      mkdir -p "$actual"
    fi
    # Objects of a local `R CMD INSTALL rpkg` are build outputs, not a stale copy.
    if ! diff -r -x '*.o' -x '*.so' "$expected" "$actual" >"$staging/diff" 2>&1; then
      echo "sync-engine: $destination is stale (run tools/sync-engine.sh):" >&2
      sed 's/^/  /' "$staging/diff" | head -20 >&2
      stale=1
    fi
  else
    rm -rf "${root:?}/$destination"
    mkdir -p "$root/$destination"
    cp -R "$expected/." "$root/$destination/"
  fi
done

if [ "$mode" = check ]; then
  [ "$stale" = 0 ] && echo "sync-engine: rpkg/ copy of the engine is up to date"
  exit "$stale"
fi
echo "sync-engine: copied ${engine_areas[*]}, include, prompts and vignettes into rpkg/"
