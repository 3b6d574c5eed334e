#!/usr/bin/env bash
# The portable Stata plugin on the oldest glibc Debian's archive still serves: a root file
# system made by debootstrap from the oldest suite the mirror has (bullseye, glibc 2.31, when
# this was written: older suites have left Debian's mirror), cached outside the clone so that
# reruns take seconds. Inside it (chroot), a host written in C and linked with -ldl only
# (stata/tests/old_glibc/tiny_host.c; no libpthread in the process, as in a Stata that does not
# link it) loads the installed (stripped) plugin and runs `version`, `test` and a `validate`
# against the fake provider server on 127.0.0.1, through the rootfs's own libcurl. The same host
# built for this machine runs the same calls; every r() scalar must be equal.
#
# Needs root (debootstrap and chroot) and debootstrap (tools/setup.sh installs it); without
# either it says so and skips. LLMV_OLD_GLIBC=0 skips it. The cache: $LLMV_OLD_GLIBC_CACHE, by
# default ${XDG_CACHE_HOME:-~/.cache}/llmvalidate/old-glibc/<suite>; the mirror:
# $LLMV_DEBIAN_MIRROR, else the first Debian URI of this machine's apt sources.
set -euo pipefail
cd "$(dirname "$0")/../.."
log() { echo "stata-old-glibc: $*"; }
fail() { echo "stata-old-glibc: FAIL: $*" >&2; exit 1; }
trap 'echo "stata-old-glibc: FAIL: line $LINENO exited with $?" >&2' ERR
if [ "${LLMV_OLD_GLIBC:-1}" = 0 ]; then log "skipped (LLMV_OLD_GLIBC=0)"; exit 0; fi
if [ "$(id -u)" != 0 ]; then log "skipped: needs root for debootstrap and chroot"; exit 0; fi
command -v debootstrap >/dev/null || { log "skipped: no debootstrap (tools/setup.sh)"; exit 0; }
build_dir=${BUILD_DIR:-build}
# The mirror apt itself uses here (deb822 "URIs:" or a one-line "deb URL" entry).
apt_mirror=$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
  awk '/^URIs:/ {print $2; exit} /^deb / {for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; exit}}' || true)
mirror=${LLMV_DEBIAN_MIRROR:-$apt_mirror}
[ -n "$mirror" ] || fail "no Debian mirror in the apt sources; set LLMV_DEBIAN_MIRROR"
cache_root=${LLMV_OLD_GLIBC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/llmvalidate/old-glibc}

# The oldest suite the mirror serves, oldest first (glibc 2.19, 2.24, 2.28, 2.31, 2.36).
suite=""
for candidate in jessie stretch buster bullseye bookworm; do
  if [ -d "$cache_root/$candidate" ] ||
     curl -sfI --max-time 20 "$mirror/dists/$candidate/Release" >/dev/null 2>&1; then
    suite=$candidate
    break
  fi
done
[ -n "$suite" ] || fail "$mirror serves none of jessie ... bookworm"
rootfs=$cache_root/$suite
mkdir -p "$cache_root"
if [ ! -x "$rootfs/bin/sh" ]; then
  log "debootstrap $suite from $mirror into $rootfs (once; cached)"
  rm -rf "$rootfs.tmp"
  # libc6-dev: the host is linked against the rootfs's own glibc; libcurl4: the plugin's
  # transport loads it at run time.
  debootstrap --variant=minbase --include=libc6-dev,libcurl4 "$suite" "$rootfs.tmp" "$mirror" \
    >"$cache_root/$suite.log" 2>&1 || { tail -n 20 "$cache_root/$suite.log" >&2;
                                        fail "debootstrap $suite failed"; }
  mv "$rootfs.tmp" "$rootfs"
fi
glibc=$(chroot "$rootfs" /usr/bin/ldd --version | sed -n 1p | grep -o '[0-9]\+\.[0-9]\+$')
log "Debian $suite, glibc $glibc, in $rootfs"

cmake --build "$build_dir" -j "${JOBS:-2}" --target llmvalidate_plugin fake_provider_server \
  >/dev/null
plugin=$build_dir/stata/net/llmvalidate.plugin  # the stripped copy net install gets
server_binary=$build_dir/tests/fake_server/fake_provider_server
[ -f "$plugin" ] || fail "$plugin was not built"

