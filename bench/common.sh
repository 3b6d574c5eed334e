# What the benches that run the CLI against the C++ fake provider server share. Sourced (not
# run) by bench/*.sh after they cd to the repository: `source bench/common.sh`. It makes the
# temporary folder `$work`, removes it and stops every server started here on exit.

work=$(mktemp -d)
bench_server_pids=()
bench_cleanup() {
  local pid
  for pid in "${bench_server_pids[@]}"; do kill "$pid" 2> /dev/null || true; done
  rm -rf "$work"
}
trap bench_cleanup EXIT

# The CLI and the fake server of the build folder $1: sets $cli and $server, and checks both.
bench_use_build() {
  cli=$1/cpp/llmvalidate
  server=$1/tests/fake_server/fake_provider_server
  bench_need_executables "$cli" "$server"
}
# The Financial PhraseBank CSV (BENCH_DATA, else the shared copy): sets $data, and checks it.
bench_use_phrasebank() {
  data=${BENCH_DATA:-../shared/data/financial-phrasebank/financial_phrasebank.csv}
  [ -f "$data" ] || { echo "missing $data (the Financial PhraseBank CSV)" >&2; exit 1; }
}

bench_need_executables() {  # each argument must be an executable built by tools/build.sh
  local binary
  for binary in "$@"; do
    [ -x "$binary" ] || { echo "missing $binary: build first (tools/build.sh)" >&2; exit 1; }
  done
}
bench_need_time() {  # peak RSS and CPU come from GNU time's -v report
  [ -x /usr/bin/time ] || { echo "/usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
}

# Starts `$server` (the fake_provider_server executable) on a free port of 127.0.0.1 with the
# options given, and sets $port. Not in a subshell, so that bench_cleanup sees the process.
bench_start_server() {
  local port_file
  port_file=$(mktemp "$work/port.XXXXXX")
  "$server" --port 0 "$@" > "$port_file" 2> /dev/null &
  bench_server_pids+=($!)
  for _ in $(seq 100); do
    [ -s "$port_file" ] && break
    sleep 0.1
  done
  port=$(head -1 "$port_file" | tr -dc '0-9')
  [ -n "$port" ] || { echo "the fake server did not start ($server)" >&2; exit 1; }
}
bench_stop_server() {  # the server started last
  local pid=${bench_server_pids[-1]}
  kill "$pid" 2> /dev/null || true
  wait "$pid" 2> /dev/null || true
  unset 'bench_server_pids[-1]'
}

# The requests a server has received ($1: its port; default $port).
requests_of() {
  curl -s "http://127.0.0.1:${1:-$port}/_control/counters" | tr -d ' \n' |
    sed 's/.*"total":\([0-9]*\).*/\1/'
}

# From a GNU time -v report ($1): wall seconds ("h:mm:ss" or "m:ss.ss"), CPU seconds (user +
# system), peak RSS in MB.
seconds_of() {
  grep 'Elapsed (wall clock)' "$1" | awk '{print $NF}' |
    awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }'
}
cpu_of() { grep -E 'User time|System time' "$1" | awk '{ s += $NF } END { print s }'; }
peak_mb_of() { grep 'Maximum resident set size' "$1" | awk '{printf "%.1f", $NF / 1024}'; }

# $1 rows of distinct sentences (so that no two passages share a prompt), columns id and text,
# written to $2.
bench_distinct_rows() {
  awk -v n="$1" 'BEGIN {
    srand(7);
    split("profit rose|sales fell|the board met|orders grew|costs climbed|shares slid|the plant opened|margins held", what, "|");
    print "id,text";
    for (i = 1; i <= n; i++)
      printf "r%d,\"Company %d said %s in quarter %d, according to report %d.\"\n", i, i, what[1 + int(rand() * 8)], 1 + i % 4, i * 7;
  }' > "$2"
}
