#!/usr/bin/env bash
# Runs on the GPU machine over binaries built here and packed into dist.tar.xz by
# scripts/pack-dist.sh (unpacked into dist/ here). Writes at most 7 files to $OUT (the tool returns 8):
#   env.txt (nvidia-smi, tilegemm info), tests.log (CPU + GPU suites), sanitizer.log (memcheck +
#   racecheck), bench.txt/bench.csv (the main bench), extra.txt (extra bench runs), summary.txt.
# Usage: scripts/gpu-check.sh [tests|bench|all] [bench args...]
#   EXTRA_BENCH="args;args;..." runs further `tilegemm bench` invocations into extra.txt; in their
#   args @X@ stands for a scratch folder whose files (e.g. --csv @X@/seed.csv) come back packed in
#   $OUT/extra.tgz (at most 8 files come back). SKIP_CPU_TESTS=1 skips the CPU suite (CI runs it; it
#   is not packed). GPU_TEST_FILTER passes --gtest_filter to the GPU suite; SKIP_SANITIZER=1 skips
#   the compute-sanitizer runs.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/tilegemm-out}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
what=${1:-all}; shift || true
D=dist
[ -f dist.tar.xz ] && tar xJf dist.tar.xz
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv; $D/tilegemm info; } \
  > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
rc=0
if [ "$what" = tests ] || [ "$what" = all ]; then
  : > "$OUT/tests.log"
  if [ -z "${SKIP_CPU_TESTS:-}" ] && [ -x $D/tilegemm_cpu_tests ]; then  # CI runs them too
    $D/tilegemm_cpu_tests --gtest_brief=1 > "$OUT/tests.log" 2>&1; r=$?; rc=$((rc|r))
    echo "cpu tests rc=$r" | tee -a "$OUT/summary.txt"
  fi
  start=$(date +%s)
  $D/tilegemm_gpu_tests --gtest_brief=1 ${GPU_TEST_FILTER:+--gtest_filter="$GPU_TEST_FILTER"} >> "$OUT/tests.log" 2>&1
  r=$?; rc=$((rc|r))
  echo "gpu tests rc=$r ($(( $(date +%s) - start )) s)" | tee -a "$OUT/summary.txt"; tail -3 "$OUT/tests.log"
  : > "$OUT/sanitizer.log"
  if [ -z "${SKIP_SANITIZER:-}" ]; then
    for tool in memcheck racecheck; do
      start=$(date +%s)
      bash tests/gpu/run_sanitizer.sh $tool $D/tilegemm_gpu_tests >> "$OUT/sanitizer.log" 2>&1; r=$?; rc=$((rc|r))
      echo "sanitizer $tool rc=$r ($(( $(date +%s) - start )) s)" | tee -a "$OUT/summary.txt"; tail -1 "$OUT/sanitizer.log"
    done
  fi
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  $D/tilegemm bench "$@" --csv "$OUT/bench.csv" 2>/dev/null | tee "$OUT/bench.txt"
  if [ -n "${EXTRA_BENCH:-}" ]; then
    X=$(mktemp -d)
    IFS=';' read -ra runs <<< "$EXTRA_BENCH"
    for args in "${runs[@]}"; do
      args=${args//@X@/$X}
      echo "### tilegemm bench $args" >> "$OUT/extra.txt"
      # shellcheck disable=SC2086
      $D/tilegemm bench $args >> "$OUT/extra.txt" 2>&1
    done
    [ -n "$(ls -A "$X")" ] && tar -czf "$OUT/extra.tgz" -C "$X" .
  fi
fi
exit $rc
