#!/usr/bin/env bash
# What a passage costs, side by side with the author's reference code (issue 26): the paper's
# five Section 4 passages, sentiment, at N = B = M = 100 and n = 10, on gpt-4o-mini with
# text-embedding-3-small, against the C++ fake provider server. Not part of tools/test.sh: it
# needs a copy of the reference code, which this repository does not hold.
#
#   bench/reference_cost.sh REFERENCE_DIR [BUILD_DIR]
#   REFERENCE_DIR: github.com/AnneArtrip/Validating-LLM-Annotations, e.g.
#     git clone https://github.com/AnneArtrip/Validating-LLM-Annotations /tmp/reference
#   BENCH_N (100), BENCH_PER_CALL (10), BENCH_LATENCY_MS (0), BENCH_OPTIONS (further options
#   of llmvalidate's run and dry run, e.g. "--answer-format always")
#   Needs Debian's python3 with python3-pandas (apt-get install python3-pandas); the PyPI-only
#   packages the code imports are stood in for by bench/reference_cost/shims (see its README).
#
# Both sides run against one fake server that writes texts as long as a prompt asks (a token
# being 3/4 of a word, the vendors' rule of thumb), answers bare JSON in the layout a prompt
# shows (the reference code's "text_1".."text_n" and a label with a 30-word explanation), and
# bills characters / 4. The reference code runs as its example does, with N and B for the
# example's reduced sizes and the validity test run for every passage. llmvalidate runs its
# defaults (exact validation, permutation separation) synchronously; the batch API bills the
# same tokens at the price table's batch discount, so its price is the accounting's tokens at
# the batch prices. The dry run prices the same calls before any is made.
#
# Prints each side's calls and tokens, the dollars per passage at prompts/prices.csv, and the
# ratios: llmvalidate through the batch API (and synchronously) / the reference code, and the
# dry run's estimate / the accounting.
set -euo pipefail
cd "$(dirname "$0")/.."
reference=${1:?usage: bench/reference_cost.sh REFERENCE_DIR [BUILD_DIR]}
build=${2:-build}
n=${BENCH_N:-100}
per_call=${BENCH_PER_CALL:-10}
latency=${BENCH_LATENCY_MS:-0}
read -r -a extra_options <<< "${BENCH_OPTIONS:-}"
python=/usr/bin/python3
source bench/common.sh
bench_use_build "$build"
[ -f "$reference/example_sentiment_news.py" ] && [ -d "$reference/utils" ] ||
  { echo "$reference is not a copy of the reference code (example_sentiment_news.py, utils/)" >&2; exit 1; }
"$python" -c 'import pandas, numpy' 2> /dev/null ||
  { echo "Debian's python3 lacks pandas: apt-get install python3-pandas" >&2; exit 1; }
export LLMV_PROMPTS_DIR=${LLMV_PROMPTS_DIR:-$PWD/prompts}
passages_file=$PWD/prompts/passages/section4.toml
prices=$PWD/prompts/prices.csv
bench_start_server --latency-ms "$latency" --threads 32 --follow-length 1 \
  --words-per-token 0.75 --chatty 0 --labels positive,neutral,negative
base_url=http://127.0.0.1:$port/v1

