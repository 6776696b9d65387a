#!/usr/bin/env bash
# The measurements the analytic chooser's constants come from (src/dense/choose.cpp, docs/shapes.md):
# every compiled tiled schedule whole on 4096^3 in each op combination and unaligned (per-SM rates),
# split-count sweeps on K-heavy, mid-size and GEMV shapes, and the models / odd presets with every
# schedule at its best predicted split next to Auto. Runs on the GPU machine after
# scripts/gpu-check.sh has unpacked dist/; writes CSVs into $OUT/calibrate/ and a log.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/tilegemm-out}
C=$OUT/calibrate; mkdir -p "$C"
T=dist/tilegemm
MT=${MIN_TIME:-0.1}
log=$C/calibrate.txt; : > "$log"
bench() {  # name, args...
  local name=$1; shift
  echo "### $name: tilegemm bench $*" >> "$log"
  $T bench --min-time "$MT" "$@" --csv "$C/$name.csv" >> "$log" 2>/dev/null
}
tiles="tiled:128x256x32:w64x64:t16x8:s4:b1 tiled:128x128x16:w64x32:t8x8:s4:b2 tiled:128x64x16:w64x32:t8x8:s3:b4
       tiled:64x128x16:w32x64:t8x8:s3:b4 tiled:64x64x16:w32x32:t8x4:s3:b6 tiled:32x32x16:w32x16:t4x4:s4:b8"
cfg() {  # schedule-index-list split-list -> --config args
  local out="" t s i=0
  for t in $tiles; do
    i=$((i+1))
    case " $1 " in *" $i "*) for s in $2; do out="$out --config $t:$s"; done;; esac
  done
  echo "$out"
}
for op in NN NT TN TT; do
  bench rates-$op --shape 4096x4096x4096 --trans $op --kernels 6 $(cfg "1 2 3 4 5 6" k1)
done
bench rates-unaligned --shape 4096x4096x4096 --ld +7 --offset 1 --kernels 6 $(cfg "1 2 3 4 5 6" k1)
bench split-64x64 --shape 64x64x65536 --kernels auto $(cfg "5 6" "k16 k32 k64 k128 k256")
bench split-512 --shape 512x512x65536 --kernels auto $(cfg "1 2 5" "k4 k8 k16 k32")
bench split-mid --shape 1024x768x3072 --shape 1024x512x2048 --shape 1000x1000x1000 --kernels auto \
  $(cfg "1 2 3 4 5" "k1 k2 k4")
bench waves --shape 1536x1536x1536 --shape 3072x3072x3072 --shape 4095x4097x4093 --kernels auto,6 \
  $(cfg "1 2" "k1 tail2 tail4 tail8")
bench gemv-one --shape 1x4096x4096 --shape 1x14336x4096 --shape 1x4096x14336 --shape 1x2048x4096 --kernels auto \
  $(for l in 8 16 32; do for k in 1 2 4 8; do echo "--config gemv-cols:s1:l$l:k$k"; done; done)
bench gemv --shape 8x6144x4096 --kernels auto --config gemv-cols:s8:k2 --config gemv-cols:s8:k4 --config gemv-cols:s8:k8 \
  --config gemv-cols:s8:k16
bench gemv-rows --shape 4096x1x14336 --shape 2048x16x4096 --kernels auto \
  --config gemv-rows:s1:k1 --config gemv-rows:s1:k2 --config gemv-rows:s1:k4 --config gemv-rows:s1:k8 \
  --config gemv-rows:s16:k1 --config gemv-rows:s16:k2 --config gemv-rows:s16:k4 --config gemv-rows:s16:k8
bench models --preset models --kernels auto,6 --schedules
bench odd --preset odd --kernels auto,6 --schedules
bench unaligned --shape 1000x1000x1000 --shape 4095x4097x4093 --ld +7 --offset 1 --kernels auto,6 --schedules
tar czf "$OUT/calibrate.tgz" -C "$C" .
grep -c ok "$C"/*.csv | tail -20
