// The canonical problem every dense kernel receives. A plain struct shared by host and device code
// (no includes, so kernel headers stay NVRTC-compilable).
#pragma once

namespace tilegemm {
namespace kernels {

// Every call is reduced by the host launcher to one canonical row-major problem:
//   C[m][n] = alpha * sum_k a(m, k) * b(k, n) + beta * C[m][n]
//   a(m, k) = TransA ? A[k * lda + m] : A[m * lda + k]
//   b(k, n) = TransB ? B[n * ldb + k] : B[k * ldb + n]
// Sizes and leading dimensions fit in int (check_gemm_args); offsets row * ld are formed in 64 bits,
// since a matrix may span more than 2^31 elements.
struct GemmParams {
  int m, n, k;
  float alpha, beta;
  const float* a;
  int lda;
  const float* b;
  int ldb;
  float* c;
  int ldc;
  int raster;      // Raster enum value, used by the tiled levels
  int c_vec4;      // 1 when C rows may be written with 16-byte stores (ldc % 4 == 0, C 16-B aligned)
  int c_vec8;      // 1 when C rows start at 32-byte boundaries (ldc % 8 == 0, C 32-B aligned)
};

// Tile scheduling of the split-K / stream-K kernel (split_tiled.cuh). Tiles are numbered in the
// raster order of p.raster. Tiles [0, dp_tiles) are computed whole, one thread block each ("data
// parallel"); every later tile is cut into `splits` slices of slice_k_tiles K-tiles (the last one
// may be shorter), one thread block each, summed by kernels/common/split_k.cuh. dp_tiles = all tiles is the
// plain tiled kernel; dp_tiles = 0 is split-K; whole waves of data-parallel tiles followed by split
// tiles is the stream-K-style hybrid that fills the last wave.
struct SplitTileParams {
  int dp_tiles;
  int splits;
  int slice_k_tiles;
  int group;            // split_k_reduce's slices per first-level group
  float* partials;      // (tiles - dp_tiles) x splits x BM * BN floats
  unsigned* counters;   // (tiles - dp_tiles) x split_k_counters(splits, group)
  int operands_packed;  // A or B was packed by the prologue: wait for it before the main loop
};

// The GEMV-class problem (one output dimension <= 16): C(s, l) = alpha * sum_k W(l, k) * X(s, k) +
// beta * C(s, l) for s < s_count, l < l_count. The long operand W is read once; the short operand
// X (s_count x k) is staged through shared memory.
//   rows kernel (W contiguous along k):    W(l, k) = w[l * ldw + k]
//   columns kernel (W contiguous along l): W(l, k) = w[k * ldw + l]
//   X(s, k) = x[s * x_s + k * x_k],  C(s, l) = c[s * c_s + l * c_l]
// K is cut into `splits` slices of slice_k elements (a multiple of the kernel's chunk), summed by
// kernels/common/split_k.cuh when splits > 1. x_shift_step: 0, or X packed by the prologue as four copies
// (gemv_rows_staged.cuh behind unaligned W), copy j's X(s, k) at x[j * x_shift_step + s * x_s + k],
// each copy's rows j floats past a 16-byte boundary.
struct GemvParams {
  int s_count, l_count, k;
  float alpha, beta;
  const float* w;
  int ldw;
  const float* x;
  int x_s, x_k;
  float* c;
  int c_s, c_l;
  int splits, slice_k, group;
  float* partials;
  unsigned* counters;
  long long x_shift_step;
};

// An operand packed before a product (prologue.cuh): dst is rows x cols, row-major with leading
// dimension ld_dst (a multiple of 4, 16-byte aligned), dst(r, c) = src[r * ld_src + c], or
// src[c * ld_src + r] for a transposed source; written `copies` times, copy j at dst + j * copy_step
// (copy_step a multiple of 4, plus 1: each copy one float further past a 16-byte boundary).
constexpr int kPackTile = 32;  // the packing kernel's square tile
struct PackParams {
  const float* src;
  int ld_src;
  float* dst;
  int ld_dst;
  int rows, cols;
  int col_tiles;  // ceil(cols / kPackTile): the grid is one block per tile, column tiles fastest
  int copies;
  long long copy_step;
};

// The prologue kernel of a call (prologue.cuh): counter_words counters zeroed, a_tiles tiles of A's
// packed copy and b_tiles of B's (0: that operand is not packed); a source marked transposed holds
// the packed matrix's columns as its rows.
struct PrologueParams {
  PackParams a, b;
  int a_tiles, b_tiles;
  int a_transposed, b_transposed;
  unsigned* counters;
  long long counter_words;
};

}  // namespace kernels
}  // namespace tilegemm
