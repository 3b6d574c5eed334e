#!/usr/bin/env bash
# Builds the R package's source tarball, llmvalidate_<version>.tar.gz, into OUTDIR (default:
# $BUILD_DIR/r-tarball, BUILD_DIR defaulting to build/): copies rpkg/ to a temporary folder,
# stages the engine, the shipped tasks, the vignettes and the header-only libraries into that
# copy (tools/stage-r-package.sh --into), then runs `R CMD build` on it; rpkg/ is left as it was. The tarball is self-contained: it installs
# with `R CMD INSTALL` on a machine that has never seen this repository. Prints its path last.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build_dir=$(mkdir -p "${BUILD_DIR:-build}" && cd "${BUILD_DIR:-build}" && pwd)
out=${1:-$build_dir/r-tarball}
mkdir -p "$out"
out=$(cd "$out" && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R rpkg "$work/llmvalidate"
# Objects and Makevars of a local `R CMD INSTALL rpkg` are build outputs, not sources.
(cd "$work/llmvalidate" && ./cleanup)
bash tools/stage-r-package.sh --third-party --into "$work/llmvalidate" >&2
rm -f "$out"/llmvalidate_*.tar.gz
(cd "$out" && R CMD build ${R_BUILD_ARGS:-} "$work/llmvalidate" >&2)
ls "$out"/llmvalidate_*.tar.gz
