#!/usr/bin/env bash
# SDK conformance (issue 23): installs the vendors' official SDKs from npm into a cache outside
# the clone (never committed), builds llmv_request_dump, and has tools/conformance/
# sdk_conformance.mjs compare our requests (and SigV4 signatures) with the SDKs' on 127.0.0.1,
# and type-check our bodies against the SDKs' request types (typescript's tsc).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
build_dir=${BUILD_DIR:-build}
sdk_dir=${LLMV_SDK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/llmvalidate-sdk}
packages=(openai @anthropic-ai/sdk @aws-sdk/client-bedrock-runtime @smithy/signature-v4 @smithy/node-http-handler
          @aws-crypto/sha256-js typescript)

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "sdk-conformance: node and npm are required (tools/setup.sh installs them)" >&2
  exit 1
fi
mkdir -p "$sdk_dir"
[ -f "$sdk_dir/package.json" ] || echo '{"name": "llmvalidate-sdk-cache", "private": true}' >"$sdk_dir/package.json"
missing=0
for package in "${packages[@]}"; do [ -d "$sdk_dir/node_modules/$package" ] || missing=1; done
if [ "$missing" = 1 ]; then
  (cd "$sdk_dir" && npm install --no-audit --no-fund --silent "${packages[@]}")
fi
for package in "${packages[@]}"; do
  printf 'sdk-conformance: %s %s\n' "$package" \
    "$(node -p "require('$sdk_dir/node_modules/$package/package.json').version")"
done
# npm's newest openai, for its model list only (tools/conformance/sdk_models.mjs): npm installs,
# as `openai` above, the newest release that runs on this Node.js, whose types can lag; its
# newest declares a newer Node.js but its .d.ts files are text. Refreshed once a day, so that a
# model OpenAI adds or drops reaches the check.
latest_stamp="$sdk_dir/openai-latest.day"
if [ ! -d "$sdk_dir/node_modules/openai-latest" ] || [ "$(cat "$latest_stamp" 2>/dev/null)" != "$(date -u +%F)" ]; then
  if (cd "$sdk_dir" && npm install --no-audit --no-fund --silent --engine-strict=false \
        openai-latest@npm:openai@latest); then
    date -u +%F >"$latest_stamp"
  elif [ ! -d "$sdk_dir/node_modules/openai-latest" ]; then
    echo "sdk-conformance: npm could not install the newest openai (openai-latest)" >&2
    exit 1
  fi
fi

cmake --build "$build_dir" --target llmv_request_dump llmv_defaults_dump -j "${JOBS:-2}" >/dev/null
node tools/conformance/sdk_conformance.mjs "$sdk_dir" "$build_dir/tests/conformance/llmv_request_dump"
# The defaults and the priced ids against the SDKs' model lists (issue 39).
node tools/conformance/sdk_models.mjs "$sdk_dir" "$build_dir/tests/conformance/llmv_defaults_dump" \
  prompts/prices.csv
