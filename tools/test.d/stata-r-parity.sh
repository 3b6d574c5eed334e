#!/usr/bin/env bash
# R <-> Stata parity: the R package's validation_test(), separation_test() and
# backtranslation_test() (stata/tests/r_parity.R) and the Stata plugin's `test` subcommand
# (the host test [r-parity]) give the same numbers bit for bit on the same inputs and seed.
# Uses the R package that tools/test.d/r-package.sh checked ($BUILD_DIR/rpkg-check), else an
# installed one; skips cleanly when there is none or when the plugin's host was not built.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
build_dir=$(cd "${BUILD_DIR:-build}" 2>/dev/null && pwd) || {
  echo "stata-r-parity: no build directory ${BUILD_DIR:-build}; skipped"
  exit 0
}
host="$build_dir/stata/stata_host_tests"
if [ ! -x "$host" ]; then
  echo "stata-r-parity: no Stata test host in $build_dir/stata; skipped"
  exit 0
fi
checked="$build_dir/rpkg-check/llmvalidate.Rcheck"
if [ -d "$checked/llmvalidate" ]; then
  export R_LIBS="$checked${R_LIBS:+:$R_LIBS}"
fi
if ! command -v Rscript >/dev/null ||
   ! Rscript -e 'quit(status = !requireNamespace("llmvalidate", quietly = TRUE))' 2>/dev/null; then
  echo "stata-r-parity: the R package llmvalidate is not installed; skipped"
  exit 0
fi
fixture=$(mktemp /tmp/llmv-r-parity-XXXXXX.json)
trap 'rm -f "$fixture"' EXIT
Rscript stata/tests/r_parity.R "$fixture"
LLMV_R_PARITY_FILE="$fixture" "$host" "[r-parity]"
