#!/usr/bin/env bash
# The R package's C++ sources compile for Windows: every file of src/ in the source tarball
# (tools/build-r-tarball.sh: the glue, the staged engine and the header-only libraries it
# carries) goes through the mingw-w64 cross-compiler (x86_64, posix threads) against R's and
# Rcpp's headers, with the flags of rpkg/src/Makevars.win. Compile only (-fsyntax-only): it
# catches POSIX-only headers and calls before a Windows user does; linking needs Rtools'
# libraries, which Debian has not. nlohmann-json and toml11 come from the tarball alone, as on
# a Windows machine; what Rtools and RcppEigen/BH bring there (libcurl, SQLite, Eigen, Boost)
# is the system's, reached through a folder of links so that no Linux system header shadows
# mingw's. tools/setup.sh installs the compiler.
set -euo pipefail
cd "$(dirname "$0")/../.."
build_dir=$(mkdir -p "${BUILD_DIR:-build}" && cd "${BUILD_DIR:-build}" && pwd)
cxx=x86_64-w64-mingw32-g++-posix
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "r-mingw-compile: FAIL: $cxx not found (apt-get install g++-mingw-w64-x86-64-posix;" \
       "tools/setup.sh does)" >&2
  exit 1
fi

headers="$build_dir/mingw-r-headers"
rm -rf "$headers"
mkdir -p "$headers"
multiarch=$(gcc -print-multiarch)
for link in "/usr/include/$multiarch/curl" /usr/include/sqlite3.h /usr/include/eigen3/Eigen \
            /usr/include/eigen3/unsupported /usr/include/boost; do
  if [ ! -e "$link" ]; then
    echo "r-mingw-compile: FAIL: $link not found (tools/setup.sh installs it)" >&2
    exit 1
  fi
  ln -s "$link" "$headers/"
done
r_include=$(R RHOME)/include
[ -f "$r_include/R.h" ] || r_include=$(R CMD config --cppflags | sed 's/^-I//')
rcpp_include=$(Rscript -e 'cat(system.file("include", package = "Rcpp"))')

# Only the sources matter here: no vignettes built (the r-package step builds them).
tarball=$(R_BUILD_ARGS=--no-build-vignettes bash tools/build-r-tarball.sh "$build_dir/r-tarball" | tail -1)
unpacked="$build_dir/mingw-r-tarball"
rm -rf "$unpacked"
mkdir -p "$unpacked"
tar -xzf "$tarball" -C "$unpacked"
package_src="$unpacked/llmvalidate/src"
flags=(-std=gnu++17 -fsyntax-only -Wall -ffp-contract=off
       -I"$r_include" -I"$rcpp_include" -I"$headers"
       -I"$package_src/engine/include" -I"$package_src/engine" -I"$package_src/third_party"
       -DEIGEN_MPL2_ONLY -DNDEBUG -DLLMV_NO_STDERR -DCURL_STATICLIB)
mapfile -t sources < <(find "$package_src" -name '*.cpp' | sort)
echo "r-mingw-compile: ${#sources[@]} files with $($cxx --version | head -1)"
log="$build_dir/mingw-r-compile.log"
: >"$log"
failed=0
# Two at a time; each file's diagnostics go to the log, the failing files are named.
export cxx log
if ! printf '%s\0' "${sources[@]}" |
    xargs -0 -P "${JOBS:-2}" -I{} bash -c '
      if ! out=$("$cxx" "$@" {} 2>&1); then
        printf "%s\n%s\n" "FAILED {}" "$out" >>"$log"; exit 1
      fi
      [ -z "$out" ] || printf "%s\n%s\n" "warnings in {}" "$out" >>"$log"' _ "${flags[@]}"; then
  failed=1
fi
if [ -s "$log" ]; then cat "$log"; fi
if [ $failed -ne 0 ]; then
  echo "r-mingw-compile: FAIL: $(grep -c '^FAILED' "$log") of ${#sources[@]} files do not compile for Windows" >&2
  exit 1
fi
echo "r-mingw-compile: ${#sources[@]} passed, 0 failed"
