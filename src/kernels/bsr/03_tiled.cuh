// BSR kernel 03, tiled: a thread block owns an output tile of kTileI rows i (inside one block row
// of W) x kTileJ columns j, walks the stored blocks of that block row in K-chunks of kKC, stages
// each chunk's W rows and the matching D slice in shared memory with a kStages-deep cp.async
// pipeline, and accumulates a kTI x kTJ register tile per thread (outer products, 4 k at a time).
//
// Shared-memory layouts keep each operand's global orientation so every copy is a plain cp.async:
//   W chunk  [kTileI][kKC + 4]  rows are k-contiguous in the block; the +4 pad makes the 128-bit
//                               reads of 8 consecutive rows hit distinct banks.
//   D chunk  xwt: [kTileJ][kKC + 4]  (X rows are k-contiguous), read 4 k per 128-bit load;
//            wx:  [kKC][kTileJ]      (X rows are j-contiguous), read 4 j per 128-bit load.
// Thread (ti, tj) owns kTI consecutive rows i (128-bit stores along i for xwt) and kTJ columns j:
// strided by 8 for xwt (8 lanes read 8 consecutive D rows: conflict-free), in groups of 4
// consecutive columns for wx (128-bit reads and stores along j).
//
// Load balance: thread blocks take block rows in DeviceBsrMatrix's row_order (longest first). The
// few rows long enough to stretch the run if started late (p.heavy_slots, set by the launcher) go
// first with all their column tiles; the rest go column tile by column tile with the block-row
// index varying fastest, so a wave of thread blocks shares one D slice (kTileJ x K) in L2 and each
// column tile starts with its heaviest rows. Rows far longer than a slot's share of the run are
// also split over several thread blocks (split-K, p.split_slots): each piece writes a partial tile
// and the last piece to finish sums them in order. Empty block rows still write beta * out.
// Out-of-range rows, columns and chunk tails are zero-filled by the copies. The copies, the tile
// order, the chunk walk and the split-K sum are shared with kernel 04 (tiled_parts.cuh).
#pragma once
#include "kernels/bsr/tiled_parts.cuh"

namespace tilegemm {
namespace kernels {

// wx D chunk rows of kTileJ floats: read 4 j per 128-bit load.
template <int kTileI_, int kTileJ_, int kTI_, int kTJ_, int kKC_, int kStages_>
struct BsrTiledSchedule : BsrStageLayout<kTileI_, kTileJ_, kKC_, kStages_, kTileJ_> {
  static constexpr int kTI = kTI_, kTJ = kTJ_;    // outputs per thread
  static constexpr int kLanesJ = 8, kLanesI = 4;  // a warp is 4 (i) x 8 (j) threads
  static constexpr int kThreadsI = kTileI_ / kTI, kThreadsJ = kTileJ_ / kTJ;
  static constexpr int kThreads = kThreadsI * kThreadsJ;
  static constexpr int kWarpsJ = kThreadsJ / kLanesJ;

