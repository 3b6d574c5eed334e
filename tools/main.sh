#!/usr/bin/env bash
# The main job: builds llmvalidate and runs it on the shipped example.
set -euo pipefail
cd "$(dirname "$0")/.."
# LLMV_CLI names a command-line tool already built (the tests run this job with their own
# build); without it, the set-up and the build of the tool alone.
if [ -n "${LLMV_CLI:-}" ]; then
  llmvalidate=$LLMV_CLI
else
  bash tools/setup.sh --main
  # Only the command-line tool: the tests, benches and Stata plugin are tools/test.sh's.
  BUILD_TARGET=llmvalidate bash tools/build.sh -DLLMV_BUILD_TESTS=OFF -DLLMV_BUILD_BENCH=OFF \
    -DLLMV_BUILD_STATA=OFF >/dev/null
  llmvalidate=./build/cpp/llmvalidate
fi
# The paper's five Section 4 passages on simple sentiment (Table 1's setting), with the
# provider configured in the environment (LLMV_BASE_URL, ANTHROPIC_API_KEY, OPENAI_API_KEY,
# AWS credentials); with none, the simulated provider (synthetic), which the report's first
# line says. Every paid answer is cached, so a re-run costs nothing.
# The cache is the per-user one every front end shares ($LLMV_CACHE, else `llmvalidate cache
# --path`); the engine creates its directory.
# Two sets of tests on the same pools (the second run reuses every cached answer and adds only
# the B = 100 reference texts per label that the paper's bootstrap needs):
echo "== This project's tests: exact rank validation test and permutation separation test =="
echo "   (METHOD.md; finite-sample valid, not the paper's numbers)"
"$llmvalidate" run --task simple_sentiment --passages prompts/passages/section4.toml \
  --quiet
echo
echo "== The paper's tests (--methods paper): bootstrap critical values from B = 100 reference"
echo "   texts (its validation test; its separation test as the author's code runs it) =="
"$llmvalidate" run --task simple_sentiment --passages prompts/passages/section4.toml \
  --quiet --methods paper --paper-b 100
echo
# The statistics alone, on embeddings the user brings.
"$llmvalidate" test examples/test-input.json
