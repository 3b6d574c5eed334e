#!/usr/bin/env bash
# The Windows x64 Stata plugin: cross-compiled (tools/build-windows-plugin.sh), checked as a
# binary, and run under wine against the Linux plugin:
# - check_plugin_binary.sh --windows: a PE32+ DLL exporting exactly pginit and stata_call and
#   importing only Windows' own DLLs; the same check rejects a DLL linked the ordinary way
#   (against mingw's libstdc++-6.dll), so it can fail;
# - plugin_transcript (stata/tests/platforms/), built for both platforms, runs `version`,
#   `test` and `validate` with the simulated provider and one `validate` against the fake
#   provider server on 127.0.0.1 (the Linux server; the Windows plugin reaches it through its
#   own libcurl and Winsock under wine). The two transcripts, every double as its 64 bits,
#   must be identical.
# tools/setup.sh installs mingw-w64 and wine64. The curl build is cached in
# ~/.cache/llmvalidate/windows-curl (outside the clone), the wine prefix in $BUILD_DIR/wine-prefix.
set -euo pipefail
cd "$(dirname "$0")/../.."
build_dir=${BUILD_DIR:-build}
log() { echo "stata-windows: $*"; }
fail() { echo "stata-windows: FAIL: $*" >&2; exit 1; }

wine=$(command -v wine64 || true)
[ -n "$wine" ] || [ ! -x /usr/lib/wine/wine64 ] || wine=/usr/lib/wine/wine64  # Debian's place
[ -n "$wine" ] || fail "wine64 not found (apt-get install wine64; tools/setup.sh does)"

windows_plugin=$(JOBS=${JOBS:-2} BUILD_DIR=$build_dir bash tools/build-windows-plugin.sh)
windows_dir=$build_dir/windows
windows_transcript=$windows_dir/stata/plugin_transcript.exe

# The binary: the build's plugin and the stripped copy a net-install folder gets.
bash stata/tests/check_plugin_binary.sh --windows "$windows_dir/stata/llmvalidate_win64.plugin"
bash stata/tests/check_plugin_binary.sh --windows "$windows_plugin"
scratch=$(mktemp -d)
server_pid=""
cleanup() {
  [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
  rm -rf "$scratch"
}
trap cleanup EXIT
printf '%s\n' 'extern "C" __declspec(dllexport) int pginit(void*) { return 3; }' \
  'extern "C" __declspec(dllexport) int stata_call(int, char**) { throw 1; }' >"$scratch/shared.cpp"
x86_64-w64-mingw32-g++-posix -shared "$scratch/shared.cpp" -o "$scratch/shared.plugin"
bash stata/tests/check_plugin_binary.sh --windows --expect-failure "$scratch/shared.plugin"

# The Linux side of the comparison.
cmake --build "$build_dir" -j "${JOBS:-2}" --target llmvalidate_plugin plugin_transcript \
  fake_provider_server >/dev/null
linux_plugin=$build_dir/stata/llmvalidate.plugin
linux_transcript=$build_dir/stata/plugin_transcript
server_binary=$build_dir/tests/fake_server/fake_provider_server
for file in "$linux_plugin" "$linux_transcript" "$server_binary"; do
  [ -x "$file" ] || [ -f "$file" ] || fail "$file was not built"
done

# The fake provider server on 127.0.0.1 (it prints its port), shared by both runs: each run has
# a cache of its own, so each makes every request.
"$server_binary" --port 0 --api-key sk-transcript >"$scratch/server.port" &
server_pid=$!
for _ in $(seq 50); do
  [ -s "$scratch/server.port" ] && break
  sleep 0.1
done
port=$(head -n 1 "$scratch/server.port")
[[ $port =~ ^[0-9]+$ ]] || fail "the fake provider server printed no port"
base_url=http://127.0.0.1:$port/v1
task=$PWD/prompts/simple_sentiment.toml

mkdir -p "$scratch/linux-cache" "$scratch/windows-cache"
log "Linux transcript"
"$linux_transcript" "$linux_plugin" "$task" "$scratch/linux-cache" "$base_url" \
  >"$scratch/linux.txt" || fail "the Linux transcript exited with $?"

# Wine sees the Linux file system as drive Z:.
export WINEPREFIX=${WINEPREFIX:-$(cd "$build_dir" && pwd)/wine-prefix} WINEDEBUG=${WINEDEBUG:--all}
to_windows() { echo "Z:$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
log "Windows transcript under $("$wine" --version 2>/dev/null || echo wine)"
status=0
timeout 600 "$wine" "$windows_transcript" "$(to_windows "$windows_plugin")" "$(to_windows "$task")" \
  "$(to_windows "$scratch/windows-cache")" "$base_url" >"$scratch/windows.txt" 2>"$scratch/wine.err" ||
  status=$?
if [ $status -ne 0 ]; then
  grep -v '^wine: \|^[0-9a-f]*:err:\|^[0-9a-f]*:fixme:' "$scratch/wine.err" >&2 || true
  fail "the Windows transcript exited with $status under wine"
fi
tr -d '\r' <"$scratch/windows.txt" >"$scratch/windows.lf.txt"  # the console's CRLF

# Identical failures would compare equal: every call must have succeeded.
for section in "version" "test" "validate simulated" "validate server"; do
  body=$(awk -v s="== $section" '$0 == s {on = 1; next} /^== / {on = 0} on' "$scratch/linux.txt")
  [ -n "$body" ] || fail "the Linux transcript has no '== $section'"
  if ! grep -qx 'rc 0' <<<"$body" || grep -q '^store_rc [^0]' <<<"$body"; then
    head -n 8 <<<"$body" >&2
    fail "$section did not succeed on Linux"
  fi
done
if ! diff -u "$scratch/linux.txt" "$scratch/windows.lf.txt" >"$scratch/transcript.diff"; then
  head -n 80 "$scratch/transcript.diff" >&2
  fail "the Windows plugin's results differ from the Linux plugin's ($(grep -c '^[-+][^-+]' \
"$scratch/transcript.diff") lines)"
fi
log "PASS: $(wc -l <"$scratch/linux.txt") transcript lines identical on Linux and Windows" \
    "(version, test, validate simulated, validate against the fake server)"
