#!/usr/bin/env bash
# tools/stata-package.sh builds a net-install folder that holds every file llmvalidate.pkg
# lists, among them every shipped task (prompts/*.toml), so that `findfile <task>.toml` works
# after `net install`, and the Linux and Windows plugins (g LINUX64, g WIN64A).
set -euo pipefail
cd "$(dirname "$0")/../.."
build_dir=${BUILD_DIR:-build}
folder=$(mktemp -d)
trap 'rm -rf "$folder"' EXIT
rmdir "$folder"  # the script makes it
JOBS=${JOBS:-1} BUILD_DIR=$build_dir bash tools/stata-package.sh "$folder"
status=0
for task in prompts/*.toml; do
  name=$(basename "$task")
  if ! grep -qx "F $name" stata/llmvalidate.pkg; then
    echo "stata-package: $name is not an \`F' line of stata/llmvalidate.pkg" >&2
    status=1
  fi
  if ! cmp -s "$task" "$folder/$name"; then
    echo "stata-package: $name is missing from the net-install folder or differs from $task" >&2
    status=1
  fi
done
# Both plugins, each the one its platform loads (the .pkg's g lines).
bash stata/tests/check_plugin_binary.sh --windows "$folder/llmvalidate_win64.plugin" || status=1
bash stata/tests/check_plugin_binary.sh --portable --glibc-floor 2.17 "$folder/llmvalidate.plugin" ||
  status=1
[ "$status" = 0 ] && echo "stata-package: every shipped task and both plugins are in the package"
exit $status
