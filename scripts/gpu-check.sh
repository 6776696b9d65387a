#!/usr/bin/env bash
# Runs on the GPU machine (the `device` tool) over binaries built here and copied to dist/ by
# scripts/pack-dist.sh: device info, the GPU test suite, the sanitizer pass, and the benchmarks.
# Logs go to $OUT. Usage: scripts/gpu-check.sh [tests|bench|all] [extra bench args...]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/tilegemm-out}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
what=${1:-all}; shift || true
D=dist
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee "$OUT/nvidia-smi.txt"
$D/tilegemm info | tee "$OUT/info.txt"
rc=0
if [ "$what" = tests ] || [ "$what" = all ]; then
  $D/tilegemm_cpu_tests --gtest_brief=1 > "$OUT/cpu-tests.log" 2>&1; echo "cpu tests rc=$?" | tee -a "$OUT/summary.txt"
  $D/tilegemm_gpu_tests --gtest_brief=1 > "$OUT/gpu-tests.log" 2>&1; r=$?; rc=$((rc|r))
  echo "gpu tests rc=$r" | tee -a "$OUT/summary.txt"; tail -5 "$OUT/gpu-tests.log"
  for tool in memcheck racecheck; do
    bash tests/gpu/run_sanitizer.sh $tool $D/tilegemm_gpu_tests > "$OUT/sanitizer-$tool.log" 2>&1; r=$?; rc=$((rc|r))
    echo "sanitizer $tool rc=$r" | tee -a "$OUT/summary.txt"; tail -3 "$OUT/sanitizer-$tool.log"
  done
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  $D/tilegemm bench "$@" --csv "$OUT/bench.csv" 2> "$OUT/bench-progress.log" | tee "$OUT/bench.txt"
fi
exit $rc
