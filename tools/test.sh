#!/usr/bin/env bash
# Every test: the engine's Catch2 suite (ctest), the R package and the Stata checks.
# The README's test command. Installs what it needs first (tools/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
build_dir=${BUILD_DIR:-build}
# The tests, benches and plugin explicitly: tools/main.sh may have configured the same folder
# without them.
BUILD_DIR=$build_dir bash tools/build.sh -DLLMV_WERROR=ON -DLLMV_BUILD_TESTS=ON -DLLMV_BUILD_BENCH=ON \
  -DLLMV_BUILD_STATA=ON

# The tests never write to the user's own cache (the default, `llmvalidate cache --path`).
export LLMV_CACHE="$PWD/$build_dir/test-default-cache.sqlite"

status=0
failed=()
timings=()
# Each step's output also goes to a log of its own, so that a failure can be shown again last.
step_logs="$build_dir/test-logs"
rm -rf "$step_logs"
mkdir -p "$step_logs"
for step in tools/test.d/*.sh; do
  [ -e "$step" ] || continue
  name=$(basename "$step" .sh)
  echo "== $name"
  started=$SECONDS
  if ! BUILD_DIR=$build_dir bash "$step" 2>&1 | tee "$step_logs/$name.log"; then
    status=1
    failed+=("$name")
  fi
  timings+=("$name $((SECONDS - started)) s")
done
started=$SECONDS
# The fake server's SigV4 verdicts come from the official AWS signer (npm @smithy/signature-v4,
# installed by the sdk-conformance step into the SDK cache), not from code of ours.
sdk_cache=${LLMV_SDK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/llmvalidate-sdk}
if command -v node >/dev/null && [ -d "$sdk_cache/node_modules/@smithy/signature-v4" ]; then
  export LLMV_SIGV4_VERIFIER="$PWD/tools/conformance/sigv4_verifier.mjs"
elif [ "${CI:-}" = true ]; then
  echo "test.sh: no official SigV4 signer in $sdk_cache (the sdk-conformance step installs it)" >&2
  status=1
  failed+=("sigv4-verifier")
else
  echo "test.sh: the fake server checks SigV4 signatures for their form only (no $sdk_cache)"
fi
# A test that hangs fails after LLMV_TEST_TIMEOUT seconds instead of eating CI's whole budget.
if ! (cd "$build_dir" && ctest --output-on-failure -j 2 --timeout "${LLMV_TEST_TIMEOUT:-600}") 2>&1 |
  tee "$step_logs/ctest.log"; then
  status=1
  failed+=("ctest")
fi
timings+=("ctest $((SECONDS - started)) s")
# Each step's wall time, so that a slow step shows in CI's log before it becomes a timeout.
echo "== wall time per step"
printf '  %s\n' "${timings[@]}"
# CI shows only the end of the log: the end of each failed step's output is repeated, and the
# failing steps are named last.
if [ "$status" -ne 0 ]; then
  for name in "${failed[@]}"; do
    echo "== the last 60 lines of $name:" >&2
    tail -n 60 "$step_logs/$name.log" >&2
  done
  echo "== FAILED: ${failed[*]}" >&2
else
  echo "== all test steps passed"
fi
exit $status
