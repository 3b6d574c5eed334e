#!/usr/bin/env bash
# The whole corpus, killed at each phase (issue 26): one batch-API run of ROWS passages of the
# Financial PhraseBank against the C++ fake provider server, killed with SIGKILL (as kill -9
# would) at one point after another, each time resumed with the same command, until a run
# completes. Long (not part of tools/test.sh).
#
#   bench/scale_resume.sh [BUILD_DIR] [ROWS]      (defaults: build, 4846 = the whole PhraseBank)
#   BENCH_M (20), BENCH_N (10), BENCH_DIMENSIONS (1536), BENCH_LATENCY_MS (5),
#   BENCH_CONCURRENCY (32), BENCH_KILLS (the points, in order; see below),
#   BENCH_RUN_TIMEOUT (seconds a run, 3600),
#   BENCH_DATA (../shared/data/financial-phrasebank/financial_phrasebank.csv)
#
# A kill is PHASE:POINT:N. POINT:N is the engine's LLMV_DEBUG_KILL_AT (cpp/pipeline/debug_env.hpp):
# the run kills itself the Nth time it passes POINT. PHASE is the phase the run must be in: 1
# (the annotations and the K pools) or 2 (the backtranslations and the embeddings), read from the
# cache; while the cache is short of it, runs killed when a second pass begins (between_phases:2,
# after one round trip of provider batches; printed as "advance") move the work on. The default list kills phase 1 while submitting, polling,
# downloading and between passes, then phase 2 while uploading, submitting, polling and
# downloading.
#
# Per run it prints the point, the exit status (137 for a kill), wall time, peak RSS, the
# requests the server received, the phase the run was in when it ended (from the cache: 1 while
# pool answers are missing, 2 while other answers are (a dry run's "to be made"), "-" when
# complete) and the last thing the run
# said. At the end: the verdicts of the completing run, the answers paid twice (custom ids the
# server received in more than one provider batch), and the files left beside the cache.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rows=${2:-4846}
m=${BENCH_M:-20}
n=${BENCH_N:-10}
dimensions=${BENCH_DIMENSIONS:-1536}
latency=${BENCH_LATENCY_MS:-5}
concurrency=${BENCH_CONCURRENCY:-32}
kills=${BENCH_KILLS:-1:after_record:2 1:polling:3 1:downloading:2 1:between_phases:1 2:after_upload:2 2:after_record:3 2:polling:3 2:downloading:2}
run_timeout=${BENCH_RUN_TIMEOUT:-3600}
source bench/common.sh
bench_use_build "$build"
bench_need_time
bench_use_phrasebank
command -v python3 > /dev/null || { echo "python3 is missing (it reads the server's counters)" >&2; exit 1; }
command -v sqlite3 > /dev/null || { echo "sqlite3 is missing (apt-get install sqlite3)" >&2; exit 1; }
export LLMV_PROMPTS_DIR=${LLMV_PROMPTS_DIR:-$PWD/prompts}

# One server for every run: it keeps the provider batches the killed runs created.
bench_start_server --latency-ms "$latency" --threads 64 --dimensions "$dimensions"
last_said() {  # the run's last status line (progress lines end in \r)
  tr '\r' '\n' < "$1" | grep -v -E '^\s|^(Command being timed|Command terminated)|^$' |
    grep -v -E '^\s*(User|System|Percent|Elapsed|Average|Maximum|Major|Minor|Voluntary|Involuntary|Swaps|File|Socket|Signals|Page|Exit)' |
    tail -1 | cut -c1-90
}

head -n $((rows + 1)) "$data" > "$work/rows.csv"
cache=$work/cache.sqlite
echo "== scale_resume: $rows passages, M = $m, n = $n, $dimensions-d vectors, fake server at $latency ms, concurrency $concurrency"
echo "   load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores, $(date -u +%FT%TZ)"
k=3  # labels of the task
# Passages that repeat one another (the PhraseBank has 8) send the same requests: the cache
# holds one answer for them all.
distinct=$(python3 -c 'import csv, sys; print(len({r["sentence"] for r in csv.DictReader(open(sys.argv[1]))}))' "$work/rows.csv")
pools_expected=$((distinct * k * ((m + n - 1) / n)))
run_args=(batch --task financial_phrasebank --input "$work/rows.csv" --text-column sentence
  --provider openai --base-url "http://127.0.0.1:$port/v1" --model fake-chat
  --embedding-model fake-embedding -M "$m" -n "$n" --concurrency "$concurrency"
  --permutations 199 --cache "$cache" --batch-api --poll-interval 1)
