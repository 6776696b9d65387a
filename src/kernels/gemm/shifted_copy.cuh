// Copies of an operand whose rows are not 16-byte aligned (a leading dimension that is not a
// multiple of 4, or a pointer offset by 1-3 floats), 16 bytes at a time all the same: each row of a
// tile is copied as its 16-byte aligned superset, one chunk longer, and lands in shared memory
// shifted by its misalignment. Level 7 reads its fragments at that shift (row_shift) and copies
// unaligned operands this way rather than one float per cp.async: 4x fewer copies (64x128x32
// tiles: 14 per thread per K-tile instead of 48), at the price of fragment reads that may hit a
// bank twice where rows are shifted against each other by 0-3 floats (07_mma_tf32x3.cuh says
// which tiles spread their columns against that, and which keep 4-byte copies).
//
// - A row's misalignment delta (0-3 floats) is fixed by its index mod 4: tile origins and K-tiles
//   are multiples of 8, so element (row, i0 + x) of the tile sits at shared row * kLd + delta + x
//   for every K-tile, and a lane that reads rows of one index mod 4 adds one shift to its tile.
//   Rows that land 4 floats in (kMatch32, below) sit at their shift mod 8 instead: fixed by the
//   row's index mod 8.
// - The aligned superset of a row starts up to 3 floats before it (the row before it, or, for the
//   operand's first row, bytes of the same 16-byte chunk as its first element, never another
//   allocation's). It ends at the row's last element: the extra chunk copies only the delta floats
//   that belong to the tile (its source size), so no copy reads past the operand.
// - Elements outside the operand are zero-filled by the copies' source size, as TileCopier does.
//
// Device code only: compiles with nvcc and with NVRTC (-I src).
#pragma once
#include "kernels/common/cp_async.cuh"
#include "kernels/common/tile_copy.cuh"

namespace tilegemm {
namespace kernels {

// Floats an address lies past its kAlign-float boundary (kAlign 4: 16 bytes, 8: 32 bytes).
template <int kAlign = 4>
__device__ __forceinline__ int floats_past(const float* p) {
  return static_cast<int>((reinterpret_cast<unsigned long long>(p) >> 2) & (kAlign - 1));
}

// The shift of row `row` of an operand at src with leading dimension ld: where its element at a
// multiple-of-kAlign position lies past a kAlign-float boundary. Depends only on row mod kAlign
// (unsigned: rows past the operand's end wrap harmlessly).
template <int kAlign = 4>
__device__ __forceinline__ int row_shift(const float* src, int ld, int row) {
  return static_cast<int>((static_cast<unsigned>(floats_past<kAlign>(src)) + static_cast<unsigned>(row) *
                           static_cast<unsigned>(ld)) & static_cast<unsigned>(kAlign - 1));
}

__device__ __forceinline__ int clamp_floats(int n) { return n < 0 ? 0 : (n > 4 ? 4 : n); }

// TileCopier's interface (issue, interior_base, issue_interior_group) for unaligned operands; the
// same tile shapes and shared row lengths kLd. Every row of a tile is copied from the 16-byte
// boundary before it, one chunk longer than TileCopier's: kOuter extra chunks, one per thread from
// thread kExtraFirst on (the two operands give theirs to different threads where the block has
// enough, so no thread copies two).
// kMatch32 (rows of kInner + 8 floats, [k][col] tiles): a row whose copy starts 16 bytes past a
// 32-byte boundary lands 4 floats into its shared row, so that every chunk sits at the same offset
// within 32 bytes in global and in shared memory. A 16-byte cp.async whose two addresses differ
// there is slow on the H100: B offset by 5 floats (copies from 16 bytes past a boundary, landing
// at one) ran the 64x128 tile on 1024^3 in 50.6 us, offset by 1 (both at a boundary) in 47.0,
// aligned 46.2 (2026-11-26). Element (row, x) of such a tile then sits at row * kLd + the row's
// shift mod 8 + x (rows k and k + 4 of a fragment read may differ).
template <int BK, int kCols, int kThreads, bool kContigK, int LD, int kExtraFirst = 0, bool kMatch32 = false>
struct ShiftedRowCopier {
  static constexpr int kLd = LD;  // floats of a shared row
  static constexpr int kInner = kContigK ? BK : kCols;  // floats of a tile row along the contiguous direction
  static constexpr int kOuter = kContigK ? kCols : BK;
  static constexpr int kAlign = kMatch32 ? 8 : 4;  // rows' shifts are taken mod kAlign
  using Layout = RowCopyLayout<kOuter, kInner, kThreads, 4>;
  static_assert(Layout::kInnerCopies == 1, "each thread must own one inner position of whole rows");
  static constexpr int kRowStep = Layout::kRowStep;
  static_assert(kOuter % kRowStep == 0 && kRowStep % 4 == 0, "a thread's rows are 4k apart: at most two shifts");
  // A thread's rows take one shift where they are kAlign apart, else two, alternating.
  static constexpr int kShifts = kRowStep % kAlign == 0 ? 1 : 2;
  static_assert(kLd >= kInner + kAlign, "a shared row holds its landing offset and extra chunk");
  static_assert(!kMatch32 || (kLd % 8 == 0 && (BK * kLd) % 8 == 0), "shared rows start at 32-byte boundaries");
  static_assert(kExtraFirst >= 0 && kExtraFirst + kOuter <= kThreads, "one thread per row's extra chunk");
  static constexpr int kCopies = Layout::kCopies;

