#!/usr/bin/env bash
# Lint of the Stata files (ado, help, pkg): the lint's own self-test, then the real files.
# After a build (tools/test.sh builds first), the net-install folders must hold every file the
# .pkg names for Linux (LINUX64): the repository's stata/ (the build copies the plugin there) and
# build/stata/net. A folder to publish, with the Windows plugin too, is tools/stata-package.sh's.
set -euo pipefail
cd "$(dirname "$0")/../.."
build_dir=${BUILD_DIR:-build}
python3 stata/tools/lint_ado.py --self-test
python3 stata/tools/lint_ado.py stata
if [ -f "$build_dir/stata/net/llmvalidate.plugin" ]; then
  python3 stata/tools/lint_ado.py --installable --platform LINUX64 "$build_dir/stata/net"
  if grep -q '^LLMV_STATA_PLUGIN_IN_SOURCE:BOOL=ON' "$build_dir/CMakeCache.txt" 2>/dev/null; then
    python3 stata/tools/lint_ado.py --installable --platform LINUX64 stata
  fi
else
  echo "stata-lint: no plugin built in $build_dir; the net-install folders were not checked"
fi
