// Level 05 - vectorized: 128-bit global loads, A stored transposed (k-major) in shared memory, padded
// rows so the transposing stores are bank-conflict free, and double buffering (the next K-tile is read
// from global memory into registers while the current one is multiplied).
// Source: the "vectorize SMEM and GMEM accesses" and "double buffering" steps of the SGEMM tutorials.
// 128x128 block tile, 256 threads, 8x8 outputs per thread as two 4-wide chunks in m and in n, so every
// shared-memory read of a fragment is one 128-bit load.
// The host selects kVecA/kVecB only when the contiguous dimension of the operand is 16-byte aligned
// (pointer and leading dimension); otherwise each 4-element chunk is read with 4 predicated scalar loads.
// Edge chunks (crossing M, N or K) always take the scalar path, so any shape works.
// Measured (H200, row-major NN 4096^3, 2026-11-22): 42.16 TFLOP/s, 0.827x cuBLAS; table in docs/ladder.md.
// Build and run: bash scripts/build.sh && build/tilegemm bench --shape 4096x4096x4096 --kernels 5
#pragma once
#include "kernels/gemm/common.cuh"

namespace tilegemm {
namespace kernels {

template <int BM, int BN, int BK, int TM, int TN>
struct VectorizedSchedule {
  static constexpr int kBlockM = BM, kBlockN = BN, kBlockK = BK;
  static constexpr int kThreadM = TM, kThreadN = TN;
  static constexpr int kThreadsM = BM / TM, kThreadsN = BN / TN;
  static constexpr int kThreads = kThreadsM * kThreadsN;
  static constexpr int kPad = 4;  // keeps rows 16-byte aligned and transposed stores conflict-free
  static constexpr int kSmemBytes = 2 * BK * ((BM + kPad) + (BN + kPad)) * 4;  // double buffered
  static constexpr int kChunksA = BM * BK / 4, kChunksB = BN * BK / 4;  // 4-float chunks per tile
  static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "fragments are read 4 floats at a time");
  static_assert(BM % TM == 0 && BN % TN == 0, "thread tile must divide the block tile");
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps, at most 1024 threads");
  static_assert(kChunksA % kThreads == 0 && kChunksB % kThreads == 0,
                "tile loads must split evenly over the threads");
  static_assert(kSmemBytes <= 48 * 1024, "static shared memory is limited to 48 KB");
};

using VectorizedDefault = VectorizedSchedule<128, 128, 8, 8, 8>;

template <class S, bool kTransA, bool kTransB, bool kVecA, bool kVecB>
__global__ void __launch_bounds__(S::kThreads) gemm_vectorized(GemmParams p) {
  constexpr int BM = S::kBlockM, BN = S::kBlockN, BK = S::kBlockK;
  constexpr int TM = S::kThreadM, TN = S::kThreadN;
  constexpr int kLdA = BM + S::kPad, kLdB = BN + S::kPad;
  constexpr int kLoadsA = S::kChunksA / S::kThreads, kLoadsB = S::kChunksB / S::kThreads;
  __shared__ __align__(16) float a_tile[2][BK * kLdA];  // [k][m]
  __shared__ __align__(16) float b_tile[2][BK * kLdB];  // [k][n]

  const int tiles_m = (p.m + BM - 1) / BM, tiles_n = (p.n + BN - 1) / BN;
  const TileCoord tile = tile_for_block(p.raster, tiles_m, tiles_n, blockIdx.x);
  const int m0 = tile.m * BM, n0 = tile.n * BN;
  const int tid = threadIdx.x;
  const int tx = tid % S::kThreadsN, ty = tid / S::kThreadsN;

  float4 a_stage[kLoadsA], b_stage[kLoadsB];  // the next K-tile, in flight through registers

  // Chunk c of A's tile: 4 consecutive elements along A's contiguous dimension (k if not transposed,
  // m if transposed). Returns the chunk's first (m, k) offset inside the tile.
  auto chunk_a = [](int c, int& mm, int& kk) {
    if (kTransA) { kk = c / (BM / 4); mm = (c % (BM / 4)) * 4; }
    else         { mm = c / (BK / 4); kk = (c % (BK / 4)) * 4; }
  };
  auto chunk_b = [](int c, int& nn, int& kk) {
    if (kTransB) { nn = c / (BK / 4); kk = (c % (BK / 4)) * 4; }
    else         { kk = c / (BN / 4); nn = (c % (BN / 4)) * 4; }
  };
  auto fetch = [&](int k0) {
#pragma unroll
    for (int r = 0; r < kLoadsA; ++r) {
      int mm, kk;
      chunk_a(r * S::kThreads + tid, mm, kk);
      const int m = m0 + mm, k = k0 + kk;
      if (kTransA) {
        const int valid = k < p.k ? p.m - m : 0;
        a_stage[r] = load_chunk<kVecA>(p.a + (valid > 0 ? at(k, p.lda, m) : 0), valid);
      } else {
        const int valid = m < p.m ? p.k - k : 0;
        a_stage[r] = load_chunk<kVecA>(p.a + (valid > 0 ? at(m, p.lda, k) : 0), valid);
      }
    }
#pragma unroll
    for (int r = 0; r < kLoadsB; ++r) {
      int nn, kk;
      chunk_b(r * S::kThreads + tid, nn, kk);
      const int n = n0 + nn, k = k0 + kk;
      if (kTransB) {
        const int valid = n < p.n ? p.k - k : 0;
        b_stage[r] = load_chunk<kVecB>(p.b + (valid > 0 ? at(n, p.ldb, k) : 0), valid);
      } else {
        const int valid = k < p.k ? p.n - n : 0;
        b_stage[r] = load_chunk<kVecB>(p.b + (valid > 0 ? at(k, p.ldb, n) : 0), valid);
      }
    }
  };
  auto stash = [&](int buf) {
#pragma unroll
    for (int r = 0; r < kLoadsA; ++r) {
      int mm, kk;
      chunk_a(r * S::kThreads + tid, mm, kk);
      float* dst = &a_tile[buf][kk * kLdA + mm];
      if (kTransA) {
        *reinterpret_cast<float4*>(dst) = a_stage[r];
      } else {  // transpose on the way in
        dst[0] = a_stage[r].x; dst[kLdA] = a_stage[r].y;
        dst[2 * kLdA] = a_stage[r].z; dst[3 * kLdA] = a_stage[r].w;
      }
    }
#pragma unroll
    for (int r = 0; r < kLoadsB; ++r) {
      int nn, kk;
      chunk_b(r * S::kThreads + tid, nn, kk);
      float* dst = &b_tile[buf][kk * kLdB + nn];
      if (kTransB) {
        dst[0] = b_stage[r].x; dst[kLdB] = b_stage[r].y;
        dst[2 * kLdB] = b_stage[r].z; dst[3 * kLdB] = b_stage[r].w;
      } else {
        *reinterpret_cast<float4*>(dst) = b_stage[r];
      }
    }
  };

  float acc[TM][TN] = {};
  const int k_tiles = (p.k + BK - 1) / BK;
  if (k_tiles > 0) {
    fetch(0);
    stash(0);
    __syncthreads();
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int buf = kt & 1;
    if (kt + 1 < k_tiles) fetch((kt + 1) * BK);  // global loads overlap the FMAs below
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a_reg[TM], b_reg[TN];
#pragma unroll
      for (int i = 0; i < TM / 4; ++i) {
        const float4 v = *reinterpret_cast<const float4*>(
            &a_tile[buf][kk * kLdA + i * (BM / (TM / 4)) + ty * 4]);
        a_reg[4 * i] = v.x; a_reg[4 * i + 1] = v.y; a_reg[4 * i + 2] = v.z; a_reg[4 * i + 3] = v.w;
      }
#pragma unroll
      for (int j = 0; j < TN / 4; ++j) {
        const float4 v = *reinterpret_cast<const float4*>(
            &b_tile[buf][kk * kLdB + j * (BN / (TN / 4)) + tx * 4]);
        b_reg[4 * j] = v.x; b_reg[4 * j + 1] = v.y; b_reg[4 * j + 2] = v.z; b_reg[4 * j + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a_reg[i] * b_reg[j];
    }
    if (kt + 1 < k_tiles) stash(buf ^ 1);  // the other buffer was last read before the previous sync
    __syncthreads();
  }

  // Epilogue: thread owns rows i*(BM/(TM/4)) + ty*4 + {0..3}, columns j*(BN/(TN/4)) + tx*4 + {0..3}.
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int m = m0 + (i / 4) * (BM / (TM / 4)) + ty * 4 + i % 4;
    if (m >= p.m) continue;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int n = n0 + (j / 4) * (BN / (TN / 4)) + tx * 4 + j % 4;
      if (n < p.n) store_c(p, m, n, acc[i][j]);
    }
  }
}

}  // namespace kernels
}  // namespace tilegemm