  int inner, outer, smem_offset;
  int extra_row;  // the tile row whose extra chunk this thread copies, or -1

  __device__ __forceinline__ explicit ShiftedRowCopier(int thread)
      : inner(Layout::inner_of(thread)), outer(Layout::row_of(thread)), smem_offset(outer * kLd + inner),
        extra_row(thread >= kExtraFirst && thread < kExtraFirst + kOuter ? thread - kExtraFirst : -1) {}

  // A valid 16-byte aligned address for copies of source size 0.
  __device__ __forceinline__ static const float* dummy(const float* src) { return src - floats_past<4>(src); }
  // Where a row of shift `shift` (mod kAlign) lands in its shared row, and where its copy starts
  // before its element at a multiple-of-4 position.
  __device__ __forceinline__ static int landing(int shift) { return shift & 4; }
  __device__ __forceinline__ static int lead(int shift) { return shift & 3; }

  // The shift of this thread's rows r = q, q + 2, ... (q < kShifts) and of its extra chunk's row:
  // tile origins and K-tiles are multiples of 8, so they depend only on the rows' places in the
  // tile (the same every K-tile).
  __device__ __forceinline__ int rows_shift(const float* src, int ld, int q) const {
    return row_shift<kAlign>(src, ld, outer + q * kRowStep);
  }
  __device__ __forceinline__ int extra_shift(const float* src, int ld) const {
    return extra_row >= 0 ? row_shift<kAlign>(src, ld, extra_row) : 0;
  }

  __device__ __forceinline__ void issue(float* tile, const float* src, int ld, int k0, int c0, int k_size,
                                        int col_size) const {
    const int i0 = kContigK ? k0 : c0, o0 = kContigK ? c0 : k0;
    const int size = kContigK ? k_size : col_size, rows = kContigK ? col_size : k_size;
    const int g_outer = o0 + outer;
    const int outer_left = rows - g_outer;
#pragma unroll
    for (int r = 0; r < kCopies; ++r) {
      const int shift = rows_shift(src, ld, r % kShifts);
      const int start = i0 + inner - lead(shift);  // the chunk's first element in the row
      const int n = r * kRowStep < outer_left ? clamp_floats(size - start) : 0;
      cp_async_16(tile + smem_offset + r * kRowStep * kLd + landing(shift),
                  n > 0 ? src + ((g_outer + r * kRowStep) * ld + start) : dummy(src), n);
    }
    // The extra chunk holds the row's last `lead` floats of the tile (none without one), zeros past
    // the operand: a [k][col] row past K must read as zeros to its last column, or two such
    // operands multiply stale values.
    const int shift = extra_shift(src, ld), row = o0 + extra_row, floats = lead(shift);
    if (floats > 0) {
      const int extra_start = i0 + kInner - floats;
      const int n = row < rows ? clamp_floats(size - extra_start < floats ? size - extra_start : floats) : 0;
      cp_async_16(tile + extra_row * kLd + landing(shift) + kInner, n > 0 ? src + (row * ld + extra_start) : dummy(src),
                  n);
    }
  }

  // An interior tile on a whole K-tile (TileCopier::interior_base): where this thread's rows start
  // (rows r = q, q + 2, ... from rows[q]) and land, and the extra chunk's.
  struct Interior {
    const float* rows[kShifts];
    int lands[kShifts];
    const float* extra;
    int extra_floats;  // 0: no extra chunk to copy
    int extra_land;
  };
  static constexpr int kGroups = kCopies + 1;  // the rows, then the extra chunk
  __device__ __forceinline__ Interior interior_base(const float* src, int ld, int k0, int c0) const {
    const int i0 = kContigK ? k0 : c0, o0 = kContigK ? c0 : k0;
    const int shift = extra_shift(src, ld), floats = lead(shift);
    Interior b;
#pragma unroll
    for (int q = 0; q < kShifts; ++q) {
      const int s = rows_shift(src, ld, q);
      b.rows[q] = src + ((o0 + outer + q * kRowStep) * ld + i0 + inner - lead(s));
      b.lands[q] = landing(s);
    }
    b.extra = src + (floats > 0 ? (o0 + extra_row) * ld + i0 + kInner - floats : 0);  // not read without a lead
    b.extra_floats = floats;
    b.extra_land = landing(shift);
    return b;
  }
  __device__ __forceinline__ void issue_interior_group(float* tile, const Interior& base, int ld, int r) const {
    if (r < kCopies) {
      const int q = r % kShifts;
      cp_async_16(tile + smem_offset + r * kRowStep * kLd + base.lands[q], base.rows[q] + (r - q) * kRowStep * ld, 4);
    } else if (base.extra_floats > 0) {
      cp_async_16(tile + extra_row * kLd + base.extra_land + kInner, base.extra, base.extra_floats);
    }
  }
};

}  // namespace kernels
}  // namespace tilegemm
