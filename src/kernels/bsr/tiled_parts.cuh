// Pieces shared by the tiled BSR kernels (03_tiled.cuh on CUDA cores, 04_tiled_tf32x3.cuh on tensor
// cores): the cp.async copiers that stage a K-chunk of W rows and the matching D slice, which output
// tile a thread block owns (longest rows first, split pieces first), the chunk walk over a block
// row's stored blocks, and the split-K partial-tile sum. Both kernels differ only in how a staged
// chunk is multiplied and how the accumulators map to outputs.
//
// A schedule S used with these derives from BsrStageLayout (the shared-memory stages) and adds
// kThreads.
//
// Device code only; compiles under NVRTC.
#pragma once
#include "kernels/bsr/common.cuh"
#include "kernels/common/cp_async.cuh"
#include "kernels/common/split_k.cuh"
#include "kernels/common/tile_copy.cuh"
#include "kernels/common/tile_order.cuh"
#include "kernels/common/pick_type.hpp"

namespace tilegemm {
namespace kernels {

// The shared-memory stages of a tiled schedule: per stage a W chunk [kTileI][kRowStride] and a D
// chunk, xwt [kTileJ][kRowStride] (X rows are k-contiguous), wx [kKC][kDLd] (j-contiguous).
template <int kTileI_, int kTileJ_, int kKC_, int kStages_, int kDLd_>
struct BsrStageLayout {
  static constexpr int kTileI = kTileI_, kTileJ = kTileJ_;  // output tile (i x j)
  static constexpr int kKC = kKC_;                          // K-chunk (columns of a block per stage)
  static constexpr int kStages = kStages_;
  static constexpr int kRowStride = kKC + 4;  // padded k-contiguous rows (W, and D for xwt)
  static constexpr int kDLd = kDLd_;
  static constexpr int kWFloats = kTileI * kRowStride;
  template <bool kXwt>
  __host__ __device__ static constexpr int d_floats() {
    return kXwt ? kTileJ * kRowStride : kKC * kDLd;
  }
  template <bool kXwt>
  __host__ __device__ static constexpr int smem_bytes() {
    return kStages * (kWFloats + d_floats<kXwt>()) * 4;
  }
  static_assert(kStages >= 2, "pipeline needs two stages");
};

// Copies a tile of kRows rows x kInner floats (kInner along the contiguous direction of global
// memory, rows `ld` floats apart) into shared memory rows of kSmemLd floats, kWidth floats per
// cp.async, shared among the threads as kernels/common/tile_copy.cuh lays out (rows wider than the block, the
// 4-byte copies of a wx D slice, take several inner positions per thread). The thread's offset and
// stride are precomputed in 64 bits: per-copy index math made the first version ~40 % non-FMA
// instructions (perf note B7). Elements past rows_left / inner_left are zero-filled.
template <int kRows, int kInner, int kSmemLd, int kThreads, int kWidth>
struct BsrRowCopier {
  using Layout = RowCopyLayout<kRows, kInner, kThreads, kWidth>;
  static constexpr int kInnerCopies = Layout::kInnerCopies, kRowStep = Layout::kRowStep;
  static constexpr int kCopies = Layout::kCopies, kInnerStep = Layout::kInnerStep;

  int inner, row;        // this thread's first element inside the tile
  long long g_offset;    // row * ld + inner
  long long g_step;      // kRowStep * ld
  int s_offset;          // row * kSmemLd + inner

  __device__ __forceinline__ BsrRowCopier(int tid, int ld)
      : inner(Layout::inner_of(tid)), row(Layout::row_of(tid)),
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
      BsrRowCopier<S::kKC, S::kTileJ, S::kDLd, S::kThreads, kWidth>>::type;
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


// The output tile a thread block owns and the stored blocks it walks. A slot is a (block row in
// row_order, row sub-tile) pair. The first p.split_slots slots (the longest rows, see the launcher)
// come first, split into pieces of p.split_piece_blocks blocks (find_split_piece); then the other
// heavy slots (the next longest, up to p.heavy_slots) with all their column tiles one after the
// other; the remaining slots follow column tile by column tile, slot fastest.
struct BsrTileWork {
  int slot, j_tile, j_tiles;
  int piece, pieces;     // piece = -1: the whole row
  long long piece_base;  // pieces of all split slots before this one (partial-tile index)
  int block_row, r0, j0;  // r0: first row of the tile inside the block row
  int first, end;         // stored blocks [first, end)
};
template <int kTileI, int kTileJ>
__device__ __forceinline__ BsrTileWork find_tile_work(const BsrParams& p) {
  BsrTileWork t;
  const int subtiles = (p.block_r + kTileI - 1) / kTileI;
  const int j_tiles = (p.cols_j + kTileJ - 1) / kTileJ;
  t.j_tiles = j_tiles;
  t.piece = -1, t.pieces = 0, t.piece_base = 0;
  if (static_cast<int>(blockIdx.x) < p.split_ctas) {
    const SplitPiece sp = find_split_piece(p, subtiles, j_tiles);
    t.slot = sp.slot, t.j_tile = sp.j_tile, t.piece = sp.piece, t.pieces = sp.pieces;
    t.piece_base = sp.piece_base;
  } else {
    const int id = blockIdx.x - p.split_ctas;
    const int heavy_ctas = (p.heavy_slots - p.split_slots) * j_tiles;
    const TileCoord c = id < heavy_ctas ? row_major_tile(j_tiles, id)
                                        : column_major_tile(p.block_row_count * subtiles - p.heavy_slots,
                                                            id - heavy_ctas);
    t.slot = (id < heavy_ctas ? p.split_slots : p.heavy_slots) + c.m;
    t.j_tile = c.n;
  }
  t.block_row = p.row_order[t.slot / subtiles];
  t.r0 = t.slot % subtiles * kTileI;
  t.j0 = t.j_tile * kTileJ;
  t.first = p.w_rowptr[t.block_row];
  t.end = p.w_rowptr[t.block_row + 1];
  if (t.piece >= 0) {  // blocks [first + piece * B, first + (piece + 1) * B), B = split_piece_blocks
    const int row_end = t.end;
    t.first += t.piece * p.split_piece_blocks;
    t.end = t.first + p.split_piece_blocks < row_end ? t.first + p.split_piece_blocks : row_end;
  }
  return t;
}

// Stages the tile's K-chunks in order, one per load_next() call, into a ring of kStages buffers:
// block b, columns c0.. of it; the block column of b + 1 is loaded one block ahead so the copies
// never wait for it.
template <class S, bool kXwt, bool kVec>
struct BsrChunkStream {
  const BsrTiledCopier<S, kXwt, kVec> copier;
  const float* w_tile;  // row r0 of block 0
  int r_left, j_left, j0;
  long long block_floats;
  int next_b, next_c0, next_stage, end;
  int col_k, col_k_after;
  int chunks;  // K-chunks of the whole tile

