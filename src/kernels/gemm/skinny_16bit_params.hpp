// The parameters of the 16-bit skinny tensor-core kernel (skinny_16bit.cuh), shared with its host
// launcher (ops/families/skinny16).
#pragma once
#include "kernels/common/fused_epilogue.hpp"
#include "kernels/common/host_device.hpp"

namespace tilegemm {
namespace kernels {

// The block's shape, shared by the kernel and its host launcher: kSkinny16Warps warps of 16 lines of
// W each, stages of kSkinny16K k, kSkinny16Stages deep; X rows in groups of 8 (the n8 side of the
// mma), 1 or 2 groups per instantiation (the kernel takes 4 and 8 as well). A block's rate is about one
// stage per barrier round, so stages of 128 k beat 64 (1 x 4096 x 14336: 31 against 36 us); 8 warps
// or deeper pipelines of 64 k did not help (perf note #78).
constexpr int kSkinny16Warps = 4;
constexpr int kSkinny16Threads = 32 * kSkinny16Warps;
constexpr int kSkinny16Lines = 16 * kSkinny16Warps;
constexpr int kSkinny16K = 128;
constexpr int kSkinny16Stages = 4;
TILEGEMM_HOST_DEVICE constexpr int skinny16_stage_bytes(int row_groups) {
  return (kSkinny16Lines + 8 * row_groups) * kSkinny16K * 2;
}
TILEGEMM_HOST_DEVICE constexpr int skinny16_smem_bytes(int row_groups) {
  return kSkinny16Stages * skinny16_stage_bytes(row_groups);
}

// How the kernel stages the short operand X: 16-byte copies along k (rows of X 16-byte aligned, or
// a single row at a 16-byte aligned address), 16-byte copies along the rows (X(row, k) contiguous in
// row, every k's rows 16-byte aligned), or element by element through registers (any strides).
enum class Skinny16X : int { KMajor = 0, RowMajor = 1, Strided = 2 };

struct Skinny16Params {
  const void* w;       // the long operand: W(line, k) at line * w_line + k * w_k elements
  const void* x;       // the short operand: X(row, k) at row * x_row + k * x_k
  void* c;             // C(row, line) at row * c_row + line * c_col
  long long w_line, w_k, x_row, x_k, c_row, c_col;
  int rows, lines, k;
  int splits, k_per_split;  // splits: the cluster size (at most 8); k_per_split: a multiple of 64
  Skinny16X x_form;
  float alpha, beta;  // beta == 0: C is not read
  // Then the bias (kBiasRow: one per row of X, kBiasColumn: per line of W) and the activation.
  FusedEpilogue epi;
};

}  // namespace kernels
}  // namespace tilegemm
