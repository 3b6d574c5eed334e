#!/usr/bin/env bash
# The whole corpus (issue 26): the synchronous path and the batch-API path side by side in
# one run, on the first ROWS passages of the Financial PhraseBank for each size, against the
# C++ fake provider server with 1,536-d vectors. Long (not part of tools/test.sh).
#
#   bench/scale.sh [BUILD_DIR] [SIZES]      (defaults: build "500 2000 5000")
#   BENCH_M (20), BENCH_N (10), BENCH_DIMENSIONS (1536), BENCH_LATENCY_MS (50),
#   BENCH_CONCURRENCY (32), BENCH_PATHS ("sync batch"), BENCH_RUN_TIMEOUT (seconds a run, 3600),
#   BENCH_DATA (../shared/data/financial-phrasebank/financial_phrasebank.csv)
#
# Per path and size it prints, each beside its reference:
# - wall time against the ideal bound: requests the server received / (concurrency / latency)
#   for the synchronous path (the batch path's bound is its provider round trips, not timed);
# - peak RSS of the client (/usr/bin/time -v);
# - cache bytes per passage (the SQLite file and its WAL after the run);
# - client CPU (user + system) per request, and per cached answer on a warm re-run, which
#   sends nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
sizes=${2:-500 2000 5000}
m=${BENCH_M:-20}
n=${BENCH_N:-10}
dimensions=${BENCH_DIMENSIONS:-1536}
latency=${BENCH_LATENCY_MS:-50}
concurrency=${BENCH_CONCURRENCY:-32}
paths=${BENCH_PATHS:-sync batch}
run_timeout=${BENCH_RUN_TIMEOUT:-3600}
source bench/common.sh
bench_use_build "$build"
bench_need_time
bench_use_phrasebank
export LLMV_PROMPTS_DIR=${LLMV_PROMPTS_DIR:-$PWD/prompts}

start_server() {  # a fresh server per run, so that its counter counts that run
  bench_start_server --latency-ms "$latency" --threads 64 --dimensions "$dimensions"
}
bytes_of() { local total=0; for f in "$1" "$1-wal"; do [ -f "$f" ] && total=$((total + $(stat -c %s "$f"))); done; echo $total; }

run_batch() {  # $1 rows file, $2 output prefix, $3 cache, extra options after
  local rows=$1 out=$2 cache=$3
  shift 3
  LLMV_ACCEPT_ENCODING=identity LLMV_API_KEY=test-key timeout "$run_timeout" /usr/bin/time -v "$cli" batch \
    --task financial_phrasebank --input "$rows" --text-column sentence --provider openai \
    --base-url "http://127.0.0.1:$port/v1" --model fake-chat --embedding-model fake-embedding \
    -M "$m" -n "$n" --concurrency "$concurrency" --permutations 199 --cache "$cache" --quiet "$@" \
    > "$out.csv" 2> "$out.err"
}

echo "== scale: M = $m, n = $n, $dimensions-d vectors, fake server at $latency ms, concurrency $concurrency"
echo "   load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores, $(date -u +%FT%TZ)"
printf '%-6s %6s %9s %9s %8s %9s %10s %11s %12s %10s\n' path rows requests wall_s ideal_s "ideal/wall" peak_MB \
  "cache_MB/p" "CPU_ms/req" "warm_us/hit"
for rows in $sizes; do
  head -n $((rows + 1)) "$data" > "$work/rows.csv"
  for path in $paths; do
    cache=$work/cache-$path-$rows.sqlite
    options=()
    [ "$path" = batch ] && options=(--batch-api --poll-interval 1)
    start_server
    status=ok
    run_batch "$work/rows.csv" "$work/$path-$rows" "$cache" "${options[@]}" || status="failed ($?)"
    requests=$(requests_of)
    if [ "$status" != ok ]; then
      bench_stop_server
      echo "$path $rows: $status: $(grep -v '^\s' "$work/$path-$rows.err" | head -2 | tr '\n' ' ')"
      continue
    fi
    cache_bytes=$(bytes_of "$cache")
    # Warm re-run, synchronous, against the same server (its URL is part of every cache key):
    # every answer from the cache, nothing sent.
    hits=$(sqlite3 "$cache" "SELECT COUNT(*) FROM responses WHERE status = 'ok'" 2>/dev/null || echo 0)
    run_batch "$work/rows.csv" "$work/$path-$rows-warm" "$cache" || true
    warm_requests=$(( $(requests_of) - requests ))
    bench_stop_server
    verdicts=$(grep -c ',ok,' "$work/$path-$rows.csv" || true)
    awk -v path="$path" -v rows="$rows" -v r="$requests" -v s="$(seconds_of "$work/$path-$rows.err")" \
        -v c="$concurrency" -v l="$latency" -v peak="$(peak_mb_of "$work/$path-$rows.err")" \
        -v bytes="$cache_bytes" -v cpu="$(cpu_of "$work/$path-$rows.err")" \
        -v warm="$(cpu_of "$work/$path-$rows-warm.err")" -v hits="$hits" 'BEGIN {
      ideal_s = "-"; ratio = "-";
      if (path == "sync" && l > 0) {
        ideal = r / (c / (l / 1000));
        ideal_s = sprintf("%.1f", ideal);
        ratio = sprintf("%.2f", ideal / s);
      }
      per_request = r > 0 ? 1000 * cpu / r : 0;
      per_hit = hits > 0 ? 1e6 * warm / hits : 0;
      printf "%-6s %6d %9d %9.1f %8s %9s %10s %11.2f %12.3f %10.0f\n", path, rows, r, s, ideal_s, ratio, peak, bytes / rows / 1e6, per_request, per_hit }'
    echo "       verdicts $verdicts of $rows; warm re-run sent $warm_requests requests, read $hits cached answers"
  done
done
