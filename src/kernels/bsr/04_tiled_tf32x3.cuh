// BSR kernel 04, tiled on tensor cores with FP32 accuracy (3xTF32): the thread blocks, tile order,
// cp.async pipeline and split-K of kernel 03 (tiled_parts.cuh), with each staged chunk multiplied
// by warp-level mma.sync.m16n8k8 TF32 instructions instead of FFMA.
//
// FP32 accuracy by 3xTF32 split operands (kernels/common/mma_tf32x3.cuh); each K-chunk is summed in a zeroed
// register tile and added to the accumulators with round-to-nearest FP32 adds, so the error does not
// grow with a bias over long rows. The GPU tests hold this kernel to the FP32 kernels' tolerance.
// Three tensor-core instructions per product still beat the FFMA rate on Hopper, and the kernel
// issues far fewer instructions per FLOP (kernel 03 was issue-bound).
//
// The MMA's M, N, K: K is k; the output tile is seen as out(m, n) = y[m * ldy + n] so that a thread's
// two adjacent accumulators (c0, c1) are two adjacent floats of Y:
//   xwt: m = j (X rows), n = i (W rows):  A(m, k) = D chunk [j][k],  B(k, n) = W chunk [i][k]
//   wx:  m = i (W rows), n = j (X cols):  A(m, k) = W chunk [i][k],  B(k, n) = D chunk [k][j]
// Fragments are read with 4-byte shared loads at (row g or g + 8, column t or t + 4), g = lane / 4,
// t = lane % 4 (the PTX fragment layout); rows of kKC + 4 floats and wx D rows of kTileJ + 8 floats
// put those 32 reads in 32 distinct banks.
//
// Measured (H100, 2026-11-23, xwt 8192^3, sparsity 0.8, uniform rows): 64x64 blocks 41.2 TFLOP/s
// (2.89x cuSPARSE; kernel 03 38.5), 32x32 37.7 (2.70x), 16x16 30.4 (2.11x, L2-bound: X is read
// 4 / R bytes per FMA). docs/sparse.md has every cell; perf note B10 the steps.
#pragma once
#include "kernels/common/mma_tf32x3.cuh"
#include "kernels/bsr/tiled_parts.cuh"

namespace tilegemm {
namespace kernels {

// kWarpsI x kWarpsJ warps; each owns a (kTileI / kWarpsI) x (kTileJ / kWarpsJ) part of the i x j tile.
// The wx D chunk's rows are kTileJ + 8 floats (rows 8 banks apart); the [row][k] chunks' kKC + 4
// put the fragment reads in 32 banks.
template <int kTileI_, int kTileJ_, int kWarpsI_, int kWarpsJ_, int kKC_, int kStages_>
struct BsrMmaSchedule : BsrStageLayout<kTileI_, kTileJ_, kKC_, kStages_, kTileJ_ + 8> {
  using Layout = BsrStageLayout<kTileI_, kTileJ_, kKC_, kStages_, kTileJ_ + 8>;
  static constexpr int kWarpsI = kWarpsI_, kWarpsJ = kWarpsJ_;
  static constexpr int kWarpI = kTileI_ / kWarpsI, kWarpJ = kTileJ_ / kWarpsJ;  // a warp's part
  static constexpr int kThreads = 32 * kWarpsI * kWarpsJ;
  // A warp's part as MMA tiles: M must split into 16-row and N into 8-column MMA tiles.
  template <bool kXwt>
  __host__ __device__ static constexpr int warp_m() { return kXwt ? kWarpJ : kWarpI; }
  template <bool kXwt>
  __host__ __device__ static constexpr int warp_n() { return kXwt ? kWarpI : kWarpJ; }
  // Thread blocks per SM the shared memory allows (227 KB per block, 228 KB per SM, 1 KB reserved
  // per block), capped where that would leave fewer than 128 registers per thread. The kernel asks
  // for that many (__launch_bounds__), so the compiler keeps registers from limiting it further
  // (the chunk's partial sums double the accumulators: ~150 registers uncapped).
  static constexpr int kSmemMax =
      Layout::template smem_bytes<true>() > Layout::template smem_bytes<false>()
          ? Layout::template smem_bytes<true>()
          : Layout::template smem_bytes<false>();
  static constexpr int kSmemBlocks = (228 * 1024) / (kSmemMax + 1024);
  static constexpr int kRegBlocks = 65536 / (kThreads * 128);
  static constexpr int kMinBlocks = kSmemBlocks < kRegBlocks ? kSmemBlocks : kRegBlocks;

