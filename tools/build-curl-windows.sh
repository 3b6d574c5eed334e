#!/usr/bin/env bash
# Builds the static libcurl that the Windows Stata plugin links: HTTP and HTTPS only, TLS by
# Windows' own Schannel (the system certificate store), no other library (no zlib, nghttp2,
# libidn2, libssh2, libpsl). Cross-compiled with mingw-w64 (stata/windows/mingw-w64-x86_64.cmake).
#
# The source is Debian bookworm's curl source package (the upstream tarball with Debian's
# security patches applied), fetched with `apt-get source` through a private apt configuration
# (a deb-src list, index and cache under the output folder): the system's apt sources are not
# touched, and apt checks the index signature and the files' hashes. Nothing is kept in the
# repository.
#
#   tools/build-curl-windows.sh [prefix]
#       default: $LLMV_CACHE_DIR/windows-curl (LLMV_CACHE_DIR: ~/.cache/llmvalidate), outside the
#       clone as fetch-sqlite.sh's cache is, so that a fresh clone (CI's) does not build it again
#
# Installs into <prefix>/install (include/curl, lib/libcurl.a, lib/cmake/CURL) and prints that
# folder on stdout (progress on stderr). A second run finds the installed library and returns
# at once; delete the prefix to rebuild (e.g. for a newer Debian patch release).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
prefix=${1:-${LLMV_CACHE_DIR:-${HOME:-/tmp}/.cache/llmvalidate}/windows-curl}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
install_dir=$prefix/install
stamp=$install_dir/llmv-curl-source.txt  # the Debian version built, written last

if [ -f "$stamp" ] && [ -f "$install_dir/lib/libcurl.a" ]; then
  echo "$install_dir"
  exit 0
fi

log() { echo "build-curl-windows: $*" >&2; }
for tool in apt-get dpkg-source cmake ninja x86_64-w64-mingw32-gcc-posix; do
  command -v "$tool" >/dev/null 2>&1 || { log "needs '$tool' (tools/setup.sh installs it)"; exit 1; }
done

# A private apt: its own source list (deb-src for bookworm and its security updates), index
# and download cache. As root, apt would hand the download to the _apt user, who cannot write
# here: the sandbox user stays root.
apt_dir=$prefix/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
cat >"$apt_dir/sources.list" <<EOF
deb-src [signed-by=$keyring] http://deb.debian.org/debian bookworm main
deb-src [signed-by=$keyring] http://deb.debian.org/debian-security bookworm-security main
EOF
apt_options=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
             -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
             -o Debug::NoLocking=1 -qq)
if [ "$(id -u)" = 0 ]; then
  apt_options+=(-o APT::Sandbox::User=root)
fi
log "reading Debian bookworm's source index"
apt-get "${apt_options[@]}" update >&2

source_root=$prefix/source
rm -rf "$source_root"
mkdir -p "$source_root"
log "fetching and unpacking Debian's curl source package"
(cd "$source_root" && apt-get "${apt_options[@]}" source curl >&2)
source_dir=$(find "$source_root" -mindepth 1 -maxdepth 1 -type d -name 'curl-*' | head -n 1)
[ -n "$source_dir" ] && [ -f "$source_dir/CMakeLists.txt" ] ||
  { log "apt-get source curl gave no source tree with a CMakeLists.txt"; exit 1; }
debian_version=$(sed -n '1s/^curl (\([^)]*\)).*/\1/p' "$source_dir/debian/changelog")
log "curl $debian_version (Debian bookworm)"

build=$prefix/build
rm -rf "$build" "$install_dir"
# HTTP_ONLY turns off every other protocol; each optional library is named off so that
# nothing from the build machine is picked up.
cmake -S "$source_dir" -B "$build" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$repo/stata/windows/mingw-w64-x86_64.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$install_dir" \
  -DBUILD_SHARED_LIBS=OFF -DBUILD_CURL_EXE=OFF -DBUILD_TESTING=OFF -DENABLE_MANUAL=OFF \
  -DHTTP_ONLY=ON -DCURL_DISABLE_LDAP=ON -DCURL_DISABLE_LDAPS=ON \
  -DCURL_ENABLE_SSL=ON -DCURL_USE_SCHANNEL=ON -DCURL_USE_OPENSSL=OFF -DCURL_WINDOWS_SSPI=ON \
  -DCURL_ZLIB=OFF -DCURL_BROTLI=OFF -DCURL_ZSTD=OFF -DUSE_NGHTTP2=OFF -DUSE_LIBIDN2=OFF \
  -DUSE_WIN32_IDN=OFF -DCURL_USE_LIBPSL=OFF -DCURL_USE_LIBSSH2=OFF -DCURL_USE_LIBSSH=OFF \
  -DCURL_USE_GSSAPI=OFF -DENABLE_UNIX_SOCKETS=OFF -DCURL_DISABLE_NTLM=ON \
  -DPICKY_COMPILER=OFF >"$prefix/configure.log" 2>&1 ||
  { tail -n 40 "$prefix/configure.log" >&2; log "configuring curl failed ($prefix/configure.log)"; exit 1; }
cmake --build "$build" -j "${JOBS:-2}" >"$prefix/build.log" 2>&1 ||
  { tail -n 40 "$prefix/build.log" >&2; log "building curl failed ($prefix/build.log)"; exit 1; }
cmake --install "$build" >/dev/null
# What was built is what the plugin needs: HTTP and HTTPS, TLS by Schannel (SSPI), nothing else.
pc=$install_dir/lib/pkgconfig/libcurl.pc
protocols=$(sed -n 's/^supported_protocols="\(.*\)"/\1/p' "$pc")
features=$(sed -n 's/^supported_features="\(.*\)"/\1/p' "$pc")
[ "$protocols" = "HTTP HTTPS" ] || { log "libcurl's protocols are '$protocols', not HTTP HTTPS"; exit 1; }
for feature in SSL SSPI threadsafe; do
  [[ " $features " == *" $feature "* ]] ||
    { log "libcurl was built without $feature (features: $features)"; exit 1; }
done
echo "curl $debian_version from Debian bookworm's source package, Schannel, static" >"$stamp"
log "installed into $install_dir"
echo "$install_dir"