work=$(mktemp -d "$rootfs/tmp/llmv-old-glibc-XXXXXX")
inside=/tmp/$(basename "$work")
server_pid=""
cleanup() {
  [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The host, linked against the rootfs's crt files, libdl and libc (the compiler is this
# machine's; glibc's headers are the rootfs's), and the same source built for this machine.
lib=$rootfs/usr/lib/x86_64-linux-gnu
[ -f "$lib/crt1.o" ] || lib=$rootfs/usr/lib64
sys=$rootfs/lib/x86_64-linux-gnu
loader=$(readlink -f "$rootfs/lib64/ld-linux-x86-64.so.2")
loader=$rootfs${loader#"$rootfs"}  # an absolute link points outside the rootfs
[ -f "$loader" ] || loader=$(ls "$sys"/ld-*.so | sed -n 1p)
flags=(-std=c99 -O1 -Wall -Wextra -Werror -DSYSTEM=OPUNIX -Istata/spi)
gcc "${flags[@]}" --sysroot="$rootfs" -fno-pie -c stata/tests/old_glibc/tiny_host.c \
  -o "$work/tiny_host.o"
gcc -no-pie -nostdlib -o "$work/tiny_host" "$lib/crt1.o" "$lib/crti.o" \
  "$(gcc -print-file-name=crtbegin.o)" "$work/tiny_host.o" "$sys/libdl.so.2" "$sys/libc.so.6" \
  "$lib/libc_nonshared.a" "$loader" "$(gcc -print-file-name=crtend.o)" "$lib/crtn.o" \
  -Wl,--dynamic-linker=/lib64/ld-linux-x86-64.so.2
gcc "${flags[@]}" stata/tests/old_glibc/tiny_host.c -o "$work/tiny_host_native" -ldl
needed=$(readelf -d "$work/tiny_host" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
[ "$needed" = "libdl.so.2 libc.so.6 " ] || fail "the host must need libdl and libc only: $needed"
cp "$plugin" "$work/llmvalidate.plugin"
cp prompts/simple_sentiment.toml "$work/task.toml"

# The fake provider server on 127.0.0.1 (it prints its port); chroot keeps the network.
"$server_binary" --port 0 --api-key sk-old-glibc >"$work/server.port" &
server_pid=$!
for _ in $(seq 50); do
  [ -s "$work/server.port" ] && break
  sleep 0.1
done
port=$(head -n 1 "$work/server.port")
[[ $port =~ ^[0-9]+$ ]] || fail "the fake provider server printed no port"
base_url=http://127.0.0.1:$port/v1

# run NAME: the calls in the rootfs and on this machine; every call must succeed.
run() {
  local name=$1; shift
  local status=0
  chroot "$rootfs" "$inside/tiny_host" "$inside/llmvalidate.plugin" "$@" \
    >"$work/$name.old" 2>&1 || status=$?
  if [ $status -ne 0 ]; then
    cat "$work/$name.old" >&2
    fail "$name on glibc $glibc exited with $status"
  fi
  return 0
}
run version version
grep -qx 'pginit 3' "$work/version.old" || fail "pginit did not answer SPI 3.0"
grep -q "^version \"$(sed -n 's/^project(llmvalidate VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)" \
  "$work/version.old" || { cat "$work/version.old" >&2; fail "version printed no version"; }
run test test
run validate validate "$inside/task.toml" "$inside/cache-old.sqlite" "$base_url" sk-old-glibc
"$work/tiny_host_native" "$work/llmvalidate.plugin" test >"$work/test.new"
"$work/tiny_host_native" "$work/llmvalidate.plugin" validate "$work/task.toml" \
  "$work/cache-new.sqlite" "$base_url" sk-old-glibc >"$work/validate.new"
# The r() scalars (r(cache_hits) depends on timing: a text that comes back twice may be joined
# to the request in flight instead of served from the cache).
for name in test validate; do
  scalars() { grep '^r([A-Za-z_0-9]*) [-0-9.e+nai]*$' "$1" | grep -v '^r(cache_hits)' || true; }
  [ "$(scalars "$work/$name.old" | wc -l)" -ge 5 ] ||
    { cat "$work/$name.old" >&2; fail "$name returned too few r() scalars on glibc $glibc"; }
  diff <(scalars "$work/$name.new") <(scalars "$work/$name.old") >&2 ||
    fail "$name: the r() scalars on glibc $glibc differ from this machine's"
done
log "PASS: on glibc $glibc (Debian $suite), a host without libpthread loaded the plugin and ran" \
    "version, test and validate against the fake server ($(grep -c '^r(' "$work/validate.old")" \
    "r() results of validate); every r() scalar equals this machine's"
