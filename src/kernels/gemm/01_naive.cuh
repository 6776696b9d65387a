// Level 01 - naive: one thread per element of C, each walking the whole K dimension.
// Source: the starting point of every tiled-matmul tutorial (seeds 001 and 003).
// Threads are numbered down a column of C (x -> m), so in row-major C and A neighbouring threads touch
// addresses lda/ldc apart: uncoalesced on purpose, to show what level 02 buys.
// Measured (H200, row-major NN 4096^3, 2026-11-22): 0.97 TFLOP/s, 0.019x cuBLAS; table in docs/ladder.md.
// Build and run: bash scripts/build.sh && build/tilegemm bench --shape 4096x4096x4096 --kernels 1
#pragma once
#include "kernels/gemm/common.cuh"

namespace tilegemm {
namespace kernels {

constexpr int kNaiveTile = 16;  // 16x16 threads per block

template <bool kTransA, bool kTransB>
__global__ void __launch_bounds__(kNaiveTile * kNaiveTile) gemm_naive(GemmParams p) {
  // A 1-D grid of 16x16-thread blocks, decomposed here so no grid dimension limit applies.
  const int tiles_m = (p.m + kNaiveTile - 1) / kNaiveTile;
  const int m = (blockIdx.x % tiles_m) * kNaiveTile + threadIdx.x;
  const int n = (blockIdx.x / tiles_m) * kNaiveTile + threadIdx.y;
  if (m >= p.m || n >= p.n) return;
  store_c(p, m, n, dot_from_global<kTransA, kTransB>(p, m, n));
}

}  // namespace kernels
}  // namespace tilegemm
