#!/usr/bin/env bash
# Installs what the project needs on a fresh Debian machine. Idempotent: a second run checks and
# returns in a second.
#   tools/setup.sh --main   what the main job needs (tools/main.sh): the engine and the CLI's
#                           build (compiler, CMake, the libraries the engine links)
#   tools/setup.sh          everything (tools/test.sh, .ci/run): the above, plus the tests'
#                           servers and frameworks, R and its packages, the Windows
#                           cross-compiler and wine, and modelsummary and ellmer from CRAN
set -euo pipefail
need=all
case "${1:-}" in
  --main) need=main ;;
  "") ;;
  *) echo "usage: tools/setup.sh [--main]" >&2; exit 2 ;;
esac

# The engine and the command-line tool.
apt_packages=(
  build-essential cmake ninja-build pkg-config
  libeigen3-dev nlohmann-json3-dev libboost-dev libboost-math-dev
  libcurl4-openssl-dev libsqlite3-dev libtoml11-dev
)
if [ "$need" = all ]; then
  apt_packages+=(
    git time ccache catch2 libcpp-httplib-dev libssl-dev
    r-base-dev r-cran-rcpp r-cran-rcppeigen r-cran-bh r-cran-cli r-cran-rlang
    r-cran-testthat r-cran-generics r-cran-broom r-cran-tibble r-cran-withr
    r-cran-processx r-cran-jsonlite r-cran-knitr r-cran-rmarkdown r-cran-dplyr r-cran-yaml r-cran-pkgdown pandoc
    qpdf devscripts r-cran-roxygen2
    curl
    # The Windows plugin: cross-compiled, its test run under wine (tools/test.d/stata-windows.sh);
    # its libcurl from Debian's source package, checked against the archive key.
    g++-mingw-w64-x86-64-posix
    wine64 dpkg-dev debian-archive-keyring
    # The Stata plugin on the oldest glibc the Debian archive serves
    # (tools/test.d/stata-old-glibc.sh).
    debootstrap
    # The reports in a real browser (tests/browser/): headless Chromium driven over the
    # DevTools pipe by a script of ours, and pdftotext to read the printed PDF.
    chromium poppler-utils
  )
  # npm builds the offline llama-server (tools/build-llama-server.sh). Machines whose Node.js
  # comes from NodeSource already have npm inside it, and Debian's npm conflicts with that
  # package: ask apt only where there is no npm at all.
  if ! command -v npm >/dev/null 2>&1; then
    apt_packages+=(nodejs npm)
  fi
fi

missing=()
for package in "${apt_packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

[ "$need" = main ] && exit 0

# pkgbuild 1.4.1 or later runs the R package's bootstrap.R (the remotes/pak install route,
# tested by tools/test.d/r-package.sh); Debian has 1.4.0. From CRAN, without its dependencies,
# which Debian's packages above bring.
if ! Rscript -e 'quit(status = !(requireNamespace("pkgbuild", quietly = TRUE) &&
                                 packageVersion("pkgbuild") >= "1.4.1"))' >/dev/null 2>&1; then
  echo "setup: installing pkgbuild from CRAN"
  Rscript -e 'install.packages("pkgbuild", repos = "https://cloud.r-project.org", dependencies = FALSE)'
fi

# modelsummary (the vignettes' regression tables) is not packaged for Debian: from CRAN, so
# that those chunks run in CI instead of being skipped.
if ! Rscript -e 'quit(status = !requireNamespace("modelsummary", quietly = TRUE))' >/dev/null 2>&1; then
  echo "setup: installing modelsummary from CRAN"
  Rscript -e 'options(Ncpus = 2); install.packages("modelsummary", repos = "https://cloud.r-project.org",
                                                   dependencies = c("Depends", "Imports", "LinkingTo"))'
  Rscript -e 'quit(status = !requireNamespace("modelsummary", quietly = TRUE))' || {
    echo "setup: modelsummary did not install from CRAN" >&2
    exit 1
  }
fi

# ellmer (the R package's tests of llm_validate(provider = <ellmer Chat>)) is not packaged for
# Debian either: from CRAN. Its dependencies bring CRAN's vctrs, whose 0.7 releases dropped
# vec_is_vector(), which Debian's dplyr (before 1.1.0) calls: that vctrs is then replaced by its
# last 0.6 release, from CRAN's archive, which is recent enough for ellmer's dependencies.
if ! Rscript -e 'quit(status = !requireNamespace("ellmer", quietly = TRUE))' >/dev/null 2>&1; then
  echo "setup: installing ellmer from CRAN"
  Rscript -e 'options(Ncpus = 2); install.packages("ellmer", repos = "https://cloud.r-project.org",
                                                   dependencies = c("Depends", "Imports", "LinkingTo"))'
  Rscript -e 'if (requireNamespace("dplyr", quietly = TRUE) && packageVersion("dplyr") < "1.1.0" &&
                  packageVersion("vctrs") >= "0.7.0")
                install.packages("https://cloud.r-project.org/src/contrib/Archive/vctrs/vctrs_0.6.5.tar.gz",
                                 repos = NULL, type = "source")'
  Rscript -e 'quit(status = !(requireNamespace("ellmer", quietly = TRUE) &&
                              (!requireNamespace("dplyr", quietly = TRUE) ||
                                 packageVersion("dplyr") >= "1.1.0" || packageVersion("vctrs") < "0.7.0")))' || {
    echo "setup: ellmer did not install from CRAN, or its vctrs breaks dplyr" >&2
    exit 1
  }
fi
