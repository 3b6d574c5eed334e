#!/usr/bin/env bash
# llm_validate() in R against `llmvalidate batch` on the same workload, side by side in one
# run (issue 5, "Done means": R within 10% of the CLI).
#
#   bench/r_vs_cli.sh [BUILD_DIR] [ROWS] [REPEATS]      (defaults: build 200 3)
#
# Workload: ROWS distinct passages, task financial_phrasebank (its simulation prompt quotes
# the passage, so every passage has pools of its own: 1 + 3*ceil(M/n) + M = 14 chat calls per
# passage at M = n = 10, plus embedding requests), fake provider server at 50 ms latency on
# 127.0.0.1, concurrency 32, 199 permutations, no cache (a cache would make the second run
# free). Each run gets a fresh server, whose counter checks that R and the CLI made the same
# number of requests. Runs alternate (CLI, R, CLI, R, ...) so that both see the same machine
# load; the median of REPEATS runs is compared.
#
# R times llm_validate() itself (the package loaded, no R start-up) and, separately, the whole
# Rscript process; the CLI's time is its whole process. The package must be installed in a
# library on R_LIBS (e.g. R_LIBS=/tmp/rlib R CMD INSTALL rpkg).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rows=${2:-200}
repeats=${3:-3}
source bench/common.sh
bench_use_build "$build"
Rscript -e 'quit(status = !requireNamespace("llmvalidate", quietly = TRUE))' ||
  { echo "the R package is not installed (R CMD INSTALL rpkg, with R_LIBS set)" >&2; exit 1; }

bench_distinct_rows "$rows" "$work/rows.csv"

start_server() { bench_start_server --latency-ms 50 --threads 64; }
now() { date +%s.%N; }

# identity: cpp-httplib would brotli-compress every answer at quality 11 (see
# bench/transport_throughput.cpp), a cost of the fake server, not of the client.
export LLMV_ACCEPT_ENCODING=identity LLMV_API_KEY=test-key

run_cli() {
  local start end
  start=$(now)
  "$cli" batch --task financial_phrasebank --input "$work/rows.csv" --text-column text \
    --id-column id --provider openai --base-url "http://127.0.0.1:$port/v1" --model fake-chat \
    --embedding-model fake-embedding -M 10 -n 10 --concurrency 32 --permutations 199 \
    --seed 1 --no-cache --quiet > "$work/cli.csv" 2> "$work/cli.err"
  end=$(now)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'
}

cat > "$work/run.R" <<'EOF'
args <- commandArgs(TRUE)
suppressPackageStartupMessages(library(llmvalidate))
rows <- utils::read.csv(args[1], stringsAsFactors = FALSE)
base_url <- args[2]
started <- proc.time()[["elapsed"]]
result <- llm_validate(
  stats::setNames(rows$text, rows$id), task = "phrasebank",
  provider = llm_provider_openai(model = "fake-chat", base_url = base_url),
  embedding = llm_embedding_openai(model = "fake-embedding", base_url = base_url),
  M = 10, n = 10, concurrency = 32, permutations = 199, seed = 1, cache = NULL
)
elapsed <- proc.time()[["elapsed"]] - started
cat(sprintf("%.3f %d\n", elapsed, sum(result$verdict != "error")))
EOF

run_r() {
  local start end
  start=$(now)
  Rscript "$work/run.R" "$work/rows.csv" "http://127.0.0.1:$port/v1" > "$work/r.out" 2> "$work/r.err"
  end=$(now)
  awk -v a="$start" -v b="$end" -v inner="$(cut -d' ' -f1 "$work/r.out")" \
    'BEGIN { printf "%.3f %.3f", inner, b - a }'
}

echo "== $rows passages, financial_phrasebank, M = n = 10, fake server at 50 ms, concurrency 32"
echo "   (load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores)"
: > "$work/times"
for i in $(seq "$repeats"); do
  start_server
  cli_seconds=$(run_cli)
  cli_requests=$(requests_of)
  cli_ok=$(grep -c ',ok,' "$work/cli.csv" || true)
  bench_stop_server
  start_server
  read -r r_seconds r_process_seconds <<<"$(run_r)"
  r_requests=$(requests_of)
  r_ok=$(cut -d' ' -f2 "$work/r.out")
  bench_stop_server
  printf "run %d: CLI %6.2f s (%d requests, %d verdicts)   R llm_validate() %6.2f s, Rscript %6.2f s (%d requests, %d verdicts)\n" \
    "$i" "$cli_seconds" "$cli_requests" "$cli_ok" "$r_seconds" "$r_process_seconds" "$r_requests" "$r_ok"
  echo "$cli_seconds $r_seconds $r_process_seconds" >> "$work/times"
done
sort -n -k1,1 "$work/times" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }' > "$work/cli.median"
sort -n -k2,2 "$work/times" | awk '{ a[NR] = $2 } END { print a[int((NR + 1) / 2)] }' > "$work/r.median"
sort -n -k3,3 "$work/times" | awk '{ a[NR] = $3 } END { print a[int((NR + 1) / 2)] }' > "$work/rp.median"
awk -v c="$(cat "$work/cli.median")" -v r="$(cat "$work/r.median")" -v p="$(cat "$work/rp.median")" 'BEGIN {
  printf "median: CLI %.2f s, R llm_validate() %.2f s, Rscript process %.2f s\n", c, r, p;
  printf "ratio R / CLI: %.3f (llm_validate() alone), %.3f (whole Rscript process); target <= 1.10\n", r / c, p / c }'