  __device__ __forceinline__ BsrChunkStream(const BsrParams& p, const BsrTileWork& t)
      : copier(p, threadIdx.x),
        w_tile(p.w + static_cast<long long>(t.r0) * p.block_c),
        r_left(p.block_r - t.r0), j_left(p.cols_j - t.j0), j0(t.j0),
        block_floats(static_cast<long long>(p.block_r) * p.block_c),
        next_b(t.first), next_c0(0), next_stage(0), end(t.end),
        col_k(t.first < t.end ? p.w_cols[t.first] * p.block_c : 0),
        col_k_after(t.first + 1 < t.end ? p.w_cols[t.first + 1] * p.block_c : 0),
        chunks((t.end - t.first) * ((p.block_c + S::kKC - 1) / S::kKC)) {}

  __device__ __forceinline__ void load_next(const BsrParams& p, float* w_stages, float* d_stages) {
    copier.load(p, w_stages + next_stage * S::kWFloats,
                d_stages + next_stage * S::template d_floats<kXwt>(),
                w_tile + next_b * block_floats + next_c0, r_left, p.block_c - next_c0,
                col_k + next_c0, j0, j_left);
    next_stage = next_stage + 1 == S::kStages ? 0 : next_stage + 1;
    next_c0 += S::kKC;
    if (next_c0 >= p.block_c) {
      next_c0 = 0;
      ++next_b;
      col_k = col_k_after;
      col_k_after = next_b + 1 < end ? p.w_cols[next_b + 1] * p.block_c : 0;
    }
  }
};

// The tile's K-chunks through the shared cp.async pipeline (kernels/common/cp_async.cuh): compute(ws, ds)
// multiplies the staged W chunk and D chunk while the next chunks' copies are in flight. The chunk
// stream fills the stages in ring order, which is the order the pipeline hands them out.
template <class S, bool kXwt, bool kVec, class Compute>
__device__ __forceinline__ void walk_chunks(const BsrParams& p, const BsrTileWork& t,
                                            float* w_stages, float* d_stages, Compute&& compute) {
  BsrChunkStream<S, kXwt, kVec> stream(p, t);
  const int chunks = stream.chunks;
  cp_async_pipeline<S::kStages>(
      chunks, [&](int /*chunk*/, int /*stage*/) { stream.load_next(p, w_stages, d_stages); },
      [&](int /*chunk*/, int stage, int next, int /*next_stage*/) {
        if (next < chunks) stream.load_next(p, w_stages, d_stages);
        compute(w_stages + stage * S::kWFloats, d_stages + stage * S::template d_floats<kXwt>());
      });
}

// Split row: this piece's kAcc accumulators per thread become one slice of the tile's split-K sum
// (kernels/common/split_k.cuh, one level: one counter per tile; the last piece to finish sums all pieces in
// piece order into acc). Returns false in the thread blocks that are not last (they write nothing
// more).
template <int kAcc, int kThreads>
__device__ __forceinline__ bool sum_split_pieces(const BsrParams& p, const BsrTileWork& t,
                                                 float (&acc)[kAcc]) {
  const long long tile_id = static_cast<long long>(t.slot) * t.j_tiles + t.j_tile;
  float* const tile_partials =
      p.split_partials +
      (t.piece_base * t.j_tiles + static_cast<long long>(t.j_tile) * t.pieces) * (kAcc * kThreads);
  return split_k_last_sums<kAcc, kThreads>(acc, tile_partials, p.split_counters + tile_id, t.piece, 0, t.pieces, 1);
}

}  // namespace kernels
}  // namespace tilegemm
