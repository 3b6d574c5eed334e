#!/usr/bin/env bash
# Every test: the engine's Catch2 suite (ctest), the R package and the Stata checks.
# The README's test command. Installs what it needs first (tools/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
build_dir=${BUILD_DIR:-build}
BUILD_DIR=$build_dir bash tools/build.sh -DLLMV_WERROR=ON

status=0
failed=()
for step in tools/test.d/*.sh; do
  [ -e "$step" ] || continue
  echo "== $(basename "$step")"
  if ! BUILD_DIR=$build_dir bash "$step"; then
    status=1
    failed+=("$(basename "$step")")
  fi
done
if ! (cd "$build_dir" && ctest --output-on-failure -j 2); then
  status=1
  failed+=("ctest")
fi
# CI shows only the end of the log, so the failing steps are named last.
if [ "$status" -ne 0 ]; then
  echo "== FAILED: ${failed[*]}" >&2
else
  echo "== all test steps passed"
fi
exit $status
