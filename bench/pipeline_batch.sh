#!/usr/bin/env bash
# `llmvalidate batch` against the fake provider server, side by side with the transport's
# ideal bound, and its peak memory at 2,000 vs 20,000 rows (issue 4, "Done means").
#
#   bench/pipeline_batch.sh [BUILD_DIR] [ROWS] [BIG_ROWS]     (defaults: build 2000 20000)
#   BENCH_PARTS="throughput memory" (default both), BENCH_MEMORY_PROVIDER=simulated|fake
#
# Throughput: ROWS passages, task financial_phrasebank (its simulation prompt quotes the
# passage, so every passage has pools of its own: 1 + 3*ceil(M/n) + M = 14 chat calls per
# passage at M = n = 10, plus embedding requests), fake server at 50 ms latency, concurrency
# 32. The ideal bound of the transport is concurrency / latency = 640 requests per second;
# the ratio printed is (requests the server received / wall time) / 640.
#
# Memory: the same batch with ROWS and BIG_ROWS rows, peak resident set size from
# /usr/bin/time -v; by default with the simulated provider (no network, minutes not hours),
# with BENCH_MEMORY_PROVIDER=fake against the fake server at 0 ms latency. Results stream to
# the output file, the input is read row by row: memory should not grow with the rows.
# --no-cache: the SQLite cache is a file on disk either way; leaving it out keeps the disk
# out of the measurement.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rows=${2:-2000}
big_rows=${3:-20000}
source bench/common.sh
bench_use_build "$build"
bench_need_time

start_server() { bench_start_server --latency-ms "$1" --threads 64; }  # $1 latency (ms)

run_batch() {  # $1 port, $2 input, $3 output prefix, $4 cache file (default: --no-cache)
  # identity: cpp-httplib would brotli-compress every answer at quality 11 (see
  # bench/transport_throughput.cpp), a cost of the fake server, not of the pipeline.
  local cache_option=(--no-cache)
  [ -n "${4:-}" ] && cache_option=(--cache "$4")
  LLMV_ACCEPT_ENCODING=identity LLMV_API_KEY=test-key /usr/bin/time -v "$cli" batch --task financial_phrasebank \
    --input "$2" --text-column text --id-column id --provider openai \
    --base-url "http://127.0.0.1:$1/v1" --model fake-chat --embedding-model fake-embedding \
    -M 10 -n 10 --concurrency 32 --permutations 199 "${cache_option[@]}" --quiet \
    > "$3.csv" 2> "$3.err"
}

peak_kb_of() { grep 'Maximum resident set size' "$1" | awk '{print $NF}'; }

bench_distinct_rows "$rows" "$work/rows.csv"
bench_distinct_rows "$big_rows" "$work/big-rows.csv"

parts=${BENCH_PARTS:-throughput memory}
if [[ " $parts " == *" throughput "* ]]; then
  echo "== throughput: $rows rows, 50 ms latency, concurrency 32 (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  # Side by side, under the same machine load: the transport alone (its own bench, 2,000
  # requests to a trivial loopback server at 50 ms), then the pipeline through the fake server.
  transport_bench=$build/bench/bench_transport_throughput
  transport_rps=""
  if [ -x "$transport_bench" ]; then
    transport_rps=$("$transport_bench" --requests 2000 --latencies 50 --concurrency 32 |
      awk '$1 == 50 && $3 == 32 { print $4 }')
    echo "transport alone: $transport_rps requests/s (bound 640/s)"
  fi
  # Three times: --no-cache; a fresh cache file (the CLI's default is a cache), written by
  # the cache's writer thread; and a fresh cache file written inline on the client thread
  # (LLMV_CACHE_INLINE_WRITES=1, how it was before the writer thread). Each against a fresh
  # server (its counter counts the run's requests).
  for variant in no-cache cache cache-inline-writes; do
    start_server 50
    cache_file=""
    [ "$variant" != no-cache ] && cache_file="$work/cache-$variant.sqlite"
    inline_writes=0
    [ "$variant" = cache-inline-writes ] && inline_writes=1
    LLMV_CACHE_INLINE_WRITES=$inline_writes run_batch "$port" "$work/rows.csv" "$work/slow-$variant" "$cache_file"
    requests=$(requests_of "$port")
    seconds=$(seconds_of "$work/slow-$variant.err")
    cpu=$(cpu_of "$work/slow-$variant.err")
    echo "-- pipeline, $variant (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    awk -v r="$requests" -v s="$seconds" -v rows="$rows" -v t="$transport_rps" -v cpu="$cpu" 'BEGIN {
      ideal = 32 / 0.050;
      printf "pipeline: %d requests in %.1f s: %.0f requests/s; ideal bound %.0f/s; ratio %.2f\n", r, s, r / s, ideal, (r / s) / ideal;
      if (t != "") printf "pipeline / transport alone: %.2f\n", (r / s) / t;
      printf "client CPU %.1f s (%.2f ms a request); passages/s %.1f\n", cpu, 1000 * cpu / r, rows / s }'
    grep -c ',ok,' "$work/slow-$variant.csv" | awk -v rows="$rows" '{ printf "passages with a verdict: %d of %d\n", $1, rows }'
    bench_stop_server
  done
fi
[[ " $parts " == *" memory "* ]] || exit 0

if [ "${BENCH_MEMORY_PROVIDER:-simulated}" = simulated ]; then
  # The pipeline's own memory (streamed input and output, passages in flight, results),
  # without the network: the simulated provider answers in-process.
  echo "== peak memory: $rows vs $big_rows rows, simulated provider (synthetic, no network)"
  run_memory() {
    /usr/bin/time -v "$cli" batch --task financial_phrasebank --input "$1" --text-column text \
      --id-column id --provider simulated -M 10 -n 10 --permutations 199 --no-cache --quiet \
      > "$2.csv" 2> "$2.err"
  }
  run_memory "$work/rows.csv" "$work/small" || { echo "batch failed:"; head -3 "$work/small.err"; exit 1; }
  run_memory "$work/big-rows.csv" "$work/big" || { echo "batch failed:"; head -3 "$work/big.err"; exit 1; }
else
  echo "== peak memory: $rows vs $big_rows rows, fake server at 0 ms latency"
  start_server 0
  run_batch "$port" "$work/rows.csv" "$work/small"
  run_batch "$port" "$work/big-rows.csv" "$work/big"
fi
small_kb=$(peak_kb_of "$work/small.err")
big_kb=$(peak_kb_of "$work/big.err")
awk -v a="$small_kb" -v b="$big_kb" -v ra="$rows" -v rb="$big_rows" \
    -v sa="$(seconds_of "$work/small.err")" -v sb="$(seconds_of "$work/big.err")" 'BEGIN {
  printf "%6d rows: peak RSS %6.1f MB, %.1f s\n", ra, a / 1024, sa;
  printf "%6d rows: peak RSS %6.1f MB, %.1f s\n", rb, b / 1024, sb;
  printf "ratio (big / small): %.2f\n", b / a }'
grep -c ',ok,' "$work/big.csv" | awk -v rows="$big_rows" '{ printf "passages with a verdict: %d of %d\n", $1, rows }'
