#!/usr/bin/env bash
# Cross-compiles the Windows x64 Stata plugin on Debian with mingw-w64 (posix threads):
# libcurl with Schannel (tools/build-curl-windows.sh, cached outside the clone in ~/.cache/llmvalidate/windows-curl), SQLite
# from its amalgamation (tools/fetch-sqlite.sh), the header-only libraries of the Debian
# packages, everything linked into one DLL (stata/windows/). Also builds plugin_transcript.exe,
# the program tools/test.d/stata-windows.sh runs under wine.
#
#   tools/build-windows-plugin.sh [extra CMake arguments, used when the tree is first configured]
#
# The build tree is $BUILD_DIR/windows (BUILD_DIR: build); the plugin lands in
# $BUILD_DIR/windows/stata/net/llmvalidate_win64.plugin (stripped), which tools/stata-package.sh
# puts into the net-install folder. Prints that path on stdout. JOBS (default 2) builds in parallel.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
windows_dir=$build_dir/windows
log() { echo "build-windows-plugin: $*" >&2; }
for tool in x86_64-w64-mingw32-g++-posix x86_64-w64-mingw32-gcc-posix cmake ninja; do
  command -v "$tool" >/dev/null 2>&1 ||
    { log "needs '$tool' (tools/setup.sh installs g++-mingw-w64-x86-64-posix)"; exit 1; }
done

curl_prefix=$(BUILD_DIR=$build_dir bash tools/build-curl-windows.sh)
# A compiler launcher (ccache) given for the Linux build is used here too.
launcher=()
if [ -f "$build_dir/CMakeCache.txt" ]; then
  cached=$(sed -n 's/^CMAKE_CXX_COMPILER_LAUNCHER:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
  [ -n "$cached" ] && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER="$cached" -DCMAKE_C_COMPILER_LAUNCHER="$cached")
fi
if [ ! -f "$windows_dir/CMakeCache.txt" ]; then
  log "configuring $windows_dir"
  cmake -S . -B "$windows_dir" -G Ninja \
    -DCMAKE_TOOLCHAIN_FILE="$PWD/stata/windows/mingw-w64-x86_64.cmake" \
    -DCMAKE_FIND_ROOT_PATH="$curl_prefix" \
    -DCMAKE_BUILD_TYPE=Release -DLLMV_BUILD_TESTS=OFF -DLLMV_BUILD_BENCH=OFF \
    -DLLMV_WERROR=ON "${launcher[@]}" "$@" >&2
fi
cmake --build "$windows_dir" -j "${JOBS:-2}" --target llmvalidate_plugin plugin_transcript >&2
echo "$windows_dir/stata/net/llmvalidate_win64.plugin"
