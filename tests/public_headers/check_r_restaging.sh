#!/usr/bin/env bash
# rpkg/configure stages the engine at every install from a checkout, incrementally (issue 40).
# Runs on a copy of the repository's tracked files, so the checkout is never touched.
#   check_r_restaging.sh REPO_ROOT
set -euo pipefail
root=$1
command -v R >/dev/null 2>&1 || { echo "no R: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && git ls-files -z) | (cd "$root" && tar --null -T - -cf -) | tar -x -C "$work"
# The working tree's own copies of the scripts under test (an uncommitted edit counts).
cp "$root/tools/stage-r-package.sh" "$work/tools/"
cp "$root/rpkg/configure" "$work/rpkg/"
staged=$work/rpkg/src/engine
fail() { echo "FAIL: $*" >&2; exit 1; }

(cd "$work/rpkg" && sh ./configure >"$work/first.log" 2>&1) || { cat "$work/first.log"; fail "first configure"; }
[ -f "$staged/stats/verdict.cpp" ] || fail "the first configure staged no engine"
cmp -s "$work/cpp/stats/verdict.cpp" "$staged/stats/verdict.cpp" || fail "first staging differs from cpp/"
# A time in the past on an unchanged copy: a later staging must not touch it.
touch -d '2001-01-01' "$staged/stats/run_tests.cpp"
printf '\n// an edit made after the first install\n' >>"$work/cpp/stats/verdict.cpp"
mv "$work/cpp/stats/summary.cpp" "$work/cpp/stats/summary_renamed.cpp"

(cd "$work/rpkg" && sh ./configure >"$work/second.log" 2>&1) || { cat "$work/second.log"; fail "second configure"; }
grep -q 'an edit made after the first install' "$staged/stats/verdict.cpp" ||
  fail "the second configure kept the frozen copy of cpp/stats/verdict.cpp"
[ "$(date -r "$staged/stats/run_tests.cpp" +%Y)" = 2001 ] ||
  fail "an unchanged copy was copied again (every object would recompile)"
[ ! -e "$staged/stats/summary.cpp" ] || fail "a staged file whose source is gone was kept"
[ -f "$staged/stats/summary_renamed.cpp" ] || fail "a new source file was not staged"
grep -q '(2 file(s) copied)' "$work/second.log" || { cat "$work/second.log"; fail "expected 2 copies"; }
echo "r_configure_restages_an_edited_engine: passed"
