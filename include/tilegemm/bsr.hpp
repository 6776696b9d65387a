// Block-sparse matrices in BSR (block compressed sparse row) format: the types, validation,
// conversions to and from dense, transpose, and a random generator for tests and benchmarks.
//
// A rows x cols matrix is cut into R x C blocks (R = block_rows, C = block_cols, any size >= 1;
// 8, 16, 32 and 64 are the fast sizes for the kernels). Only the stored blocks are kept:
//   index_pointer  int32, block_row_count() + 1 entries: the blocks of block row i are
//                  [index_pointer[i], index_pointer[i + 1]); index_pointer[0] = 0, last = nnzb.
//   block_indices  int32, nnzb entries: the block column of each block, strictly increasing within
//                  a block row (sorted, no duplicates).
//   block_data     nnzb * R * C elements: block b is the R x C row-major array starting at
//                  b * R * C; element (r, c) of block b in block row i is the dense element
//                  (i * R + r, block_indices[b] * C + c).
// This is the layout of cuSPARSE's BSR with row-major blocks and of torch.sparse_bsr_tensor.
//
// Products (Y = X * W^T with W BSR [N, K]; Y = W * X with W BSR [M, K]) come with the device
// kernels; their CPU reference is ref::bsr_xwt / ref::bsr_wx (src/ref/bsr_reference.hpp).
//
// Element types: the types are templates over the element type T so that BF16/FP16 blocks slot in
// next to FP32 with the same index arrays; today the functions below exist for float only
// (BsrView / BsrMatrix). Indices stay int32 whatever T is, so the limits are: rows, cols and nnzb
// at most 2^31 - 1. Offsets into block_data (b * R * C) can pass 2^31 and are computed in 64 bits.
#pragma once
#include <cstdint>
#include <vector>

namespace tilegemm {

// Non-owning view of a BSR matrix. The pointers may be host or device pointers: the device BSR
// entry points will take a view and hand the kernels a plain params struct built from it (as the
// dense path does with GemmParams; kernel headers cannot include this header, which uses <vector>).
// validate_bsr() dereferences the pointers, so it needs host pointers; validate_bsr_shape() does
// not, so launchers can check a device view with it.
template <class T>
struct BasicBsrView {
  const T* block_data = nullptr;           // nnzb * block_rows * block_cols elements
  const int32_t* block_indices = nullptr;  // nnzb entries
  const int32_t* index_pointer = nullptr;  // rows / block_rows + 1 entries
  int64_t rows = 0, cols = 0;              // dense shape
  int block_rows = 1, block_cols = 1;      // R x C
  int64_t nnzb = 0;                        // stored blocks

  int64_t block_row_count() const { return block_rows > 0 ? rows / block_rows : 0; }
  int64_t block_col_count() const { return block_cols > 0 ? cols / block_cols : 0; }
};

// Host-owning BSR matrix (members as described at the top of this file). A default-constructed
// BsrMatrix is a valid empty 0 x 0 matrix with 1 x 1 blocks.
// A DeviceBsrMatrix owning device buffers (uploaded from a validated BsrMatrix, exposing a
// BasicBsrView of device pointers) comes with the device kernels.
template <class T>
struct BasicBsrMatrix {
  int64_t rows = 0, cols = 0;          // dense shape
  int block_rows = 1, block_cols = 1;  // R x C
  std::vector<T> block_data;
  std::vector<int32_t> block_indices;
  std::vector<int32_t> index_pointer = {0};

  int64_t block_row_count() const { return block_rows > 0 ? rows / block_rows : 0; }
  int64_t block_col_count() const { return block_cols > 0 ? cols / block_cols : 0; }
  int64_t nnzb() const { return static_cast<int64_t>(block_indices.size()); }

  BasicBsrView<T> view() const {
    BasicBsrView<T> v;
    v.block_data = block_data.data();
    v.block_indices = block_indices.data();
    v.index_pointer = index_pointer.data();
    v.rows = rows;
    v.cols = cols;
    v.block_rows = block_rows;
    v.block_cols = block_cols;
    v.nnzb = nnzb();
    return v;
  }
};

using BsrView = BasicBsrView<float>;
using BsrMatrix = BasicBsrMatrix<float>;

// ---- validation ---------------------------------------------------------------------------------
// All throw tilegemm::Error(InvalidArgument) with a message that names the problem and where, e.g.
// "bsr: rows = 100 is not divisible by block_rows = 16" or
// "bsr: block row 4: column indices not sorted (5 after 6)".

// Shape only, without reading the arrays: block shape >= 1, rows/cols >= 0 and <= 2^31 - 1 and
// divisible by the block shape, 0 <= nnzb <= min(2^31 - 1, number of blocks), non-null pointers
// where entries exist.
void validate_bsr_shape(const BsrView& m);
// Everything: the shape checks, then index_pointer (starts at 0, never decreases, ends at nnzb) and
// block_indices (in range, strictly increasing per block row). Host pointers only.
void validate_bsr(const BsrView& m);
// validate_bsr plus the vector sizes: index_pointer has block_row_count() + 1 entries, block_data
// has nnzb * R * C.
void validate(const BsrMatrix& m);

// ---- conversions --------------------------------------------------------------------------------

// Row-major dense rows x cols (leading dimension ld >= max(cols, 1)) to BSR with R x C blocks,
// keeping every block that holds a non-zero element (NaN counts as non-zero; -0.0 as zero).
BsrMatrix dense_to_bsr(const float* dense, int64_t rows, int64_t cols, int64_t ld, int block_rows,
                       int block_cols);
// The same, keeping exactly the blocks whose mask entry is non-zero, all-zero blocks included.
// block_mask is block_row_count x block_col_count, row-major.
BsrMatrix dense_to_bsr_masked(const float* dense, int64_t rows, int64_t cols, int64_t ld,
                              int block_rows, int block_cols,
                              const std::vector<uint8_t>& block_mask);
// Writes every element of the rows x cols region of `dense` (row-major, ld >= max(cols, 1)):
// the stored blocks, zeros elsewhere. Elements between cols and ld are not touched.
void bsr_to_dense(const BsrMatrix& m, float* dense, int64_t ld);
// The transpose: a cols x rows matrix with C x R blocks, indices sorted.
BsrMatrix bsr_transpose(const BsrMatrix& m);

// ---- generator ----------------------------------------------------------------------------------

enum class RowDistribution {
  Uniform,  // every block row holds floor or ceil of nnzb / block_row_count blocks
  Skewed,   // Zipf: the block row of rank r (ranks in random order) gets a share ~ 1 / (r + 1),
            // capped at block_col_count; a few rows hold many times the mean, most hold less
};

// A random rows x cols BSR matrix with R x C blocks. `sparsity` is the fraction of blocks that are
// absent, in [0, 1]; nnzb = llround((1 - sparsity) * total_blocks) exactly (halves round away from
// zero), so the achieved sparsity is within 0.5 / total_blocks of the request. Column positions are
// uniform without replacement within each block row; values are uniform on a 2^-23 grid in
// [-1, 1) and never zero. Deterministic per seed on every platform: mt19937_64 and integer-only
// arithmetic (no std:: distributions, no floating-point shares).
BsrMatrix generate_bsr(int64_t rows, int64_t cols, int block_rows, int block_cols, double sparsity,
                       RowDistribution distribution, uint64_t seed);

}  // namespace tilegemm
