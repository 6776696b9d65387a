#!/usr/bin/env bash
# Runs on the GPU machine over `scripts/pack-dist.sh blas` (dist.tar.xz) and Debian's CPU BLAS
# packages carried in .cpublas/ (libopenblas0-pthread, libblas3, libgfortran5, libquadmath0: the
# machine has no system BLAS). Writes to $OUT: tests.log (the shim's test programs), bench.txt
# (tilegemm_blas_bench: CPU BLAS vs shim vs direct, beta 0 and 1), preload.txt (a C program linked to
# libblas.so.3, alone and with the shim LD_PRELOADed), summary.txt.
# BENCH_SIZES overrides the benchmark sizes.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/tilegemm-out}; mkdir -p "$OUT"
[ -f dist.tar.xz ] && tar xJf dist.tar.xz
D=$PWD/dist
CPU=/tmp/cpublas
mkdir -p $CPU && for f in .cpublas/*.deb; do dpkg -x "$f" $CPU; done
LIBDIR=$CPU/usr/lib/x86_64-linux-gnu
OPENBLAS=$LIBDIR/openblas-pthread/libblas.so.3
export LD_LIBRARY_PATH=$D:$LIBDIR:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv; nproc; lscpu | grep "Model name"; } > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
rc=0
run() { echo "### $*" >> "$OUT/tests.log"; "$@" >> "$OUT/tests.log" 2>&1; r=$?; rc=$((rc|r)); echo "$* -> rc=$r" | tee -a "$OUT/summary.txt"; }
# The CPU routes (the netlib libblas.so.3 from libblas3 is the system BLAS here).
run env TILEGEMM_BLAS_MIN_FLOPS=1e30 TILEGEMM_BLAS_TEST_ROUTE=cpu TILEGEMM_BLAS_TEST_CPU_LIB=libblas.so.3 $D/tilegemm_blas_tests --gtest_brief=1
run env CUDA_VISIBLE_DEVICES= TILEGEMM_BLAS_MIN_FLOPS=0 TILEGEMM_BLAS_TEST_ROUTE=cpu_fallback bash tests/blas/expect_one_warning.sh $D/tilegemm_blas_tests --gtest_brief=1
# On the GPU.
run $D/tilegemm_blas_gpu_tests --gtest_brief=1 --gtest_filter=-BlasGpuAlone.*
run $D/tilegemm_blas_gpu_tests --gtest_brief=1 --gtest_filter=BlasGpuAlone.*
[ -x $D/blas_fortran_sgemm ] && run env TILEGEMM_BLAS_MIN_FLOPS=0 TILEGEMM_BLAS_LOG=1 $D/blas_fortran_sgemm
grep -E "tests ran|PASSED|FAILED|passed|error" "$OUT/tests.log" | tail -12
# The drop-in: a program linked to libblas.so.3 (OpenBLAS here), alone and with the shim in front.
{
  for n in 1024 4096 8192; do
    echo "## n=$n OpenBLAS alone"
    LD_LIBRARY_PATH=$LIBDIR/openblas-pthread:$LD_LIBRARY_PATH $D/blas_sgemm_program $n 3
    echo "## n=$n LD_PRELOAD=libtilegemm_blas.so"
    LD_LIBRARY_PATH=$LIBDIR/openblas-pthread:$LD_LIBRARY_PATH LD_PRELOAD=$D/libtilegemm_blas.so TILEGEMM_BLAS_LOG=1 \
      $D/blas_sgemm_program $n 3
  done
} > "$OUT/preload.txt" 2>&1
cat "$OUT/preload.txt" | grep -v "^tilegemm_blas: sgemm_" 
$D/tilegemm_blas_bench --shim $D/libtilegemm_blas.so --cpu-lib $OPENBLAS ${BENCH_SIZES:+--sizes $BENCH_SIZES} \
  > "$OUT/bench.txt" 2>&1
cat "$OUT/bench.txt"
echo "## beta = 1 (C uploaded too)" | tee -a "$OUT/bench.txt"
$D/tilegemm_blas_bench --shim $D/libtilegemm_blas.so --cpu-lib $OPENBLAS --beta 1 --sizes 1024,4096,8192 \
  2>&1 | tee -a "$OUT/bench.txt"
exit $rc
