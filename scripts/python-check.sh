#!/usr/bin/env bash
# Runs on the GPU machine over the Python package packed by `scripts/pack-dist.sh python`: the
# pytest suite, the examples and the Python benchmarks next to the command's, logs under $OUT.
# Usage: scripts/python-check.sh STEP...   with STEP one of
#   tests     pytest python/tests                          -> pytest.log
#   example   examples/ladder.py                           -> example.txt
#   overhead  python/bench/bench_python.py overhead        -> overhead.txt/.csv
#   models    bench_python.py models, then `tilegemm bench --preset models --kernels auto` -> models*.txt/.csv
#   bsr       bench_python.py bsr (vs torch's Triton BSR kernel), then the command's
#             `bench --sparse --preset transformer-sparse --kernels auto`             -> bsr*.txt/.csv
#   layers    bench_python.py layers (bf16 linear + bias + activation under autograd)  -> layers.txt/.csv
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/tilegemm-out}; mkdir -p "$OUT"
[ -f dist.tar.xz ] && tar xJf dist.tar.xz
export PYTHONPATH=$PWD/dist/python PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
rc=0
step() { echo "== $1 ($(date +%T))" | tee -a "$OUT/summary.txt"; }
for what in "$@"; do
  case $what in
    tests) step tests
      python3 -m pytest -q -rs -p no:cacheprovider python/tests > "$OUT/pytest.log" 2>&1; r=$?; rc=$((rc|r))
      tail -5 "$OUT/pytest.log" | tee -a "$OUT/summary.txt" ;;
    example) step example
      python3 examples/ladder.py > "$OUT/example.txt" 2>&1 || rc=1; cat "$OUT/example.txt" ;;
    overhead) step overhead
      python3 python/bench/bench_python.py overhead --csv "$OUT/overhead.csv" > "$OUT/overhead.txt" 2>&1 || rc=1
      cat "$OUT/overhead.txt" ;;
    models) step models
      python3 python/bench/bench_python.py models --csv "$OUT/models-python.csv" > "$OUT/models-python.txt" 2>&1 || rc=1
      tail -22 "$OUT/models-python.txt"
      dist/tilegemm bench --preset models --kernels auto --csv "$OUT/models-cpp.csv" > "$OUT/models-cpp.txt" 2>&1 || rc=1 ;;
    bsr) step bsr
      python3 python/bench/bench_python.py bsr --csv "$OUT/bsr-python.csv" > "$OUT/bsr-python.txt" 2>&1 || rc=1
      tail -3 "$OUT/bsr-python.txt"
      dist/tilegemm bench --sparse --preset transformer-sparse --kernels auto --csv "$OUT/bsr-cpp.csv" \
        > "$OUT/bsr-cpp.txt" 2>&1 || rc=1 ;;
    layers) step layers
      python3 python/bench/bench_python.py layers --csv "$OUT/layers.csv" > "$OUT/layers.txt" 2>&1 || rc=1
      tail -16 "$OUT/layers.txt" ;;
    *) echo "unknown step $what" >&2; rc=2 ;;
  esac
done
exit $rc