phase_of_cache() {  # 1: pool answers missing; 2: other answers missing; 3: none missing
  [ -f "$cache" ] || { echo 1; return; }
  local pools
  pools=$(sqlite3 -readonly "$cache" "SELECT COUNT(*) FROM responses WHERE status = 'ok' AND vector IS NULL AND text LIKE '{\"passages\"%'" 2> /dev/null || echo 0)
  if [ "$pools" -lt "$pools_expected" ]; then
    echo 1
  elif LLMV_API_KEY=test-key "$cli" "${run_args[@]}" --dry-run 2> /dev/null |
    grep -q -E '^ *to be made: *0 chat calls, 0 texts'; then
    echo 3
  else
    echo 2
  fi
}
printf '%-4s %-20s %6s %8s %9s %9s %5s  %s\n' run kill_at status wall_s peak_MB requests phase "last status line"
run=0
last_status=1
last_phase=$(phase_of_cache)  # the phase the cache is in (one dry run after each run)
worst_peak=0
one_run() {  # $1: LLMV_DEBUG_KILL_AT ("" for none), $2: what the table calls it
  local point=$1 label=$2
  run=$((run + 1))
  local before status=0
  before=$(requests_of)
  LLMV_DEBUG_KILL_AT=$point LLMV_ACCEPT_ENCODING=identity LLMV_API_KEY=test-key \
    timeout "$run_timeout" /usr/bin/time -v "$cli" "${run_args[@]}" \
    > "$work/run-$run.csv" 2> "$work/run-$run.err" || status=$?
  peak=$(peak_mb_of "$work/run-$run.err")
  worst_peak=$(awk -v a="$worst_peak" -v b="$peak" 'BEGIN { print (b > a ? b : a) }')
  last_phase=$(phase_of_cache)
  printf '%-4s %-20s %6s %8.1f %9s %9s %5s  %s\n' "$run" "$label" "$status" \
    "$(seconds_of "$work/run-$run.err")" "$peak" "$(( $(requests_of) - before ))" \
    "${last_phase/3/-}" "$(last_said "$work/run-$run.err")"
  # A run killed at a point may also complete (a small run's phase is over before the point);
  # the last run must complete.
  local allowed="137 0"
  [ "$label" = "(none)" ] && allowed=0
  last_status=$status
  if ! [[ " $allowed " == *" $status "* ]]; then
    echo "run $run ($label) ended with $status:" >&2
    tail -5 "$work/run-$run.err" >&2
    exit 1
  fi
}
for kill in $kills; do
  phase=${kill%%:*}
  point=${kill#*:}
  advances=0
  while [ "$last_phase" -lt "$phase" ]; do
    # The second pass's end: one round trip of the provider batches is read back.
    one_run between_phases:2 "advance"
    advances=$((advances + 1))
    [ "$advances" -lt 5 ] || { echo "phase $phase not reached in 5 runs" >&2; exit 1; }
  done
  if [ "$last_phase" != "$phase" ]; then
    # Small runs: the advance that moved the work to this phase also finished it.
    echo "     (phase $phase is over before the kill $point: not made)"
    continue
  fi
  one_run "$point" "$phase:$point"
  if [ "$last_status" = 0 ]; then
    echo "     (run $run completed before its kill point: the kills after it are not made)"
    break
  fi
done
[ "$last_status" = 0 ] || one_run "" "(none)"
verdicts=$(grep -c ',ok,' "$work/run-$run.csv" || true)
left=$(cd "$work" && ls | grep -c -E '^cache\.sqlite\.(batch-work|download|journal)-' || true)
curl -s "http://127.0.0.1:$port/_control/batches" > "$work/batches.json"
python3 - "$work/batches.json" "$verdicts" "$rows" "$worst_peak" "$left" <<'EOF'
import json, sys
batches = json.load(open(sys.argv[1]))
uses = batches["custom_ids"].values()
twice = sum(u - 1 for u in uses if u > 1)
print(f"verdicts {sys.argv[2]} of {sys.argv[3]}; provider batches {len(batches['batches'])}; "
      f"custom ids {len(batches['custom_ids'])}, paid twice {twice}; "
      f"worst peak RSS {sys.argv[4]} MB; files left beside the cache {sys.argv[5]}")
EOF
