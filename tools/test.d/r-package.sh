#!/usr/bin/env bash
# The R package: the engine copy is fresh, `R CMD build rpkg` gives a tarball, and
# `R CMD check --as-cran` on it (which runs the testthat suite and builds the vignettes)
# gives no ERROR and no WARNING. NOTEs are listed (and justified in rpkg/cran-comments.md).
# The CLI parity tests run when the CMake build left a CLI in $BUILD_DIR (tools/test.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
build_dir=$(cd "$root" && mkdir -p "${BUILD_DIR:-build}" && cd "${BUILD_DIR:-build}" && pwd)

# LLMV_SYNC_FROM=HEAD compares with the committed engine (others editing the work tree).
bash tools/sync-engine.sh --check ${LLMV_SYNC_FROM:+--from=$LLMV_SYNC_FROM}

work="$build_dir/rpkg-check"
rm -rf "$work"
mkdir -p "$work"
cp -R rpkg "$work/llmvalidate"
# Build outputs of a local install must not reach the tarball.
(cd "$work/llmvalidate" && ./cleanup)

# The committed man/ and NAMESPACE are what roxygen2 makes of the sources.
if Rscript -e 'quit(status = !requireNamespace("roxygen2", quietly = TRUE))'; then
  cp -R rpkg "$work/roxygen"
  (cd "$work/roxygen" && Rscript -e 'roxygen2::roxygenise(".", load_code = roxygen2::load_source)' >/dev/null 2>&1)
  if ! diff -r rpkg/man "$work/roxygen/man" || ! diff rpkg/NAMESPACE "$work/roxygen/NAMESPACE"; then
    echo "r-package: man/ or NAMESPACE is stale: run roxygen2::roxygenise() in rpkg/" >&2
    exit 1
  fi
  rm -rf "$work/roxygen"
fi

# In CI the vignettes' modelsummary tables must really run (tools/setup.sh installs it).
if [ "${CI:-}" = true ] && ! Rscript -e 'quit(status = !requireNamespace("modelsummary", quietly = TRUE))'; then
  echo "r-package: modelsummary is not installed, so the vignettes' tables would be skipped" >&2
  exit 1
fi

export MAKEFLAGS="-j${JOBS:-2}"
export _R_CHECK_FORCE_SUGGESTS_=false       # every Suggests is installed by setup; this keeps a partial machine working
export _R_CHECK_CRAN_INCOMING_REMOTE_=false # no network on CI
export NOT_CRAN=true                        # run the snapshot tests too
export _R_CHECK_TESTS_NLINES_=0             # the whole test log on failure
if [ -x "$build_dir/cpp/llmvalidate" ]; then
  export LLMV_CLI="$build_dir/cpp/llmvalidate"
else
  echo "r-package: no CLI in $build_dir/cpp; the CLI parity tests will be skipped"
fi

# The integration tests start the fake provider server on 127.0.0.1 when it was built.
if [ -x "$build_dir/tests/fake_server/fake_provider_server" ]; then
  export LLMV_FAKE_SERVER="$build_dir/tests/fake_server/fake_provider_server"
else
  echo "r-package: no fake provider server in $build_dir/tests; its R tests will be skipped"
fi

# The reproduction vignette's Section 5 chunks run on the Financial PhraseBank when it lies
# beside the repository (it is not shipped in the package: CC BY-NC-SA).
phrasebank="$root/../shared/data/financial-phrasebank/financial_phrasebank.csv"
if [ -z "${LLMV_PHRASEBANK:-}" ] && [ -f "$phrasebank" ]; then
  export LLMV_PHRASEBANK="$phrasebank"
fi

# --as-cran looks up missing Suggests (modelsummary) in CRAN's package list to report
# orphaned ones. Offline, it gets an empty list: nothing is reported orphaned.
mkdir -p "$work/offline-cran/web/packages"
Rscript -e 'saveRDS(data.frame(Package = character(), Maintainer = character()),
                    commandArgs(TRUE)[1])' "$work/offline-cran/web/packages/packages.rds"
export R_CRAN_WEB="file://$work/offline-cran"

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
  # A failing test: the end of testthat's own log says which and why.
  for failed_log in llmvalidate.Rcheck/tests/*.Rout.fail; do
    [ -f "$failed_log" ] || continue
    echo "r-package: the end of $failed_log:" >&2
    tail -n 40 "$failed_log" >&2
  done
  exit 1
fi
if grep -q '\.\.\. NOTE$' "$log"; then
  echo "r-package: NOTEs (each is justified in rpkg/cran-comments.md):"
  grep -E -A8 '\.\.\. NOTE$' "$log" | sed 's/^/  /'
fi
tail -1 "$log"
