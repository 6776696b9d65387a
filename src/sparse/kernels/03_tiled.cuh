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
// and the last piece to finish sums them in order. Empty block rows still write beta * out. Out-of-range rows, columns and chunk tails are zero-filled by the copies.
#pragma once
#include "common.cuh"
#include "core/cp_async.cuh"
#include "core/pick_type.hpp"

namespace tilegemm {
namespace kernels {

template <int kTileI_, int kTileJ_, int kTI_, int kTJ_, int kKC_, int kStages_>
struct BsrTiledSchedule {
  static constexpr int kTileI = kTileI_, kTileJ = kTileJ_;  // output tile (i x j)
  static constexpr int kTI = kTI_, kTJ = kTJ_;              // outputs per thread
  static constexpr int kKC = kKC_;                          // K-chunk (columns of a block per stage)
  static constexpr int kStages = kStages_;
  static constexpr int kLanesJ = 8, kLanesI = 4;  // a warp is 4 (i) x 8 (j) threads
  static constexpr int kThreadsI = kTileI / kTI, kThreadsJ = kTileJ / kTJ;
  static constexpr int kThreads = kThreadsI * kThreadsJ;
  static constexpr int kWarpsJ = kThreadsJ / kLanesJ;
  static constexpr int kRowStride = kKC + 4;  // padded k-contiguous rows (W, and D for xwt)
  static constexpr int kWFloats = kTileI * kRowStride;
  template <bool kXwt>
  __host__ __device__ static constexpr int d_floats() {
    return kXwt ? kTileJ * kRowStride : kKC * kTileJ;
  }
  template <bool kXwt>
  __host__ __device__ static constexpr int smem_bytes() {
    return kStages * (kWFloats + d_floats<kXwt>()) * 4;
  }

  static_assert(kTileI % kTI == 0 && kTileJ % kTJ == 0, "tile must split into thread tiles");
  static_assert(kThreadsI % kLanesI == 0 && kThreadsJ % kLanesJ == 0, "whole warps");
  static_assert(kTJ % 4 == 0 && kKC % 4 == 0, "128-bit groups along j and k");
  static_assert(kStages >= 2, "pipeline needs two stages");
};

// Copies a tile of kRows rows x kInner floats (kInner along the contiguous direction of global
// memory, rows `ld` floats apart) into shared memory rows of kSmemLd floats, kWidth floats per
// cp.async. Each thread owns one inner position of the rows kRowStep apart, so its whole share is one
// precomputed offset and stride (per-copy index math made the first version ~40 % non-FMA
// instructions: perf note B7). Elements past rows_left / inner_left are zero-filled.
template <int kRows, int kInner, int kSmemLd, int kThreads, int kWidth>
struct BsrRowCopier {
  static constexpr int kPerRow = kInner / kWidth;  // copies per row
  // Rows wider than the block (4-byte copies of a wx D slice) take several inner positions each.
  static constexpr int kThreadsPerRow = kPerRow < kThreads ? kPerRow : kThreads;
  static constexpr int kInnerCopies = kPerRow / kThreadsPerRow;
  static_assert(kInner % kWidth == 0 && kThreads % kThreadsPerRow == 0 &&
                    kPerRow % kThreadsPerRow == 0,
                "each thread must own whole inner positions of whole rows");
  static constexpr int kRowStep = kThreads / kThreadsPerRow;
  static constexpr int kCopies = (kRows + kRowStep - 1) / kRowStep;
  static constexpr int kInnerStep = kThreadsPerRow * kWidth;  // floats between a thread's positions

  int inner, row;        // this thread's first element inside the tile
  long long g_offset;    // row * ld + inner
  long long g_step;      // kRowStep * ld
  int s_offset;          // row * kSmemLd + inner

  __device__ __forceinline__ BsrRowCopier(int tid, int ld)
      : inner(tid % kThreadsPerRow * kWidth), row(tid / kThreadsPerRow),
        g_offset(static_cast<long long>(row) * ld + inner),
        g_step(static_cast<long long>(kRowStep) * ld), s_offset(row * kSmemLd + inner) {}

