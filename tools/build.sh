#!/usr/bin/env bash
# Configures and builds the engine, the CLI, the tests, the benches and the Stata plugin.
# BUILD_DIR (default build/) and extra CMake arguments can be given: tools/build.sh -DLLMV_WERROR=ON
# BUILD_TARGET builds one target (tools/main.sh: the CLI alone). With ccache installed, compiles
# go through it, keyed on paths relative to the checkout, so a second clone reuses the objects.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
if command -v ccache >/dev/null 2>&1 && [ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} "$@" >/dev/null
cmake --build "$build_dir" -j "${JOBS:-2}" ${BUILD_TARGET:+--target "$BUILD_TARGET"}
