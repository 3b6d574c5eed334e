#!/usr/bin/env bash
# A report of a large run stays usable (issue 43): a batch of ROWS passages (default 5,000) on
# the simulated provider, its report's size against the 20 MB target, and the time headless
# Chromium takes to open and lay it out (best of three) against the 3 s target. Printed, not
# asserted (a shared machine's timings are not a test).
#
#   bench/report_scale.sh [BUILD_DIR] [ROWS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rows=${2:-5000}
cli=$build/cpp/llmvalidate
[ -x "$cli" ] || { echo "missing $cli: build first (tools/build.sh)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$rows" > "$work/input.csv" <<'PY'
import sys
words = ["Revenue rose", "Margins fell", "Deposits were flat", "Guidance improved",
         "Loan losses widened", "Costs were unchanged"]
print("id,text")
for i in range(int(sys.argv[1])):
    print(f'r{i + 1},"{words[i % 6]} in quarter {1 + i % 4} of {1990 + i % 30}, unit {i}."')
PY
start=$(date +%s.%N)
LLMV_CACHE=$work/cache.sqlite "$cli" batch --provider simulated --task simple_sentiment \
  --input "$work/input.csv" --text-column text --id-column id -M 20 -n 10 --permutations 199 \
  --output "$work/rows.csv" --run-json "$work/run.json" --report "$work/report.html" --quiet 2> /dev/null
end=$(date +%s.%N)
bytes=$(stat -c %s "$work/report.html")
json=$(stat -c %s "$work/run.json")
ms=$(node bench/report_load.js "$work/report.html")
sections=$(grep -o 'class="passage"' "$work/report.html" | wc -l)
printf 'passages: %s (run and report: %.1f s)\n' "$rows" "$(echo "$end - $start" | bc)"
printf 'report: %.1f MB (target under 20 MB), %s passage sections; run document %.1f MB\n' \
  "$(echo "$bytes / 1000000" | bc -l)" "$sections" "$(echo "$json / 1000000" | bc -l)"
printf 'opened and laid out in headless Chromium: %s ms (target under 3000 ms)\n' "$ms"
