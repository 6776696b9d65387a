// Level 06 - warp-tiled, multi-stage cp.async pipeline, Hilbert rasterization.
// Source: seed 004 (256x128 block tiles on a Hilbert curve, 256x8 / 8x128 shared tiles in a 4-stage
// asynchronous-copy pipeline, 64x64 warp tiles, 8x16 thread tiles, 128-bit accesses).
//
// - Block tile BM x BN, split into warp tiles WM x WN; each lane of a warp owns TM x TN outputs, taken
//   as 4-wide chunks spaced so that a warp's fragment reads are whole 128-byte shared-memory lines.
// - K advances BK at a time through a STAGES-deep ring of shared buffers filled with cp.async; one
//   __syncthreads per K-tile. Out-of-range elements are zero-filled by the copy itself (src-size 0),
//   so there is no separate edge path and every M, N, K works.
// - Shared tiles are k-major ([k][m] and [k][n]). Operands whose contiguous dimension is m (A^T) or
//   n (B) are copied 16 bytes at a time when the host found them 16-byte aligned (kVecA/kVecB), else
//   4 bytes at a time. Operands contiguous along k (A, B^T) are transposed on the way in with 4-byte
//   copies, 8 k x 4 m per warp instruction. An XOR swizzle (column ^ 4*(k mod 8)) makes those
//   transposing writes and the 128-bit fragment reads both bank-conflict free without padding.
// - Blocks visit output tiles in the order given by p.raster (row-major, grouped or Hilbert).
// Measured (H100, row-major NN 4096^3): see docs/ladder.md.
#pragma once
#include "common.cuh"

