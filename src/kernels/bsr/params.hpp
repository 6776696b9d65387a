// What every BSR kernel receives: one block-sparse x dense product in a single orientation-free form.
//
//   out(i, j) = alpha * sum_k W(i, k) * D(k, j) + beta * out(i, j)
//
// W is the BSR matrix (rows_i x depth_k, R x C blocks), D the dense operand (depth_k x cols_j) and
// out the result (rows_i x cols_j). Both public products map onto it over the same memory:
//   bsr_wx  (Y = W X):    D(k, j) = x[k * ldx + j],  out(i, j) = y[i * ldy + j]   (kXwt = false)
//   bsr_xwt (Y = X W^T):  D(k, j) = x[j * ldx + k],  out(i, j) = y[j * ldy + i]   (kXwt = true)
// (Y^T = W X^T), so i runs over W's rows and j over the dense batch (X's rows for xwt).
// Kernels take the orientation as a template flag (kXwt) because it decides which index of D and
// out is contiguous in memory.
//
// Includes nothing: shared by host launchers and device code, compiles under NVRTC.
#pragma once

namespace tilegemm {
namespace kernels {

constexpr int kMaxSplitSlots = 128;

struct BsrParams {
  int rows_i = 0, cols_j = 0, depth_k = 0;  // I, J, K
  int block_r = 1, block_c = 1;             // R x C
  int block_row_count = 0;                  // I / R
  const float* w = nullptr;                 // block_data: block b is R x C row-major at b * R * C
  const int* w_cols = nullptr;              // block column of each block
  const int* w_rowptr = nullptr;            // blocks of block row r: [w_rowptr[r], w_rowptr[r + 1])
  const int* row_order = nullptr;           // block rows, longest first (DeviceBsrMatrix)
  int heavy_slots = 0;  // tiled kernel: (block row, row sub-tile) slots launched first (03_tiled.cuh)
  // Tiled kernel split-K: the first split_slots slots (a prefix of the heavy ones, at most
  // kMaxSplitSlots) are cut into pieces of split_piece_blocks stored blocks (the last piece of a row
  // may be shorter); split_ctas thread blocks in all. Each piece writes a partial tile to
  // split_partials and the last piece of a tile to finish (split_counters, left zero again) sums
  // them in order.
  int split_slots = 0, split_piece_blocks = 1, split_ctas = 0;
  float* split_partials = nullptr;
  unsigned* split_counters = nullptr;  // one per split tile (kernels/common/split_k.cuh, one group)
  const float* x = nullptr;
  int ldx = 0;
  float* y = nullptr;
  int ldy = 0;
  float alpha = 1.0f, beta = 0.0f;
  // 16-byte vector access is possible: x (and ldx), y (and ldy) aligned; C % 4 == 0 for W rows.
  bool x_vec4 = false, y_vec4 = false, w_vec4 = false;
};

}  // namespace kernels
}  // namespace tilegemm