  // src points at element (row 0, inner 0) of the tile in global memory; `fallback` is any valid
  // address (zero-filling copies read nothing).
  __device__ __forceinline__ void issue(float* tile, const float* src, int rows_left, int inner_left,
                                        const float* fallback) const {
    const float* from = src + g_offset;
#pragma unroll
    for (int q = 0; q < kInnerCopies; ++q) {
      const int left = inner_left - inner - q * kInnerStep;
      const int valid = left <= 0 ? 0 : (left >= kWidth ? kWidth : left);
#pragma unroll
      for (int r = 0; r < kCopies; ++r) {
        const int rr = row + r * kRowStep;
        if (kRows % kRowStep != 0 && rr >= kRows) break;
        const int n = rr < rows_left ? valid : 0;
        float* to = tile + s_offset + r * kRowStep * kSmemLd + q * kInnerStep;
        const float* at = n > 0 ? from + r * g_step + q * kInnerStep : fallback;
        if (kWidth == 4) cp_async_16(to, at, n);
        else cp_async_4(to, at, n > 0);
      }
    }
  }
};

// Stages the K-chunk [c0, c0 + kKC) of a stored block (rows r0 .. r0 + kTileI of the block) and the
// matching D slice (global k = kbase .., output columns j0 .. j0 + kTileJ). With 4-byte copies (kVec
// false) the wx D slice is copied along j by whole warps of consecutive columns.
template <class S, bool kXwt, bool kVec>
struct BsrTiledCopier {
  static constexpr int kWidth = kVec ? 4 : 1;
  using WCopier = BsrRowCopier<S::kTileI, S::kKC, S::kRowStride, S::kThreads, kWidth>;
  // xwt: D rows are output columns j (k-contiguous); wx: D rows are k (j-contiguous).
  using DCopier = typename PickType<kXwt,
      BsrRowCopier<S::kTileJ, S::kKC, S::kRowStride, S::kThreads, kWidth>,
      BsrRowCopier<S::kKC, S::kTileJ, S::kTileJ, S::kThreads, kWidth>>::type;
  WCopier w;
  DCopier d;

  __device__ __forceinline__ BsrTiledCopier(const BsrParams& p, int tid)
      : w(tid, p.block_c), d(tid, p.ldx) {}

  // w_src: element (r0, c0) of the block; c_left: columns of the block from c0 on; r_left: rows of
  // the block from r0 on; j_left: output columns from j0 on.
  __device__ __forceinline__ void load(const BsrParams& p, float* ws, float* ds, const float* w_src,
                                       int r_left, int c_left, int kbase, int j0, int j_left) const {
    w.issue(ws, w_src, r_left, c_left, p.w);
    if (kXwt) d.issue(ds, dense_ptr<true>(p, kbase, j0), j_left, c_left, p.x);
    else d.issue(ds, dense_ptr<false>(p, kbase, j0), c_left, j_left, p.x);
  }
};

// Which split piece a thread block of the split section computes. The section holds, slot after
// slot, j_tiles x pieces(slot) thread blocks (pieces of one column tile adjacent), pieces(slot) =
// ceil(len / split_piece_blocks). Every thread block recomputes the layout: lane l of warp 0 reads
// the lengths of slots 4l .. 4l + 3 (kMaxSplitSlots = 128) and a warp scan finds the slot.
struct SplitPiece {
  int slot, j_tile, piece, pieces;
  long long piece_base;
};
__device__ __forceinline__ SplitPiece find_split_piece(const BsrParams& p, int subtiles, int j_tiles) {
  __shared__ SplitPiece found;
  if (threadIdx.x < 32) {
    const int lane = threadIdx.x;
    int pieces[4];
    int mine = 0;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int s = lane * 4 + e;
      pieces[e] = 0;
      if (s < p.split_slots) {
        const int row = p.row_order[s / subtiles];
        const int len = p.w_rowptr[row + 1] - p.w_rowptr[row];
        pieces[e] = (len + p.split_piece_blocks - 1) / p.split_piece_blocks;
      }
      mine += pieces[e];
    }
    int incl = mine;  // inclusive scan of the per-lane piece counts
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const int v = __shfl_up_sync(0xffffffffu, incl, d);
      if (lane >= d) incl += v;
    }
    // Thread blocks before this lane's slots: (incl - mine) * j_tiles.
    const long long id = blockIdx.x;
    long long before = static_cast<long long>(incl - mine) * j_tiles;
    if (id >= before && id < static_cast<long long>(incl) * j_tiles) {
      long long base = incl - mine;
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const long long count = static_cast<long long>(pieces[e]) * j_tiles;
        if (id >= before && id < before + count) {
          const int within = static_cast<int>(id - before);
          found = SplitPiece{lane * 4 + e, within / pieces[e], within % pieces[e], pieces[e], base};
        }
        before += count;
        base += pieces[e];
      }
    }
  }
  __syncthreads();
  return found;
}

