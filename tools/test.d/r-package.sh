#!/usr/bin/env bash
# The R package: tools/build-r-tarball.sh stages the engine into a copy of rpkg/ and builds the
# source tarball, and `R CMD check --as-cran` on it (which runs the testthat suite and builds the
# vignettes) gives no ERROR and no WARNING. NOTEs are listed (and justified in
# rpkg/cran-comments.md). git keeps no copy of the engine under rpkg/ (checked first).
# The CLI parity tests run when the CMake build left a CLI in $BUILD_DIR (tools/test.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
build_dir=$(cd "$root" && mkdir -p "${BUILD_DIR:-build}" && cd "${BUILD_DIR:-build}" && pwd)

if [ -n "$(git ls-files rpkg/src/engine rpkg/inst/prompts rpkg/vignettes 2>/dev/null)" ]; then
  echo "r-package: git tracks a copy of the engine, tasks or vignettes under rpkg/; they live" \
       "once in cpp/, prompts/ and vignettes/ and are staged by tools/stage-r-package.sh" >&2
  exit 1
fi

work="$build_dir/rpkg-check"
rm -rf "$work"
mkdir -p "$work"

# The remotes/pak route: they download the repository and let pkgbuild build the `rpkg`
# subdirectory, which runs bootstrap.R first (pkgbuild 1.4.1 or later; tools/setup.sh installs
# it from CRAN). The tarball it builds from a pristine export of HEAD must carry the engine.
if Rscript -e 'quit(status = !(requireNamespace("pkgbuild", quietly = TRUE) &&
                                packageVersion("pkgbuild") >= "1.4.1"))'; then
  export_dir="$work/export"
  mkdir -p "$export_dir/repo"
  git archive HEAD | tar -x -C "$export_dir/repo"
  Rscript -e 'pkgbuild::build(commandArgs(TRUE)[1], dest_path = commandArgs(TRUE)[2],
                              vignettes = FALSE, manual = FALSE, quiet = TRUE)' \
    "$export_dir/repo/rpkg" "$export_dir" >/dev/null
  # The whole listing first: grep -q would stop reading, and under pipefail tar's SIGPIPE fails.
  listing=$(tar -tzf "$export_dir"/llmvalidate_*.tar.gz)
  if ! grep -q 'src/engine/include/llmvalidate/stats.hpp' <<<"$listing"; then
    echo "r-package: pkgbuild's tarball of the rpkg subdirectory lacks the engine (bootstrap.R)" >&2
    exit 1
  fi
  echo "r-package: pkgbuild (remotes/pak route) stages the engine through bootstrap.R"
  rm -rf "$export_dir"
elif [ "${CI:-}" = true ]; then
  echo "r-package: pkgbuild >= 1.4.1 is not installed (tools/setup.sh installs it)" >&2
  exit 1
fi

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

# The routes of docs/paper-fidelity.md are run by the tests from the repository's doc, which
# the package does not ship.
export LLMV_REPO_ROOT="$root"

# --as-cran looks up missing Suggests (modelsummary) in CRAN's package list to report
# orphaned ones. Offline, it gets an empty list: nothing is reported orphaned.
mkdir -p "$work/offline-cran/web/packages"
Rscript -e 'saveRDS(data.frame(Package = character(), Maintainer = character()),
                    commandArgs(TRUE)[1])' "$work/offline-cran/web/packages/packages.rds"
export R_CRAN_WEB="file://$work/offline-cran"

tarball=$(bash tools/build-r-tarball.sh "$work" | tail -1)
cd "$work"
tarball=$(basename "$tarball")
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

# The pkgdown site (rpkg/inst/_pkgdown.yml): its reference index names every help topic
# (pkgdown::check_pkgdown), and the whole site builds offline from the staged sources with the
# package the check installed: a page per help topic and an article per vignette, examples and
# vignettes run. pkgdown is Debian's r-cran-pkgdown (tools/setup.sh).
if Rscript -e 'quit(status = !requireNamespace("pkgdown", quietly = TRUE))'; then
  rm -rf "$work/site-source" "$work/site"
  cp -R "$root/rpkg" "$work/site-source"
  (cd "$work/site-source" && ./cleanup)
  # The vignettes (and the engine) staged into this copy: tools/build-r-tarball.sh stages into a
  # temporary copy of its own, so rpkg/ of a fresh clone has none.
  bash "$root/tools/stage-r-package.sh" --into "$work/site-source" >/dev/null
  # Offline: pkgdown's CRAN and Bioconductor links are skipped, and downlit's look-ups of
  # packages that are not installed read the empty list above.
  R_LIBS="$work/llmvalidate.Rcheck${R_LIBS:+:$R_LIBS}" Rscript -e '
    options(pkgdown.internet = FALSE)
    source <- commandArgs(TRUE)[1]; site <- commandArgs(TRUE)[2]
    pkgdown::check_pkgdown(source)
    pkgdown::build_site(source, override = list(destination = site), install = FALSE,
                        preview = FALSE)
    topics <- sub("[.]Rd$", ".html", list.files(file.path(source, "man"), "[.]Rd$"))
    articles <- sub("[.]Rmd$", ".html", list.files(file.path(source, "vignettes"), "[.]Rmd$"))
    missing <- c(setdiff(topics, list.files(file.path(site, "reference"))),
                 setdiff(articles, list.files(file.path(site, "articles"))))
    if (length(missing)) stop("the pkgdown site lacks ", paste(missing, collapse = ", "))
    cat(sprintf("r-package: pkgdown site built: %d reference pages, %d articles\n",
                length(topics), length(articles)))' "$work/site-source" "$work/site" \
    > "$work/pkgdown.log" 2>&1 || {
      echo "r-package: the pkgdown site did not build (rpkg/inst/_pkgdown.yml):" >&2
      tail -n 40 "$work/pkgdown.log" >&2
      exit 1
    }
  tail -1 "$work/pkgdown.log"
elif [ "${CI:-}" = true ]; then
  echo "r-package: pkgdown is not installed (tools/setup.sh installs r-cran-pkgdown)" >&2
  exit 1
fi

if grep -q '\.\.\. NOTE$' "$log"; then
  echo "r-package: NOTEs (each is justified in rpkg/cran-comments.md):"
  grep -E -A8 '\.\.\. NOTE$' "$log" | sed 's/^/  /'
fi
tail -1 "$log"
