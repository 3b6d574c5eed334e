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
# Warnings are not errors here: GCC 12 reports false -Wmaybe-uninitialized in <regex> under
# -fsanitize (the regular build checks warnings with -Werror).
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLLMV_SANITIZE=ON \
  -DLLMV_BUILD_BENCH=OFF -DLLMV_WERROR=OFF >/dev/null
cmake --build "$build_dir" --target stata_host_tests plugin_transcript fake_provider_server -j "${JOBS:-2}"
cd "$build_dir"
ctest -R stata --output-on-failure -j "${JOBS:-2}" --timeout "${LLMV_TEST_TIMEOUT:-600}"