  static_assert(kTileI_ % kWarpsI == 0 && kTileJ_ % kWarpsJ == 0, "warps must split the tile");
  static_assert(kWarpI % 16 == 0 && kWarpJ % 16 == 0, "a warp's part: 16-row MMA tiles either way");
  static_assert(kKC_ % 8 == 0, "K-chunks of whole m16n8k8 steps");
  static_assert(kSmemBlocks >= 1 && kRegBlocks >= 1, "one thread block must fit an SM");
};

template <class S, bool kXwt, bool kVec>
__global__ void __launch_bounds__(S::kThreads, S::kMinBlocks) bsr_tiled_tf32x3(BsrParams p) {
  constexpr int kWarpM = S::template warp_m<kXwt>(), kWarpN = S::template warp_n<kXwt>();
  constexpr int kMT = kWarpM / 16, kNT = kWarpN / 8;  // MMA tiles of the warp's part
  extern __shared__ float4 smem_f4[];
  float* const smem = reinterpret_cast<float*>(smem_f4);
  float* const w_stages = smem;                             // kStages x kWFloats
  float* const d_stages = smem + S::kStages * S::kWFloats;  // kStages x d_floats

  const BsrTileWork tile = find_tile_work<S::kTileI, S::kTileJ>(p);

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;
  const int warp_i = warp / S::kWarpsJ * S::kWarpI, warp_j = warp % S::kWarpsJ * S::kWarpJ;
  const int m_base = kXwt ? warp_j : warp_i, n_base = kXwt ? warp_i : warp_j;  // inside the tile

  float acc[kMT][kNT][4];
  set_zero(acc);
  unsigned min_key = ~0u;  // the FP32 guard (kernels/common/mma_tf32x3.cuh): this thread's splits

  walk_chunks<S, kXwt, kVec>(p, tile, w_stages, d_stages, [&](const float* ws, const float* ds) {
    const float* a_tile = kXwt ? ds : ws;  // [m][kRowStride]
    const float* b_tile = kXwt ? ws : ds;  // xwt [n][kRowStride], wx [k][kDLd]
    // The tensor core rounds its sums toward zero: accumulated over all of k that bias grows with
    // the number of MMAs (1.1e-3 at k = 8192, 1e-4 relative: perf note B10). The chunk's products
    // are summed here and added to acc with round-to-nearest FP32 adds, as kernel 03 does.
    float part[kMT][kNT][4];
    set_zero(part);
#pragma unroll
    for (int kk = 0; kk < S::kKC; kk += 8) {
      unsigned a_big[kMT][4], a_small[kMT][4], b_big[kNT][2], b_small[kNT][2];
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
        for (int r = 0; r < 4; ++r) {  // a_r = A(g + 8 (r % 2), t + 4 (r / 2))
          const int m = m_base + mt * 16 + g + 8 * (r % 2), k = kk + t + 4 * (r / 2);
          split_tf32(a_tile[m * S::kRowStride + k], a_big[mt][r], a_small[mt][r], min_key);
        }
#pragma unroll
      for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
        for (int r = 0; r < 2; ++r) {  // b_r = B(t + 4 r, g)
          const int n = n_base + nt * 8 + g, k = kk + t + 4 * r;
          split_tf32(kXwt ? b_tile[n * S::kRowStride + k] : b_tile[k * S::kDLd + n], b_big[nt][r],
                     b_small[nt][r], min_key);
        }
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
        for (int nt = 0; nt < kNT; ++nt) {
          mma_tf32x3(part[mt][nt], a_big[mt], a_small[mt], b_big[nt], b_small[nt]);
        }
    }
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
      for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[mt][nt][e] += part[mt][nt][e];
  });

  // The FP32 guard: where some warp's operands fall outside the split's range (an Inf, a NaN, a
  // magnitude below 2^-112) or its sums overflowed, the block walks the tile's chunks again and
  // that warp recomputes its outputs by FFMA from the staged chunks (the pipeline needs every thread,
  // so the walk is block-wide; the other warps only copy).
  const bool exact = split_exact(min_key, reinterpret_cast<const float(&)[kMT * kNT * 4]>(acc));
  if (__syncthreads_or(!exact)) {
    if (!exact) set_zero(acc);
    walk_chunks<S, kXwt, kVec>(p, tile, w_stages, d_stages, [&](const float* ws, const float* ds) {
      if (exact) return;
      const float* a_tile = kXwt ? ds : ws;
      const float* b_tile = kXwt ? ws : ds;
      for (int k = 0; k < S::kKC; ++k) {
        float av[kMT][2], bv[kNT][2];
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
          for (int h = 0; h < 2; ++h) av[mt][h] = a_tile[(m_base + mt * 16 + g + 8 * h) * S::kRowStride + k];
#pragma unroll
        for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int n = n_base + nt * 8 + 2 * t + e;
            bv[nt][e] = kXwt ? b_tile[n * S::kRowStride + k] : b_tile[k * S::kDLd + n];
          }
        ffma_outer(acc, av, bv);
      }
    });
  }

