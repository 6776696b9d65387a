// Level 02 - coalesced: 1-D thread blocks laid along a row of C (the seed post's "v1").
// Source: seed 003 (1-D threads), the classic "global memory coalescing" step.
// A block of 256 threads covers an 8 x 32 tile of C; consecutive threads take consecutive columns,
// so loads of B and stores of C are coalesced and the A element is a warp-wide broadcast.
// Measured (H200, row-major NN 4096^3, 2026-11-22): 5.69 TFLOP/s, 0.112x cuBLAS; table in docs/ladder.md.
// Build and run: bash scripts/build.sh && build/tilegemm bench --shape 4096x4096x4096 --kernels 2
#pragma once
#include "kernels/gemm/common.cuh"

namespace tilegemm {
namespace kernels {

constexpr int kCoalescedRows = 8;
constexpr int kCoalescedCols = 32;

template <bool kTransA, bool kTransB>
__global__ void __launch_bounds__(kCoalescedRows * kCoalescedCols) gemm_coalesced(GemmParams p) {
  const int tiles_n = (p.n + kCoalescedCols - 1) / kCoalescedCols;
  const int m = (blockIdx.x / tiles_n) * kCoalescedRows + threadIdx.x / kCoalescedCols;
  const int n = (blockIdx.x % tiles_n) * kCoalescedCols + threadIdx.x % kCoalescedCols;
  if (m >= p.m || n >= p.n) return;
  store_c(p, m, n, dot_from_global<kTransA, kTransB>(p, m, n));
}

}  // namespace kernels
}  // namespace tilegemm
