#!/usr/bin/env bash
# The Stata net-install folder, with one command: builds the Linux plugin and the Windows plugin
# (cross-compiled, tools/build-windows-plugin.sh) and copies the ado-files, the help,
# llmvalidate.pkg, stata.toc, both plugins and the shipped task files (prompts/*.toml) into one
# folder that `net install llmvalidate, from(<folder>)` reads on Windows and on Linux.
#
#   tools/stata-package.sh [folder]     default folder: $BUILD_DIR/stata-net (BUILD_DIR: build)
#
# The folder gets exactly the files llmvalidate.pkg lists (plus the .pkg and stata.toc), taken
# from the builds' net folders ($BUILD_DIR/stata/net and $BUILD_DIR/windows/stata/net, filled by
# every build of the plugin); a file the .pkg lists that no build made (e.g. a macOS plugin) is
# an error. The result is checked with lint_ado.py --installable (every platform's file).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
out=${1:-$build_dir/stata-net}
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} >/dev/null
fi
cmake --build "$build_dir" -j "${JOBS:-2}" --target llmvalidate_plugin stata_net_tasks
JOBS=${JOBS:-2} BUILD_DIR=$build_dir bash tools/build-windows-plugin.sh >/dev/null
nets=("$build_dir/stata/net" "$build_dir/windows/stata/net")

# A folder this script made before is replaced (no stale files); any other must be empty.
if [ -f "$out/llmvalidate.pkg" ]; then
  rm -rf "$out"
elif [ -d "$out" ] && [ -n "$(ls -A "$out")" ]; then
  echo "stata-package: $out is not empty and holds no llmvalidate.pkg; give a new folder" >&2
  exit 2
fi
mkdir -p "$out"
cp stata/llmvalidate.pkg stata/stata.toc "$out/"
missing=0
while read -r kind first second _; do
  case "$kind" in
    f|F) file=$first ;;
    g) file=$second ;;
    *) continue ;;
  esac
  found=""
  for net in "${nets[@]}"; do
    [ -f "$net/$file" ] && { found=$net/$file; break; }
  done
  if [ -n "$found" ]; then
    cp "$found" "$out/$file"
  else
    echo "stata-package: $file (listed in llmvalidate.pkg) is in none of ${nets[*]}" >&2
    missing=1
  fi
done <stata/llmvalidate.pkg
[ "$missing" = 0 ] || exit 1
python3 stata/tools/lint_ado.py --installable "$out"
echo "stata-package: net install llmvalidate, from(\"$(cd "$out" && pwd)\") replace"
