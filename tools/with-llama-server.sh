#!/usr/bin/env bash
# Runs a command with a real llama.cpp `llama-server` on loopback, serving the tiny test model
# shared/models/stories260K.gguf (see its README): tools/with-llama-server.sh CMD [ARGS...]
#
# Builds the server first if needed (tools/build-llama-server.sh, cached outside the repo),
# starts it on 127.0.0.1 on a free port with one thread, waits for /health, exports
# LLMV_LLAMA_URL=http://127.0.0.1:PORT, runs the command, and stops the server on exit.
# Exit status: the command's.
#
# Where the server cannot be had (no model, the build fails), it prints
# "skipping llama-server tier: <reason>" and exits 0 without running the command, except
# under CI=true or LLMV_LLAMA_REQUIRED=1, where that is an error (exit 1): CI builds it.
#
# Environment: LLMV_SHARED_DIR (default: the repository's ../shared), LLMV_LLAMA_MODEL,
# LLMV_LLAMA_SERVER (a llama-server binary to use instead of building one).
set -euo pipefail

if [ $# -eq 0 ]; then
  echo "usage: tools/with-llama-server.sh CMD [ARGS...]" >&2
  exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=${LLMV_SHARED_DIR:-$repo/../shared}
model=${LLMV_LLAMA_MODEL:-$shared/models/stories260K.gguf}

skip() {
  echo "skipping llama-server tier: $*" >&2
  if [ "${CI:-}" = true ] || [ "${LLMV_LLAMA_REQUIRED:-0}" = 1 ]; then
    echo "with-llama-server: CI (or LLMV_LLAMA_REQUIRED=1) needs this tier; failing" >&2
    exit 1
  fi
  exit 0
}

[ -f "$model" ] || skip "no model at $model (set LLMV_SHARED_DIR or LLMV_LLAMA_MODEL)"
command -v curl >/dev/null 2>&1 || skip "curl is not installed (tools/setup.sh installs it)"
if [ -n "${LLMV_LLAMA_SERVER:-}" ]; then
  server=$LLMV_LLAMA_SERVER
else
  build_log=$(mktemp)
  if ! server=$(bash "$repo/tools/build-llama-server.sh" 2>"$build_log"); then
    tail -n 20 "$build_log" >&2
    rm -f "$build_log"
    skip "tools/build-llama-server.sh could not build llama-server (see above)"
  fi
  rm -f "$build_log"
fi
[ -x "$server" ] || skip "$server is not an executable"

log=$(mktemp)
server_pid=
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -f "$log"
}
trap stop_server EXIT
trap 'exit 130' INT TERM

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# A port is free when nothing answers on it; a race with another process is caught by the
# server exiting at once, and then another port is tried.
started=0
for attempt in 1 2 3 4 5; do
  port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
  port_in_use "$port" && continue
  "$server" -m "$model" --host 127.0.0.1 --port "$port" -t 1 -c 512 \
    --embeddings --pooling mean --no-webui >"$log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 600); do  # up to 60 s for the model to load
    if ! kill -0 "$server_pid" 2>/dev/null; then break; fi
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/health")" = 200 ]; then
      started=1
      break
    fi
    sleep 0.1
  done
  [ "$started" = 1 ] && break
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=
done
if [ "$started" != 1 ]; then
  tail -n 30 "$log" >&2
  skip "llama-server did not become healthy (its log is above)"
fi

export LLMV_LLAMA_URL="http://127.0.0.1:$port"
echo "with-llama-server: llama-server (pid $server_pid) at $LLMV_LLAMA_URL, model $(basename "$model")" >&2
status=0
"$@" || status=$?
exit $status
