#!/usr/bin/env bash
# The llama-server tier: a real llama.cpp server with the tiny model in shared/models/, and
# the engine's openai provider against it (tests/llama/ -> test_llama). Builds the server on
# first use (about 10 minutes on 2 cores; cached outside the repository after that).
# Skipped with a message where the server cannot be built, except on CI (CI=true), which
# must run it (tools/with-llama-server.sh). LLMV_LLAMA_SERVER: a binary to use instead.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=$root/${BUILD_DIR:-build}
test_binary=$build_dir/tests/test_llama
[ -x "$test_binary" ] || test_binary=$(find "$build_dir/tests" -name test_llama -type f -perm -u+x 2>/dev/null | head -n 1)
if [ -z "$test_binary" ] || [ ! -x "$test_binary" ]; then
  echo "llama: no test_llama in $build_dir (build it with tools/build.sh)" >&2
  exit 1
fi

start=$(date +%s)
if [ -z "${LLMV_LLAMA_SERVER:-}" ] && server=$(bash "$root/tools/build-llama-server.sh"); then
  echo "llama: llama-server at $server ($(($(date +%s) - start)) s to build or find)"
  export LLMV_LLAMA_SERVER=$server
fi
# Without LLMV_LLAMA_SERVER, with-llama-server.sh tries the build once more and says why not.
bash "$root/tools/with-llama-server.sh" "$test_binary" --order decl
