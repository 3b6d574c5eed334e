#!/usr/bin/env bash
# The native plugin's transcript (plugin_transcript.cpp: every rc, message, r() scalar, macro and
# matrix and every stored variable, each double as its 64 bits) compared byte for byte with a
# stored golden, tests/fixtures/golden/stata/plugin_transcript.txt, so that a refactoring that
# changes one Stata result fails here. The inputs are fixed: the golden copy of the sentiment
# task (tests/fixtures/golden/inputs/), the host's synthetic embeddings, the simulated provider
# and the fake provider server on 127.0.0.1, with fixed seeds.
#
# Masked, because they legitimately differ: the plugin's version line (it changes with each
# release); the task's path, the cache folder and the server's address, which the transcript
# itself prints as <path>; r(cache_hits), which the transcript prints as <timing>.
#
#   transcript_golden.sh PLUGIN TRANSCRIPT FAKE_SERVER SOURCE_DIR
# To regenerate the golden deliberately: LLMV_UPDATE_GOLDEN=1 ctest -R stata_transcript_golden
# (then review and commit the diff).
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: transcript_golden.sh PLUGIN TRANSCRIPT FAKE_SERVER SOURCE_DIR" >&2; exit 2; }
plugin=$1 transcript=$2 server_binary=$3 source_dir=$4
golden=$source_dir/tests/fixtures/golden/stata/plugin_transcript.txt
task=$source_dir/tests/fixtures/golden/inputs/sentiment.toml

scratch=$(mktemp -d)
server_pid=""
cleanup() {
  [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
  rm -rf "$scratch"
}
trap cleanup EXIT

"$server_binary" --port 0 --api-key sk-transcript >"$scratch/server.port" &
server_pid=$!
for _ in $(seq 100); do
  [ -s "$scratch/server.port" ] && break
  sleep 0.1
done
port=$(head -n 1 "$scratch/server.port")
[[ $port =~ ^[0-9]+$ ]] || { echo "transcript_golden: the fake provider server printed no port" >&2; exit 1; }

mkdir -p "$scratch/cache"
"$transcript" "$plugin" "$task" "$scratch/cache" "http://127.0.0.1:$port/v1" >"$scratch/raw.txt"
# The version section's `version "x.y.z"` line: the release, not a result.
sed 's/^version ".*"$/version "<version>"/' "$scratch/raw.txt" >"$scratch/transcript.txt"

if [ "${LLMV_UPDATE_GOLDEN:-}" = 1 ]; then
  mkdir -p "$(dirname "$golden")"
  cp "$scratch/transcript.txt" "$golden"
  echo "transcript_golden: wrote $golden"
  exit 0
fi
[ -f "$golden" ] || { echo "transcript_golden: no golden $golden (LLMV_UPDATE_GOLDEN=1 writes it)" >&2; exit 1; }
if ! cmp -s "$golden" "$scratch/transcript.txt"; then
  diff -u "$golden" "$scratch/transcript.txt" | head -n 60 >&2 || true
  echo "transcript_golden: FAIL: the plugin's transcript differs from $golden" \
       "(LLMV_UPDATE_GOLDEN=1 rewrites it when the change is meant)" >&2
  exit 1
fi
echo "transcript_golden: PASS: $(wc -l <"$golden") transcript lines identical to the golden"