template <class S, bool kXwt, bool kVec>
__global__ void __launch_bounds__(S::kThreads, 1) bsr_tiled(BsrParams p) {
  extern __shared__ float4 smem_f4[];
  float* const smem = reinterpret_cast<float*>(smem_f4);
  float* const w_stages = smem;                               // kStages x kWFloats
  float* const d_stages = smem + S::kStages * S::kWFloats;    // kStages x d_floats

  // Which tile. A slot is a (block row in row_order, row sub-tile) pair. The first p.split_slots
  // slots (the longest rows, see the launcher) come first, split into pieces of p.split_piece_blocks
  // blocks (find_split_piece); then the other heavy slots (the next
  // longest, up to p.heavy_slots) with all their column tiles one after the other; the remaining
  // slots follow column tile by column tile, slot fastest.
  const int subtiles = (p.block_r + S::kTileI - 1) / S::kTileI;
  const int j_tiles = (p.cols_j + S::kTileJ - 1) / S::kTileJ;
  int slot, j_tile, piece = -1, pieces = 0;
  long long piece_base = 0;  // pieces of all split slots before this one (partial-tile index)
  if (static_cast<int>(blockIdx.x) < p.split_ctas) {
    const SplitPiece sp = find_split_piece(p, subtiles, j_tiles);
    slot = sp.slot, j_tile = sp.j_tile, piece = sp.piece, pieces = sp.pieces;
    piece_base = sp.piece_base;
  } else {
    const int id = blockIdx.x - p.split_ctas;
    const int heavy_ctas = (p.heavy_slots - p.split_slots) * j_tiles;
    if (id < heavy_ctas) {
      slot = p.split_slots + id / j_tiles;
      j_tile = id % j_tiles;
    } else {
      const int light = p.block_row_count * subtiles - p.heavy_slots;
      slot = p.heavy_slots + (id - heavy_ctas) % light;
      j_tile = (id - heavy_ctas) / light;
    }
  }
  const int block_row = p.row_order[slot / subtiles];
  const int r0 = slot % subtiles * S::kTileI;  // first row of the tile inside the block row
  const int j0 = j_tile * S::kTileJ;

  int first = p.w_rowptr[block_row], end = p.w_rowptr[block_row + 1];
  if (piece >= 0) {  // blocks [first + piece * B, first + (piece + 1) * B), B = split_piece_blocks
    const int row_end = end;
    first += piece * p.split_piece_blocks;
    end = first + p.split_piece_blocks < row_end ? first + p.split_piece_blocks : row_end;
  }
  const int chunks_per_block = (p.block_c + S::kKC - 1) / S::kKC;
  const int chunks = (end - first) * chunks_per_block;

  // The next chunk to stage, advanced one chunk per call (chunks are staged in order): block b,
  // columns c0.. of it; the block column of b + 1 is loaded one block ahead so the copies never wait
  // for it.
  const BsrTiledCopier<S, kXwt, kVec> copier(p, threadIdx.x);
  const int r_left = p.block_r - r0, j_left = p.cols_j - j0;
  const long long block_floats = static_cast<long long>(p.block_r) * p.block_c;
  int next_b = first, next_c0 = 0, next_stage = 0;
  int col_k = first < end ? p.w_cols[first] * p.block_c : 0;
  int col_k_after = first + 1 < end ? p.w_cols[first + 1] * p.block_c : 0;
  auto load_next_chunk = [&]() {
    const float* w_src = p.w + next_b * block_floats + static_cast<long long>(r0) * p.block_c + next_c0;
    copier.load(p, w_stages + next_stage * S::kWFloats,
                d_stages + next_stage * S::template d_floats<kXwt>(), w_src, r_left,
                p.block_c - next_c0, col_k + next_c0, j0, j_left);
    next_stage = next_stage + 1 == S::kStages ? 0 : next_stage + 1;
    next_c0 += S::kKC;
    if (next_c0 >= p.block_c) {
      next_c0 = 0;
      ++next_b;
      col_k = col_k_after;
      col_k_after = next_b + 1 < end ? p.w_cols[next_b + 1] * p.block_c : 0;
    }
  };

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

#pragma unroll
  for (int s = 0; s < S::kStages - 1; ++s) {
    if (s < chunks) load_next_chunk();
    cp_async_commit();
  }
  for (int t = 0; t < chunks; ++t) {
    cp_async_wait<S::kStages - 2>();
    __syncthreads();  // chunk t has landed for everyone; everyone is done with chunk t - 1's stage
    if (t + S::kStages - 1 < chunks) load_next_chunk();
    cp_async_commit();

    const float* ws = w_stages + (t % S::kStages) * S::kWFloats;
    const float* ds = d_stages + (t % S::kStages) * S::template d_floats<kXwt>();
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
            const float4 v = *reinterpret_cast<const float4*>(ds + (kk + e) * S::kTileJ + j_of(g * 4));
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
  }

  if (piece >= 0) {
    // Split row: store this piece's partial tile (element-major, so the stores coalesce), count the
    // finished pieces, and let the last one sum all pieces in piece order (deterministic) and run
    // the epilogue; it also resets the counter for the next call.
    constexpr int kTileFloats = S::kTI * S::kTJ * S::kThreads;
    const long long tile_id = static_cast<long long>(slot) * j_tiles + j_tile;
    float* const tile_partials =
        p.split_partials + (piece_base * j_tiles + static_cast<long long>(j_tile) * pieces) * kTileFloats;
    float* const mine = tile_partials + static_cast<long long>(piece) * kTileFloats;
#pragma unroll
    for (int a = 0; a < S::kTI; ++a)
#pragma unroll
      for (int q = 0; q < S::kTJ; ++q) mine[(a * S::kTJ + q) * S::kThreads + threadIdx.x] = acc[a][q];
    __threadfence();  // the partial is visible device-wide before the count says so
    __syncthreads();
    __shared__ int is_last;
    if (threadIdx.x == 0) is_last = atomicAdd(p.split_counters + tile_id, 1) == pieces - 1;
    __syncthreads();
    if (!is_last) return;
    __threadfence();
    // Pieces outer, elements inner: each step issues kTI * kTJ independent loads (an element-outer
    // loop serialized one L2 round trip per load: 80 us at 8 pieces).
#pragma unroll
    for (int a = 0; a < S::kTI; ++a)
#pragma unroll
      for (int q = 0; q < S::kTJ; ++q) acc[a][q] = 0.0f;
    for (int pc = 0; pc < pieces; ++pc) {
      const float* part = tile_partials + static_cast<long long>(pc) * kTileFloats + threadIdx.x;
#pragma unroll
      for (int a = 0; a < S::kTI; ++a)
#pragma unroll
        for (int q = 0; q < S::kTJ; ++q) acc[a][q] += __ldcg(part + (a * S::kTJ + q) * S::kThreads);
    }
    if (threadIdx.x == 0) p.split_counters[tile_id] = 0;
  }

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
          float4 v = make_float4(p.alpha * acc[0][q], p.alpha * acc[1][q], p.alpha * acc[2][q],
                                 p.alpha * acc[3][q]);
          if (p.beta != 0.0f) {
            const float4 old = *reinterpret_cast<const float4*>(out);
            v.x += p.beta * old.x, v.y += p.beta * old.y, v.z += p.beta * old.z,
                v.w += p.beta * old.w;
          }
          *reinterpret_cast<float4*>(out) = v;
          continue;
        }
      }
