#!/usr/bin/env bash
# What the batch APIs save: the dry run's price of the paper's Section 5 setting, synchronously
# and with the providers' batch APIs, as tokens x the price table's prices (issue 13). Makes no
# call (a dry run); the keys are placeholders, never sent.
#
#   bench/batch_cost.sh [BUILD_DIR] [PHRASEBANK_CSV]
#       (defaults: build ../shared/data/financial-phrasebank/financial_phrasebank.csv)
#
# Setting: task financial_phrasebank, a sample of 100 sentences with 100% agreement (seed 1),
# M = 100, n = 10, R = 1, for the default OpenAI and Anthropic models (embeddings:
# text-embedding-3-small). Prices: prompts/prices.csv, or LLMV_PRICE_TABLE. No cache is read
# (a fresh cache path), so every call is priced.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
data=${2:-../shared/data/financial-phrasebank/financial_phrasebank.csv}
cli=$build/cpp/llmvalidate
[ -x "$cli" ] || { echo "missing $cli: build first (tools/build.sh)" >&2; exit 1; }
[ -f "$data" ] || { echo "missing $data (the Financial PhraseBank CSV; see tools/README.md)" >&2; exit 1; }
export LLMV_PROMPTS_DIR=${LLMV_PROMPTS_DIR:-$PWD/prompts}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The dry run's report of one provider; further arguments go to the CLI.
dry_run_report() {
  local provider=$1
  shift
  OPENAI_API_KEY=dry-run ANTHROPIC_API_KEY=dry-run "$cli" batch --task financial_phrasebank \
    --input "$data" --text-column sentence --sample 100 --sample-seed 1 --where agreement=100 \
    --provider "$provider" --embedding-provider openai -M 100 -n 10 \
    --cache "$scratch/$provider.sqlite" --dry-run "$@" 2>/dev/null
}

printf '%-10s %-26s %12s %12s %12s %10s %10s %7s\n' provider model input output embedding sync batch ratio
for provider in openai anthropic; do
  report=$(dry_run_report "$provider")
  model=$(printf '%s\n' "$report" | sed -n 's/^    chat [a-z]* \([^:]*\):.*/\1/p')
  input=$(printf '%s\n' "$report" | sed -n 's/^  input tokens (est.): *//p')
  output=$(printf '%s\n' "$report" | sed -n 's/^  output tokens (est.): *//p')
  embedding=$(printf '%s\n' "$report" | sed -n 's/^  embedding tokens (est.): *//p')
  sync=$(printf '%s\n' "$report" | sed -n 's/.*(est.): \$\([0-9.]*\) with the synchronous.*/\1/p')
  batch=$(printf '%s\n' "$report" | sed -n 's/.*APIs, \$\([0-9.]*\) with the batch API.*/\1/p')
  ratio=$(awk -v s="$sync" -v b="$batch" 'BEGIN { if (s > 0) printf "%.3f", b / s; else print "-" }')
  printf '%-10s %-26s %12s %12s %12s %10s %10s %7s\n' "$provider" "$model" "$input" "$output" \
    "$embedding" "\$$sync" "\$$batch" "$ratio"
done
echo "ratio: batch API price / synchronous price (the table's batch discounts; 0.5 = half)."

# The answer-format sentence (issue 26): the default leaves it out of prompts whose JSON Schema
# travels with the request; --answer-format always keeps it, as earlier versions did. Side by
# side in one run: input tokens and the batch API's dollars with and without it.
echo
printf '%-10s %14s %14s %7s %12s %12s %7s\n' provider 'input always' 'input auto' ratio \
  'batch always' 'batch auto' ratio
for provider in openai anthropic; do
  always=$(dry_run_report "$provider" --answer-format always)
  auto=$(dry_run_report "$provider")
  read_input() { printf '%s\n' "$1" | sed -n 's/^  input tokens (est.): *//p' | tr -d ,; }
  read_batch() { printf '%s\n' "$1" | sed -n 's/.*APIs, \$\([0-9.]*\) with the batch API.*/\1/p'; }
  input_always=$(read_input "$always")
  input_auto=$(read_input "$auto")
  batch_always=$(read_batch "$always")
  batch_auto=$(read_batch "$auto")
  printf '%-10s %14s %14s %7s %12s %12s %7s\n' "$provider" "$input_always" "$input_auto" \
    "$(awk -v a="$input_always" -v b="$input_auto" 'BEGIN { printf "%.3f", b / a }')" \
    "\$$batch_always" "\$$batch_auto" \
    "$(awk -v a="$batch_always" -v b="$batch_auto" 'BEGIN { if (a > 0) printf "%.3f", b / a; else print "-" }')"
done
echo "ratio: without the sentence / with it (the dry run's estimates, same calls)."
