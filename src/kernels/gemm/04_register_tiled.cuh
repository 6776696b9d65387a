// Level 04 - two-level block + register tiling (the textbook chapter's schedule, seed 000):
// a 128x64 block tile, 16x16 threads each computing 8x4 outputs, K-tile 32. Tiles of A and B are
// fetched cooperatively into shared memory; each thread then keeps its 8 A values and 4 B values of one
// k in registers and does 32 FMAs with them, so shared-memory reads per FMA drop from 2 to 12/32.
// A thread's outputs are strided by 16 rows/columns, so a warp's shared-memory reads and its stores of C
// hit consecutive addresses. Out-of-range elements load as zeros; every M, N, K works.
// Measured (H200, row-major NN 4096^3, 2026-11-22): 27.85 TFLOP/s, 0.546x cuBLAS; table in docs/ladder.md.
// Build and run: bash scripts/build.sh && build/tilegemm bench --shape 4096x4096x4096 --kernels 4
#pragma once
#include "kernels/gemm/common.cuh"

namespace tilegemm {
namespace kernels {

template <int BM, int BN, int BK, int TM, int TN>
struct RegisterTiledSchedule {
  static constexpr int kBlockM = BM, kBlockN = BN, kBlockK = BK;
  static constexpr int kThreadM = TM, kThreadN = TN;
  static constexpr int kThreadsM = BM / TM, kThreadsN = BN / TN;  // thread grid of a block
  static constexpr int kThreads = kThreadsM * kThreadsN;
  static constexpr int kPad = 1;  // one float per shared row keeps transposed stores conflict-free
  static constexpr int kSmemBytes = BK * ((BM + kPad) + (BN + kPad)) * 4;
  static_assert(BM % TM == 0 && BN % TN == 0, "thread tile must divide the block tile");
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps, at most 1024 threads");
  static_assert((BM * BK) % kThreads == 0 && (BN * BK) % kThreads == 0,
                "tile loads must split evenly over the threads");
  static_assert(kSmemBytes <= 48 * 1024, "static shared memory is limited to 48 KB");
};

using RegisterTiledDefault = RegisterTiledSchedule<128, 64, 32, 8, 4>;

template <class S, bool kTransA, bool kTransB>
__global__ void __launch_bounds__(S::kThreads) gemm_register_tiled(GemmParams p) {
  constexpr int BM = S::kBlockM, BN = S::kBlockN, BK = S::kBlockK;
  constexpr int TM = S::kThreadM, TN = S::kThreadN;
  __shared__ float a_tile[BK][BM + S::kPad];  // k-major: a thread's 8 m values at one k are a row
  __shared__ float b_tile[BK][BN + S::kPad];

  const int tiles_m = (p.m + BM - 1) / BM, tiles_n = (p.n + BN - 1) / BN;
  const TileCoord tile = tile_for_block(p.raster, tiles_m, tiles_n, blockIdx.x);
  const int m0 = tile.m * BM, n0 = tile.n * BN;
  const int tid = threadIdx.x;
  const int tx = tid % S::kThreadsN, ty = tid / S::kThreadsN;

  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < p.k; k0 += BK) {
    // Cooperative loads; the element order follows A's/B's contiguous direction for coalescing.
#pragma unroll
    for (int r = 0; r < BM * BK / S::kThreads; ++r) {
      const int e = r * S::kThreads + tid;
      const int mm = kTransA ? e % BM : e / BK;
      const int kk = kTransA ? e / BM : e % BK;
      const int m = m0 + mm, k = k0 + kk;
      a_tile[kk][mm] = (m < p.m && k < p.k) ? load_a<kTransA>(p, m, k) : 0.0f;
    }
#pragma unroll
    for (int r = 0; r < BN * BK / S::kThreads; ++r) {
      const int e = r * S::kThreads + tid;
      const int nn = kTransB ? e / BK : e % BN;
      const int kk = kTransB ? e % BK : e / BN;
      const int n = n0 + nn, k = k0 + kk;
      b_tile[kk][nn] = (n < p.n && k < p.k) ? load_b<kTransB>(p, k, n) : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a_reg[TM], b_reg[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a_reg[i] = a_tile[kk][ty + i * S::kThreadsM];
#pragma unroll
      for (int j = 0; j < TN; ++j) b_reg[j] = b_tile[kk][tx + j * S::kThreadsN];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a_reg[i] * b_reg[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int m = m0 + ty + i * S::kThreadsM;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int n = n0 + tx + j * S::kThreadsN;
      if (m < p.m && n < p.n) store_c(p, m, n, acc[i][j]);
    }
  }
}

}  // namespace kernels
}  // namespace tilegemm