# The passages, as the reference driver reads them.
"$python" - "$passages_file" > "$work/passages.json" << 'EOF'
import json, sys, tomllib
passages = tomllib.load(open(sys.argv[1], "rb"))["passage"]
print(json.dumps([{"id": p["id"], "text": p["text"].strip()} for p in passages]))
EOF
count=$("$python" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$work/passages.json")

# The reference code, in a copy of its own (it writes api_logs/ where it lies).
cp -R "$reference" "$work/reference"
reference_start=$(date +%s)
OPENAI_BASE_URL=$base_url OPENAI_API_KEY=test-key PYTHONPATH=$PWD/bench/reference_cost/shims \
  "$python" bench/reference_cost/run_reference.py "$work/reference" "$work/passages.json" "$n" "$n" \
  gpt-4o-mini > "$work/reference.json"
reference_seconds=$(($(date +%s) - reference_start))

# llmvalidate: the dry run, then the run, on the same passages.
ours() {
  LLMV_API_KEY=test-key "$cli" run --task simple_sentiment --passages "$passages_file" \
    --provider openai --base-url "$base_url" --model gpt-4o-mini \
    --embedding-model text-embedding-3-small -M "$n" -n "$per_call" --cache "$work/ours.sqlite" ${extra_options[@]+"${extra_options[@]}"} "$@"
}
ours --dry-run > "$work/dry-run.txt" 2>&1
ours_start=$(date +%s)
ours > "$work/run.txt" 2>&1
ours_seconds=$(($(date +%s) - ours_start))

# Tokens of a report's cost lines ("chat openai gpt-4o-mini: I input, O output tokens", and the
# embedding line), as "input output embedding".
tokens_of() {
  awk '/^    chat openai gpt-4o-mini:/ { gsub(/,/, ""); i += $4; o += $6 }
       /^    embedding openai text-embedding-3-small:/ { gsub(/,/, ""); e += $4 }
       END { print i + 0, o + 0, e + 0 }' "$1"
}
read -r run_in run_out run_emb <<< "$(tokens_of "$work/run.txt")"
read -r dry_in dry_out dry_emb <<< "$(tokens_of "$work/dry-run.txt")"
read -r ref_calls ref_in ref_out ref_emb_calls ref_emb ref_failed <<< "$("$python" -c '
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
print(t["chat_calls"], t["chat_input_tokens"], t["chat_output_tokens"], t["embedding_calls"],
      t["embedding_tokens"], t["failed_calls"])' "$work/reference.json")"
run_calls=$(sed -n 's/^Total: \([0-9]*\) chat calls made.*/\1/p' "$work/run.txt" | awk '{ s += $1 } END { print s + 0 }')
dry_calls=$(sed -n 's/^  chat calls: *\([0-9]*\).*/\1/p' "$work/dry-run.txt" | head -1)
run_texts=$(sed -n 's/.* \([0-9]*\) texts embedded.*/\1/p' "$work/run.txt" | awk '{ s += $1 } END { print s + 0 }')
dry_texts=$(sed -n 's/^  embedded texts: *\([0-9]*\).*/\1/p' "$work/dry-run.txt" | head -1)

price() {  # provider model column (1-based past provider,model: 3 input, 6 output, 7 embedding, 8 batch discount)
  awk -F, -v p="$1" -v m="$2" -v c="$3" '$1 == p && $2 == m { print ($c == "" ? 0 : $c) }' "$prices"
}
chat_in=$(price openai gpt-4o-mini 3)
chat_out=$(price openai gpt-4o-mini 6)
chat_discount=$(price openai gpt-4o-mini 8)
emb_price=$(price openai text-embedding-3-small 7)
emb_discount=$(price openai text-embedding-3-small 8)

echo "== reference cost: $count Section 4 passages, sentiment, N = B = M = $n, n = $per_call, gpt-4o-mini + text-embedding-3-small${BENCH_OPTIONS:+, llmvalidate $BENCH_OPTIONS}"
echo "   prices from prompts/prices.csv: input \$$chat_in, output \$$chat_out, embeddings \$$emb_price a million tokens; batch discounts $chat_discount and $emb_discount"
echo "   $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v count="$count" -v ci="$chat_in" -v co="$chat_out" -v cd="$chat_discount" -v ep="$emb_price" \
    -v ed="$emb_discount" \
    -v rc="$ref_calls" -v ri="$ref_in" -v ro="$ref_out" -v rec="$ref_emb_calls" -v re="$ref_emb" \
    -v uc="$run_calls" -v ui="$run_in" -v uo="$run_out" -v ut="$run_texts" -v ue="$run_emb" \
    -v dc="$dry_calls" -v di="$dry_in" -v do_="$dry_out" -v dt="$dry_texts" -v de="$dry_emb" \
    -v rs="$reference_seconds" -v us="$ours_seconds" 'BEGIN {
  ref = (ri * ci + ro * co + re * ep) / 1e6 / count;
  sync = (ui * ci + uo * co + ue * ep) / 1e6 / count;
  batch = ((ui * ci + uo * co) * (1 - cd) + ue * ep * (1 - ed)) / 1e6 / count;
  dry_batch = ((di * ci + do_ * co) * (1 - cd) + de * ep * (1 - ed)) / 1e6 / count;
  printf "%-36s %9s %12s %12s %9s %12s %12s %8s\n", "per passage", "chat", "input tok", "output tok", "embedded", "emb tok", "dollars", "wall_s";
  printf "%-36s %9.1f %12.0f %12.0f %9.1f %12.0f %12.6f %8d\n", "reference code (synchronous)", rc / count, ri / count, ro / count, rec / count, re / count, ref, rs;
  printf "%-36s %9.1f %12.0f %12.0f %9.1f %12.0f %12.6f %8d\n", "llmvalidate run (synchronous)", uc / count, ui / count, uo / count, ut / count, ue / count, sync, us;
  printf "%-36s %9s %12s %12s %9s %12s %12.6f\n", "llmvalidate, batch API prices", "", "", "", "", "", batch;
  printf "%-36s %9.1f %12.0f %12.0f %9.1f %12.0f %12.6f\n", "llmvalidate dry run, batch API", dc / count, di / count, do_ / count, dt / count, de / count, dry_batch;
  printf "ratio, llmvalidate batch API / reference code: %.3f (synchronous: %.3f)\n", batch / ref, sync / ref;
  printf "ratio, dry run / accounting (batch dollars): %.3f; tokens in %.3f, out %.3f, embedded %.3f\n", dry_batch / batch, di / ui, do_ / uo, de / ue;
}'
if [ "$ref_failed" != 0 ]; then echo "the reference code logged $ref_failed failed calls"; fi
"$python" -c '
import json, sys
for p in json.load(open(sys.argv[1]))["passages"]:
    print("   reference:", p)' "$work/reference.json"
grep -E '^(Passage|Verdict|  validation|Overall)' "$work/run.txt" | head -12 | sed 's/^/   llmvalidate: /' || true
