#!/usr/bin/env bash
# Fetches the SQLite amalgamation (sqlite3.c, sqlite3.h) that the portable Stata plugin links
# statically. The npm package better-sqlite3 carries it under deps/sqlite3/; only that folder
# is kept, in a cache outside the repository keyed by the package version, so a second run
# prints the path and returns at once. Nothing is built or run from the package.
# Prints the folder holding sqlite3.c on stdout (progress goes to stderr). Exit 0 on success.
# Environment: LLMV_CACHE_DIR (default ~/.cache/llmvalidate).
set -euo pipefail

version=12.9.0  # better-sqlite3 12.9.0 carries SQLite 3.53.0
cache_root=${LLMV_CACHE_DIR:-${HOME:-/tmp}/.cache/llmvalidate}
source_dir=$cache_root/sqlite-amalgamation-better-sqlite3-$version

if [ -f "$source_dir/sqlite3.c" ] && [ -f "$source_dir/sqlite3.h" ]; then
  echo "$source_dir"
  exit 0
fi

log() { echo "fetch-sqlite: $*" >&2; }
for tool in npm tar; do
  command -v "$tool" >/dev/null 2>&1 || { log "needs '$tool' (tools/setup.sh installs it)"; exit 1; }
done

mkdir -p "$cache_root"
work_dir=$(mktemp -d "$cache_root/sqlite-fetch.XXXXXX")
trap 'rm -rf "$work_dir"' EXIT
log "fetching better-sqlite3@$version from the npm registry"
# `npm pack` downloads the published tarball (checked against the registry's integrity hash)
# without installing it or running any of its scripts.
(cd "$work_dir" && npm pack --silent "better-sqlite3@$version" >/dev/null)
tarball=$(find "$work_dir" -maxdepth 1 -name "better-sqlite3-*.tgz" | head -n 1)
[ -n "$tarball" ] || { log "npm pack better-sqlite3@$version produced no tarball"; exit 1; }
tar -xzf "$tarball" -C "$work_dir" package/deps/sqlite3/sqlite3.c package/deps/sqlite3/sqlite3.h
for file in sqlite3.c sqlite3.h; do
  [ -s "$work_dir/package/deps/sqlite3/$file" ] ||
    { log "better-sqlite3@$version has no deps/sqlite3/$file"; exit 1; }
done
log "SQLite $(sed -n 's/^#define SQLITE_VERSION  *"\(.*\)"/\1/p' "$work_dir/package/deps/sqlite3/sqlite3.h")"
# Moved into place whole, so that a concurrent run sees either nothing or both files.
rm -rf "$source_dir.tmp"
mv "$work_dir/package/deps/sqlite3" "$source_dir.tmp"
rm -rf "$source_dir"
mv "$source_dir.tmp" "$source_dir"
echo "$source_dir"
