#!/usr/bin/env bash
# The main job: builds llmvalidate and runs it on the shipped example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bash tools/build.sh >/dev/null
./build/cpp/llmvalidate test examples/test-input.json
