#!/usr/bin/env bash
# Builds a real llama.cpp `llama-server` with no network beyond the npm registry: the npm
# package node-llama-cpp carries the full llama.cpp source as a git bundle
# (see shared/models/README.md). The binary is cached outside the repository, keyed by the
# package version, so a second run prints the path and returns at once.
# Prints the binary's path on stdout (progress goes to stderr). Exit 0 on success.
# Environment: LLMV_CACHE_DIR (default ~/.cache/llmvalidate), JOBS (default 2).
set -euo pipefail

version=3.21.1
cache_root=${LLMV_CACHE_DIR:-${HOME:-/tmp}/.cache/llmvalidate}
install_dir=$cache_root/llama-server-$version
binary=$install_dir/llama-server

if [ -x "$binary" ]; then
  echo "$binary"
  exit 0
fi

log() { echo "build-llama-server: $*" >&2; }
for tool in npm git cmake c++; do
  command -v "$tool" >/dev/null 2>&1 || { log "needs '$tool' (tools/setup.sh installs it)"; exit 1; }
done

# One build at a time per cache (several test runs may start at once): the second waits,
# then finds the binary.
mkdir -p "$cache_root"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$cache_root/llama-server-$version.lock"
  if ! flock -n 9; then
    log "another build of llama-server is running; waiting for it"
    flock 9
  fi
  if [ -x "$binary" ]; then
    echo "$binary"
    exit 0
  fi
fi

work_dir=$cache_root/llama-server-$version.work
mkdir -p "$work_dir"
start=$(date +%s)

# The package is only a carrier for the source bundle: skip its install scripts (they would
# look for or build binaries of their own) and its optional prebuilt-binary packages.
package_dir=$work_dir/npm/node_modules/node-llama-cpp
if [ ! -f "$package_dir/llama/gitRelease.bundle" ]; then
  log "fetching node-llama-cpp@$version from the npm registry"
  mkdir -p "$work_dir/npm"
  (cd "$work_dir/npm" && [ -f package.json ] || echo '{"private": true}' >"$work_dir/npm/package.json")
  (cd "$work_dir/npm" && npm i -E --ignore-scripts --omit=optional --no-save --loglevel=error \
    "node-llama-cpp@$version" >&2)
fi
bundle=$package_dir/llama/gitRelease.bundle
[ -f "$bundle" ] || { log "node-llama-cpp@$version has no llama/gitRelease.bundle"; exit 1; }

source_dir=$work_dir/llama.cpp
if [ ! -f "$source_dir/CMakeLists.txt" ]; then
  log "cloning llama.cpp from $bundle"
  rm -rf "$source_dir"
  git -c advice.detachedHead=false clone --quiet "$bundle" "$source_dir" >&2
fi

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
log "configuring"
cmake -S "$source_dir" -B "$work_dir/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF \
  -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=OFF -DBUILD_SHARED_LIBS=OFF >&2
log "building llama-server with ${JOBS:-2} jobs (about 10 minutes on 2 cores)"
nice -n 10 cmake --build "$work_dir/build" --target llama-server -j "${JOBS:-2}" >&2

built=$(find "$work_dir/build" -type f -name llama-server -perm -u+x | head -n 1)
[ -n "$built" ] || { log "the build finished but produced no llama-server binary"; exit 1; }
mkdir -p "$install_dir"
cp "$built" "$binary.tmp" && mv "$binary.tmp" "$binary"
rm -rf "$work_dir"
log "built in $(($(date +%s) - start)) s"
echo "$binary"