  if (tile.piece >= 0 &&
      !sum_split_pieces<kMT * kNT * 4, S::kThreads>(p, tile, reinterpret_cast<float(&)[kMT * kNT * 4]>(acc)))
    return;

  // Epilogue: acc[mt][nt][e] is out(m, n) with m = m_base + 16 mt + g + 8 (e / 2), n = n_base +
  // 8 nt + 2 t + e % 2. Rows past the block row's end and columns past J are not written.
  const int m_left = kXwt ? p.cols_j - tile.j0 : p.block_r - tile.r0;
  const int n_left = kXwt ? p.block_r - tile.r0 : p.cols_j - tile.j0;
  const long long row0 = kXwt ? tile.j0 : static_cast<long long>(tile.block_row) * p.block_r + tile.r0;
  const long long col0 = kXwt ? static_cast<long long>(tile.block_row) * p.block_r + tile.r0 : tile.j0;
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int m = m_base + mt * 16 + g + 8 * h;
      if (m >= m_left) continue;
      float* const row = p.y + (row0 + m) * p.ldy + col0;
#pragma unroll
      for (int nt = 0; nt < kNT; ++nt) {
        const int n = n_base + nt * 8 + 2 * t;
        const float v0 = acc[mt][nt][2 * h], v1 = acc[mt][nt][2 * h + 1];
        float* const out = row + n;
        if (n + 1 < n_left && reinterpret_cast<unsigned long long>(out) % 8 == 0) {
          epilogue_store2(out, v0, v1, p.alpha, p.beta);
        } else {
          if (n < n_left) epilogue_store(out, v0, p.alpha, p.beta);
          if (n + 1 < n_left) epilogue_store(out + 1, v1, p.alpha, p.beta);
        }
      }
    }
}

// The schedules dispatch instantiates, by block shape R x C and stored columns per block row
// (sparse/config.hpp's kBsrSchedules; chosen from the candidates listed there,
// perf note B10, and from tuning runs, perf note B11). Most warps own 16 (i) x 64 (j): 32
// accumulators, 4 + 16 fragment loads (A and B, either orientation) per 24 MMAs; BsrMma64K32's own
// 32 x 64 (4 warps, two blocks per SM).
using BsrMma16 = BsrMmaSchedule<16, 256, 1, 4, 16, 3>;     // R < 32 (R < 16 pads the tile)
using BsrMma32K32 = BsrMmaSchedule<32, 128, 2, 2, 32, 3>;  // 32 <= R < 64, C % 32 == 0
using BsrMma32 = BsrMmaSchedule<32, 128, 2, 2, 16, 4>;     // 32 <= R < 64, other C
using BsrMma64K32 = BsrMmaSchedule<64, 128, 2, 2, 32, 3>;  // R >= 64, C % 32 == 0, rows of >= 48 columns
using BsrMma64K32Short = BsrMmaSchedule<64, 128, 4, 2, 32, 3>;  // the same with shorter rows
using BsrMma64 = BsrMmaSchedule<64, 128, 4, 2, 16, 4>;     // R >= 64, other C

}  // namespace kernels
}  // namespace tilegemm
