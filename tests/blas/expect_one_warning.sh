#!/usr/bin/env bash
# Runs a test program and requires exactly one shim warning on its stderr, saying why the GPU is not
# used ("no CUDA device is visible"), besides the program's own success.
set -uo pipefail
err=$(mktemp)
"$@" 2> "$err"; rc=$?
cat "$err" >&2
n=$(grep -c "tilegemm_blas: warning:" "$err")
grep -q "tilegemm_blas: warning: no CUDA device is visible; running on the CPU BLAS" "$err"; found=$?
rm -f "$err"
[ $rc -eq 0 ] || { echo "the program failed (exit $rc)"; exit 1; }
[ "$n" -eq 1 ] || { echo "expected exactly one warning, got $n"; exit 1; }
[ $found -eq 0 ] || { echo "the warning does not say that no CUDA device is visible"; exit 1; }
echo "one warning, as expected"
