#!/usr/bin/env bash
# Configures and builds the engine, the CLI, the tests, the benches and the Stata plugin.
# BUILD_DIR (default build/) and extra CMake arguments can be given: tools/build.sh -DLLMV_WERROR=ON
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} "$@" >/dev/null
cmake --build "$build_dir" -j "${JOBS:-2}"
