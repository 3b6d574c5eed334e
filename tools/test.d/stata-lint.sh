#!/usr/bin/env bash
# Lint of the Stata files (ado, help, pkg): the lint's own self-test, then the real files.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 stata/tools/lint_ado.py --self-test
python3 stata/tools/lint_ado.py stata
