#!/usr/bin/env bash
# The benchmarks behind docs/shapes.md, from one build: the models, odd and ladder presets, the
# tvm-post shape and the squares between whole waves, and unaligned memory (leading dimensions
# row + 7, pointers offset by one element) next to the same shapes aligned. Auto, Auto kept to FFMA
# (auto-ffma), levels 6 and 7 and cuBLAS in each run. Runs on the GPU machine after
# scripts/gpu-check.sh unpacked dist/; CSVs and the
# TILEGEMM_LOG_CHOICE lines go to $OUT/shapes/ and come back packed as $OUT/shapes.tgz.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/tilegemm-out}
S=$OUT/shapes; mkdir -p "$S"
T=dist/tilegemm
MT=${MIN_TIME:-0.2}
# The analytic chooser alone: no tuning database (a missing file) unless the caller names one.
export TILEGEMM_TUNING_DB=${TILEGEMM_TUNING_DB:-$S/untuned.sqlite3}
run() {  # name, args...
  local name=$1; shift
  echo "### tilegemm bench $* --min-time $MT" >> "$S/bench.txt"
  TILEGEMM_LOG_CHOICE=1 $T bench --min-time "$MT" "$@" --csv "$S/$name.csv" >> "$S/bench.txt" 2>> "$S/choice-$name.txt"
}
run models --preset models --kernels auto,6,7 --ffma-auto
run odd --preset odd --kernels auto,6,7 --ffma-auto
run ladder --preset ladder --kernels 4,5,6,7,auto --ffma-auto
run squares --preset tvm-post --shape 1536x1536x1536 --shape 3072x3072x3072 --shape 2048x2048x2048 --kernels auto,6,7 --ffma-auto
run small-m --shape 2x4096x4096 --shape 4x4096x4096 --shape 16x4096x4096 --shape 16x14336x4096 \
  --shape 16x2048x4096 --shape 2048x16x4096 --shape 1x4096x4096 --shape 4096x1x4096 --kernels auto --ffma-auto
run ops --shape 4096x4096x4096 --shape 4095x4097x4093 --trans NT --kernels auto --ffma-auto
run ops-tt --shape 4096x4096x4096 --shape 4095x4097x4093 --trans TT --kernels auto --ffma-auto
u="--shape 1000x1000x1000 --shape 1024x512x2048 --shape 4096x4096x4096 --shape 2501x3499x1777"
run aligned $u --kernels auto --ffma-auto
run ld7 $u --ld +7 --kernels auto --ffma-auto
run offset1 $u --offset 1 --kernels auto --ffma-auto
run ld7-offset1 $u --ld +7 --offset 1 --kernels auto --ffma-auto
tar czf "$OUT/shapes.tgz" -C "$S" .