namespace tilegemm {
namespace kernels {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES>
struct WarpTiledSchedule {
  static constexpr int kBlockM = BM, kBlockN = BN, kBlockK = BK;
  static constexpr int kWarpM = WM, kWarpN = WN, kThreadM = TM, kThreadN = TN;
  static constexpr int kStages = STAGES;
  static constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  static constexpr int kLanesM = WM / TM, kLanesN = WN / TN;  // lane grid inside a warp
  static constexpr int kSmemBytes = STAGES * BK * (BM + BN) * 4;
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tile must divide the block tile");
  static_assert(WM % TM == 0 && WN % TN == 0, "thread tile must divide the warp tile");
  static_assert(kLanesM * kLanesN == 32, "a warp tile must be covered by exactly 32 lanes");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "fragments are read 4 floats at a time");
  static_assert(BM % 32 == 0 && BN % 32 == 0, "the XOR swizzle permutes 32-float groups");
  static_assert(BK % 8 == 0, "transposing copies move 8 k at a time");
  static_assert((BM * BK) % kThreads == 0 && (BN * BK) % kThreads == 0 &&
                    (BM * BK / 4) % kThreads == 0 && (BN * BK / 4) % kThreads == 0,
                "tile copies must split evenly over the threads");
  static_assert(kThreads <= 1024 && STAGES >= 2, "at most 1024 threads, at least 2 stages");
  static_assert(kSmemBytes <= 227 * 1024, "shared memory per block is at most 227 KB on sm_90");
};

// Swizzled offset of (k, col) in a k-major shared tile whose rows hold `kCols` floats.
template <int kCols>
__device__ __forceinline__ int swz(int k, int col) {
  return k * kCols + (col ^ ((k & 7) << 2));
}

// Copies the BK x kCols slice [k0, k0+BK) x [c0, c0+kCols) of an operand into a k-major shared tile.
//   kContigK: the operand is contiguous along k in global memory (element (k, col) at col*ld + k),
//             else along col (element at k*ld + col).
//   kVec:     16-byte copies (only for col-contiguous operands the host found 16-byte aligned).
// Elements outside [0, k_size) x [0, col_size) are zero-filled.
template <int BK, int kCols, int kThreads, bool kContigK, bool kVec>
__device__ __forceinline__ void copy_tile_async(float* tile, const float* src, int ld, int k0,
                                                int c0, int k_size, int col_size, int tid) {
  if (kContigK) {
    // Transposing copy: within a warp, 8 consecutive k of 4 consecutive columns (32-byte runs).
#pragma unroll
    for (int r = 0; r < BK * kCols / kThreads; ++r) {
      const int e = r * kThreads + tid;
      const int k_lo = e % 8, rest = e / 8;
      const int col = rest % kCols, k = (rest / kCols) * 8 + k_lo;
      const int gk = k0 + k, gc = c0 + col;
      const bool ok = gk < k_size && gc < col_size;
      cp_async_4(tile + swz<kCols>(k, col), ok ? src + gc * ld + gk : src, ok);
    }
  } else if (kVec) {
#pragma unroll
    for (int r = 0; r < BK * kCols / 4 / kThreads; ++r) {
      const int e = r * kThreads + tid;
      const int k = e / (kCols / 4), col = (e % (kCols / 4)) * 4;
      const int gk = k0 + k, gc = c0 + col;
      int valid = gk < k_size ? col_size - gc : 0;
      valid = valid < 0 ? 0 : (valid > 4 ? 4 : valid);
      cp_async_16(tile + swz<kCols>(k, col), valid > 0 ? src + gk * ld + gc : src, valid);
    }
  } else {
#pragma unroll
    for (int r = 0; r < BK * kCols / kThreads; ++r) {
      const int e = r * kThreads + tid;
      const int k = e / kCols, col = e % kCols;
      const int gk = k0 + k, gc = c0 + col;
      const bool ok = gk < k_size && gc < col_size;
      cp_async_4(tile + swz<kCols>(k, col), ok ? src + gk * ld + gc : src, ok);
    }
  }
}

template <class S, bool kTransA, bool kTransB, bool kVecA, bool kVecB>
__global__ void __launch_bounds__(S::kThreads, 1) gemm_warp_tiled(GemmParams p) {
  constexpr int BM = S::kBlockM, BN = S::kBlockN, BK = S::kBlockK, STAGES = S::kStages;
  constexpr int TM = S::kThreadM, TN = S::kThreadN;
  constexpr int kStrideM = S::kLanesM * 4, kStrideN = S::kLanesN * 4;  // between a lane's chunks
  extern __shared__ float4 smem_raw[];
  float* a_smem = reinterpret_cast<float*>(smem_raw);  // STAGES x [BK][BM]
  float* b_smem = a_smem + STAGES * BK * BM;           // STAGES x [BK][BN]

  const int tiles_m = (p.m + BM - 1) / BM, tiles_n = (p.n + BN - 1) / BN;
  const TileCoord tile = tile_for_block(p.raster, tiles_m, tiles_n, blockIdx.x);
  const int m0 = tile.m * BM, n0 = tile.n * BN;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm0 = (warp / S::kWarpsN) * S::kWarpM, wn0 = (warp % S::kWarpsN) * S::kWarpN;
  const int lm = (lane / S::kLanesN) * 4, ln = (lane % S::kLanesN) * 4;

  // A is contiguous along k unless transposed; B is contiguous along k only when transposed.
  auto load_stage = [&](int stage, int k0) {
    copy_tile_async<BK, BM, S::kThreads, !kTransA, kVecA>(a_smem + stage * BK * BM, p.a, p.lda,
                                                           k0, m0, p.k, p.m, tid);
    copy_tile_async<BK, BN, S::kThreads, kTransB, kVecB>(b_smem + stage * BK * BN, p.b, p.ldb,
                                                          k0, n0, p.k, p.n, tid);
  };

  const int k_tiles = (p.k + BK - 1) / BK;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < k_tiles) load_stage(s, s * BK);
    cp_async_commit();  // empty groups keep the group count uniform
  }

  float acc[TM][TN] = {};
  for (int kt = 0; kt < k_tiles; ++kt) {
    cp_async_wait<STAGES - 2>();  // tile kt has landed (for this thread's copies)...
    __syncthreads();              // ...and for everyone's; stage (kt-1)%STAGES is free again
    const int next = kt + STAGES - 1;
    if (next < k_tiles) load_stage(next % STAGES, next * BK);
    cp_async_commit();

    const float* a_tile = a_smem + (kt % STAGES) * BK * BM;
    const float* b_tile = b_smem + (kt % STAGES) * BK * BN;
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a_reg[TM], b_reg[TN];
#pragma unroll
      for (int i = 0; i < TM / 4; ++i) {
        const float4 v =
            *reinterpret_cast<const float4*>(a_tile + swz<BM>(kk, wm0 + i * kStrideM + lm));
        a_reg[4 * i] = v.x; a_reg[4 * i + 1] = v.y; a_reg[4 * i + 2] = v.z; a_reg[4 * i + 3] = v.w;
      }
#pragma unroll
      for (int j = 0; j < TN / 4; ++j) {
        const float4 v =
            *reinterpret_cast<const float4*>(b_tile + swz<BN>(kk, wn0 + j * kStrideN + ln));
        b_reg[4 * j] = v.x; b_reg[4 * j + 1] = v.y; b_reg[4 * j + 2] = v.z; b_reg[4 * j + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a_reg[i] * b_reg[j];
    }
  }
  cp_async_wait<0>();  // no copy may still target shared memory when the block exits

  // Epilogue straight from registers: 16-byte read-modify-writes where C allows, scalar at edges.
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int m = m0 + wm0 + (i / 4) * kStrideM + lm + i % 4;
    if (m >= p.m) continue;
#pragma unroll
    for (int j = 0; j < TN / 4; ++j) {
      const int n = n0 + wn0 + j * kStrideN + ln;
      float* dst = p.c + m * p.ldc + n;
      if (p.c_vec4 && n + 3 < p.n) {
        float4 out;
        out.x = p.alpha * acc[i][4 * j];
        out.y = p.alpha * acc[i][4 * j + 1];
        out.z = p.alpha * acc[i][4 * j + 2];
        out.w = p.alpha * acc[i][4 * j + 3];
        if (p.beta != 0.0f) {
          const float4 old = *reinterpret_cast<const float4*>(dst);
          out.x += p.beta * old.x; out.y += p.beta * old.y;
          out.z += p.beta * old.z; out.w += p.beta * old.w;
        }
        *reinterpret_cast<float4*>(dst) = out;
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q)
          if (n + q < p.n) store_c(p, m, n + q, acc[i][4 * j + q]);
      }
    }
  }
}

}  // namespace kernels
}  // namespace tilegemm
