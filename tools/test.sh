#!/usr/bin/env bash
# Every test: the engine's Catch2 suite (ctest), the R package and the Stata checks.
# The README's test command. Installs what it needs first (tools/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
build_dir=${BUILD_DIR:-build}
BUILD_DIR=$build_dir bash tools/build.sh -DLLMV_WERROR=ON

status=0
for step in tools/test.d/*.sh; do
  [ -e "$step" ] || continue
  echo "== $(basename "$step")"
  BUILD_DIR=$build_dir bash "$step" || status=1
done
(cd "$build_dir" && ctest --output-on-failure -j 2) || status=1
exit $status
