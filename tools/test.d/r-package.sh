#!/usr/bin/env bash
# The R package: the engine copy is fresh, `R CMD build rpkg` gives a tarball, and
# `R CMD check --as-cran` on it (which runs the testthat suite and builds the vignettes)
# gives no ERROR and no WARNING. NOTEs are listed (and justified in rpkg/cran-comments.md).
# The CLI parity tests run when the CMake build left a CLI in $BUILD_DIR (tools/test.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
build_dir=$(cd "$root" && mkdir -p "${BUILD_DIR:-build}" && cd "${BUILD_DIR:-build}" && pwd)

bash tools/sync-engine.sh --check

work="$build_dir/rpkg-check"
rm -rf "$work"
mkdir -p "$work"
cp -R rpkg "$work/llmvalidate"
# Build outputs of a local install must not reach the tarball.
(cd "$work/llmvalidate" && ./cleanup)

export MAKEFLAGS="-j${JOBS:-2}"
export _R_CHECK_FORCE_SUGGESTS_=false       # modelsummary is not packaged for Debian
export _R_CHECK_CRAN_INCOMING_REMOTE_=false # no network on CI
export _R_CHECK_ORPHANED_=false              # needs the CRAN package list (network)
export NOT_CRAN=true                        # run the snapshot tests too
export _R_CHECK_TESTS_NLINES_=0             # the whole test log on failure
if [ -x "$build_dir/cpp/llmvalidate" ]; then
  export LLMV_CLI="$build_dir/cpp/llmvalidate"
else
  echo "r-package: no CLI in $build_dir/cpp; the CLI parity tests will be skipped"
fi

cd "$work"
R CMD build llmvalidate
tarball=$(ls llmvalidate_*.tar.gz)
status=0
R CMD check --as-cran --no-manual "$tarball" || status=$?

log=llmvalidate.Rcheck/00check.log
if [ ! -f "$log" ]; then
  echo "r-package: R CMD check left no log" >&2
  exit 1
fi
if grep -Eq '^Status: .*(ERROR|WARNING)' "$log" || [ "$status" != 0 ]; then
  echo "r-package: R CMD check found errors or warnings:" >&2
  grep -E -A15 '\.\.\. (ERROR|WARNING)$' "$log" >&2 || true
  exit 1
fi
if grep -q '\.\.\. NOTE$' "$log"; then
  echo "r-package: NOTEs (each is justified in rpkg/cran-comments.md):"
  grep -E -A8 '\.\.\. NOTE$' "$log" | sed 's/^/  /'
fi
tail -1 "$log"