#pragma unroll
      for (int a = 0; a < S::kTI; ++a)
        if (a < rows_valid) store_out(p, out + a, acc[a][q]);
    } else if (q % 4 == 0) {  // wx: the group of 4 consecutive columns j .. j + 3
#pragma unroll
      for (int a = 0; a < S::kTI; ++a) {
        if (a >= rows_valid) break;
        float* out = out_ptr<false>(p, i0 + a, j);
        if (p.y_vec4 && j + 3 < p.cols_j) {
          float4 v = make_float4(p.alpha * acc[a][q], p.alpha * acc[a][q + 1],
                                 p.alpha * acc[a][q + 2], p.alpha * acc[a][q + 3]);
          if (p.beta != 0.0f) {
            const float4 old = *reinterpret_cast<const float4*>(out);
            v.x += p.beta * old.x, v.y += p.beta * old.y, v.z += p.beta * old.z,
                v.w += p.beta * old.w;
          }
          *reinterpret_cast<float4*>(out) = v;
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e)
            if (j + e < p.cols_j) store_out(p, out + e, acc[a][q + e]);
        }
      }
    }
  }
}

// The schedules dispatch instantiates, by block shape R x C (measured against the candidates in
// src/sparse/tiled_candidates.cu: docs/perf-notes.md, BSR section):
using BsrTiled64K32 = BsrTiledSchedule<64, 128, 4, 8, 32, 3>;  // R >= 64, C % 32 == 0
using BsrTiled64 = BsrTiledSchedule<64, 128, 4, 8, 16, 4>;     // R >= 64, other C
using BsrTiled32 = BsrTiledSchedule<32, 128, 4, 8, 16, 4>;     // 32 <= R < 64
using BsrTiled16 = BsrTiledSchedule<16, 256, 4, 8, 16, 3>;     // 16 <= R < 32
using BsrTiled8 = BsrTiledSchedule<8, 256, 2, 8, 8, 4>;        // R < 16

}  // namespace kernels
}  // namespace tilegemm
