#!/usr/bin/env bash
# The R package's glue (rpkg/src/*.cpp) compiles against the engine's public headers alone.
#   check_r_glue_includes.sh <c++ compiler> <repository root>
# Its Makevars puts the staged engine root (rpkg/src/engine) on the include path, which the
# engine's own sources need; a glue file that includes "core/..." would build there unseen. Here
# each glue file is compiled (syntax only) with cpp/include, R's, Rcpp's and RcppEigen's headers
# and nothing else of the engine. A control unit that includes a private header must fail the
# same way, so that the check cannot pass by not looking. Exit 77 (skipped) without Rcpp.
set -euo pipefail
cxx=$1
root=$2
rcpp=$(Rscript -e 'cat(system.file("include", package = "Rcpp"))' 2>/dev/null || true)
rcpp_eigen=$(Rscript -e 'cat(system.file("include", package = "RcppEigen"))' 2>/dev/null || true)
if [ -z "$rcpp" ] || [ -z "$rcpp_eigen" ]; then
  echo "check_r_glue_includes: SKIP: Rcpp or RcppEigen is not installed"
  exit 77
fi
r_include=$(R RHOME)/include
[ -f "$r_include/R.h" ] || r_include=$(R CMD config --cppflags | sed 's/^-I//')
flags=(-std=gnu++17 -fsyntax-only -w -I"$root/cpp/include" -I"$r_include" -I"$rcpp"
       -I"$rcpp_eigen" -I/usr/include/eigen3 -DEIGEN_MPL2_ONLY -DNDEBUG -DLLMV_NO_STDERR)

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf '#include "core/text.hpp"\n' >"$scratch/control.cpp"
if "$cxx" "${flags[@]}" "$scratch/control.cpp" 2>"$scratch/control.log"; then
  echo "check_r_glue_includes: FAIL: a private header was found with these flags" >&2
  exit 1
fi
if ! grep -Eq "core/text\.hpp'?:? (No such file|file not found)" "$scratch/control.log"; then
  echo "check_r_glue_includes: FAIL: the control failed for another reason:" >&2
  cat "$scratch/control.log" >&2
  exit 1
fi

failed=0
count=0
for unit in "$root"/rpkg/src/*.cpp; do
  count=$((count + 1))
  if ! "$cxx" "${flags[@]}" -I"$root/rpkg/src" "$unit" 2>"$scratch/unit.log"; then
    echo "check_r_glue_includes: FAIL: $(basename "$unit") needs more than the public headers:" >&2
    grep -m 5 'error' "$scratch/unit.log" >&2 || cat "$scratch/unit.log" >&2
    failed=$((failed + 1))
  fi
done
if [ "$failed" -ne 0 ]; then
  echo "check_r_glue_includes: $failed of $count glue files failed" >&2
  exit 1
fi
echo "check_r_glue_includes: $count glue files compile with the public headers only"