  static_assert(kTileI_ % kTI == 0 && kTileJ_ % kTJ == 0, "tile must split into thread tiles");
  static_assert(kThreadsI % kLanesI == 0 && kThreadsJ % kLanesJ == 0, "whole warps");
  static_assert(kTJ % 4 == 0 && kKC_ % 4 == 0, "128-bit groups along j and k");
};

template <class S, bool kXwt, bool kVec>
__global__ void __launch_bounds__(S::kThreads, 1) bsr_tiled(BsrParams p) {
  extern __shared__ float4 smem_f4[];
  float* const smem = reinterpret_cast<float*>(smem_f4);
  float* const w_stages = smem;                               // kStages x kWFloats
  float* const d_stages = smem + S::kStages * S::kWFloats;    // kStages x d_floats

  const BsrTileWork tile = find_tile_work<S::kTileI, S::kTileJ>(p);
  const int block_row = tile.block_row, r0 = tile.r0, j0 = tile.j0;
  const int r_left = p.block_r - r0;
  // Thread position: warps tile the block as kWarpsI x kWarpsJ, lanes as 4 (i) x 8 (j).
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int ti = (warp / S::kWarpsJ) * S::kLanesI + lane / S::kLanesJ;
  const int lane_j = lane % S::kLanesJ;
  const int i_base = ti * S::kTI;                                         // kTI consecutive i
  const int j_warp = (warp % S::kWarpsJ) * (S::kLanesJ * S::kTJ);
  // Column of the thread's q-th output: xwt strided by 8; wx in groups of 4 consecutive.
  auto j_of = [&](int q) {
    return kXwt ? j_warp + lane_j + S::kLanesJ * q
                : j_warp + (q / 4) * (S::kLanesJ * 4) + lane_j * 4 + q % 4;
  };

  float acc[S::kTI][S::kTJ];
#pragma unroll
  for (int a = 0; a < S::kTI; ++a)
#pragma unroll
    for (int q = 0; q < S::kTJ; ++q) acc[a][q] = 0.0f;

  walk_chunks<S, kXwt, kVec>(p, tile, w_stages, d_stages, [&](const float* ws, const float* ds) {
#pragma unroll
    for (int kk = 0; kk < S::kKC; kk += 4) {
      float wf[S::kTI][4], df[S::kTJ][4];
#pragma unroll
      for (int a = 0; a < S::kTI; ++a) {
        const float4 v = *reinterpret_cast<const float4*>(ws + (i_base + a) * S::kRowStride + kk);
        wf[a][0] = v.x, wf[a][1] = v.y, wf[a][2] = v.z, wf[a][3] = v.w;
      }
      if (kXwt) {
#pragma unroll
        for (int q = 0; q < S::kTJ; ++q) {
          const float4 v = *reinterpret_cast<const float4*>(ds + j_of(q) * S::kRowStride + kk);
          df[q][0] = v.x, df[q][1] = v.y, df[q][2] = v.z, df[q][3] = v.w;
        }
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)
#pragma unroll
          for (int g = 0; g < S::kTJ / 4; ++g) {
            const float4 v = *reinterpret_cast<const float4*>(ds + (kk + e) * S::kDLd + j_of(g * 4));
            df[g * 4 + 0][e] = v.x, df[g * 4 + 1][e] = v.y, df[g * 4 + 2][e] = v.z,
                         df[g * 4 + 3][e] = v.w;
          }
      }
#pragma unroll
      for (int e = 0; e < 4; ++e)
#pragma unroll
        for (int a = 0; a < S::kTI; ++a)
#pragma unroll
          for (int q = 0; q < S::kTJ; ++q) acc[a][q] += wf[a][e] * df[q][e];
    }
  });

  if (tile.piece >= 0 &&
      !sum_split_pieces<S::kTI * S::kTJ, S::kThreads>(
          p, tile, reinterpret_cast<float(&)[S::kTI * S::kTJ]>(acc)))
    return;

  // Epilogue. Rows past the block row's end (R not a multiple of kTileI) and columns past J are
  // not written.
  const int rows_valid = r_left - i_base;  // valid rows among this thread's kTI
  const int i0 = block_row * p.block_r + r0 + i_base;
#pragma unroll
  for (int q = 0; q < S::kTJ; ++q) {
    const int j = j0 + j_of(q);
    if (kXwt) {
      if (j >= p.cols_j) continue;
      float* out = out_ptr<true>(p, i0, j);
      if constexpr (S::kTI == 4) {
        if (p.y_vec4 && rows_valid >= 4) {  // y_vec4 includes R % 4 == 0, so i0 is a multiple of 4
          epilogue_store4(out, acc[0][q], acc[1][q], acc[2][q], acc[3][q], p.alpha, p.beta);
          continue;
        }
      }
#pragma unroll
      for (int a = 0; a < S::kTI; ++a)
        if (a < rows_valid) epilogue_store(out + a, acc[a][q], p.alpha, p.beta);
    } else if (q % 4 == 0) {  // wx: the group of 4 consecutive columns j .. j + 3
#pragma unroll
      for (int a = 0; a < S::kTI; ++a) {
        if (a >= rows_valid) break;
        float* out = out_ptr<false>(p, i0 + a, j);
        if (p.y_vec4 && j + 3 < p.cols_j) {
          epilogue_store4(out, acc[a][q], acc[a][q + 1], acc[a][q + 2], acc[a][q + 3], p.alpha, p.beta);
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e)
            if (j + e < p.cols_j) epilogue_store(out + e, acc[a][q + e], p.alpha, p.beta);
        }
      }
    }
  }
}

// The schedules dispatch instantiates, by block shape R x C (measured against the candidate schedules
// of sparse/config.hpp's kBsrSchedules: docs/perf-notes.md, BSR section):
using BsrTiled64K32 = BsrTiledSchedule<64, 128, 4, 8, 32, 3>;  // R >= 64, C % 32 == 0
using BsrTiled64 = BsrTiledSchedule<64, 128, 4, 8, 16, 4>;     // R >= 64, other C
using BsrTiled32 = BsrTiledSchedule<32, 128, 4, 8, 16, 4>;     // 32 <= R < 64
using BsrTiled16 = BsrTiledSchedule<16, 256, 4, 8, 16, 3>;     // 16 <= R < 32
using BsrTiled8 = BsrTiledSchedule<8, 256, 2, 8, 8, 4>;        // R < 16

}  // namespace kernels
}  // namespace tilegemm
