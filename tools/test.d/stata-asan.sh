#!/usr/bin/env bash
# The Stata host tests under AddressSanitizer and UndefinedBehaviorSanitizer: the plugin, the
# engine it links and the host, built with -DLLMV_SANITIZE=ON in their own build directory
# ($BUILD_DIR-asan; only the targets the host tests and the transcript golden need), then every
# `stata` CTest test.
# A sanitizer report aborts the test, so a clean run is a pass. LLMV_STATA_ASAN=0 skips it.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${LLMV_STATA_ASAN:-1}" = 0 ]; then
  echo "stata-asan: skipped (LLMV_STATA_ASAN=0)"
  exit 0
fi
build_dir="${BUILD_DIR:-build}-asan"
# Through ccache, keyed on paths relative to the checkout as in tools/build.sh, so that a fresh
# clone on a machine that ran the tests before (CI's) reuses the sanitized objects: this build
# was the longest step of a fresh clone's run (about 20 minutes on 2 cores).
if command -v ccache >/dev/null 2>&1 && [ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
fi
# Warnings are not errors here: GCC 12 reports false -Wmaybe-uninitialized in <regex> under
# -fsanitize (the regular build checks warnings with -Werror).
# -O1 -g1, as the sanitizers' documentation suggests: under -fsanitize a translation unit
# compiles in about half the time of -O2 -g (bench: passage_flow.cpp 12.9 s against 27.1 s,
# median of 3), and reports keep their file and line.
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLLMV_SANITIZE=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DLLMV_BUILD_BENCH=OFF -DLLMV_WERROR=OFF >/dev/null
cmake --build "$build_dir" --target stata_host_tests plugin_transcript fake_provider_server -j "${JOBS:-2}"
cd "$build_dir"
# intercept_tls_get_addr=0: up to GCC 13 the runtime's __tls_get_addr interceptor can take a
# malloc'd dynamic TLS block for a pre-2.25 glibc header and record a bogus range; the host
# dlopens and dlcloses the plugin (which has thread_local state), and LeakSanitizer's tracer
# then dies scanning that range at exit after every assertion passed (CI: "Tracer caught
# signal 11"). Leak checking itself stays on.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}intercept_tls_get_addr=0"
ctest -R stata --output-on-failure -j "${JOBS:-2}" --timeout "${LLMV_TEST_TIMEOUT:-600}"
