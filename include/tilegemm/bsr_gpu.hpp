// Block-sparse x dense products on the GPU: a device-resident BSR matrix and the two products
//   bsr_xwt:  Y = alpha * X * W^T + beta * Y   (X dense m x k, W BSR n x k: a layer whose weight
//                                                is block-sparse, torch's x @ w.t())
//   bsr_wx:   Y = alpha * W * X   + beta * Y   (W BSR m x k, X dense k x n: cuSPARSE's bsrmm)
// Dense operands are row-major device arrays with a leading dimension (elements between rows),
// BLAS semantics: beta == 0 never reads Y (NaN in Y does not leak); alpha == 0, k == 0 or
// nnzb == 0 gives Y = beta * Y without reading X; m == 0 or n == 0 is a no-op.
// Every argument is checked before anything is launched; a bad one throws tilegemm::Error naming
// it, and Y is not touched.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tilegemm/bsr.hpp"
#include "tilegemm/gemm.hpp"  // Stream

namespace tilegemm {

// BSR kernels (src/kernels/bsr/, docs/sparse.md). Auto lets dispatch choose.
enum class BsrKernel : int {
  Auto = 0,
  Reduction = 1,  // 01: the report's kernel: one warp per output element, warp-shuffle reduction
  SmallM = 2,     // 02: one warp per W row computes all (up to 16) dense rows: W streamed once
  Tiled = 3,      // 03: output tiles over one block row, cp.async pipeline, register tiling,
                  //     block rows launched longest first (load balance for skewed rows)
  TiledTf32x3 = 4,  // 04: kernel 03's tiles on tensor cores, FP32 accuracy by 3xTF32 split-precision
                    //     products (each operand split into a TF32 part and its rest; error per
                    //     product about 2^-21 relative, tested to the FP32 kernels' tolerance)
};
inline constexpr int kNumBsrKernels = 4;

std::string to_string(BsrKernel v);
// Accepts the names printed by to_string (case-insensitive) and the kernel number; throws
// tilegemm::Error(InvalidArgument) naming `what` on an unknown value.
BsrKernel parse_bsr_kernel(const std::string& s, const char* what = "kernel");

struct BsrOptions {
  BsrKernel kernel = BsrKernel::Auto;
  // A config in its text form runs exactly that config instead of dispatch's pick (kernel must be
  // Auto), e.g. "bsr-tiled:32x128x16:t4x8:s4", "bsr-tf32x3:16x256x16:w1x4:s3", "bsr-small-m"
  // (docs/sparse.md lists the families and fields). A tiled schedule that is not compiled ahead of
  // time for the product is compiled at run time on first use (docs/tuning.md). An unknown or
  // inapplicable config throws Error(InvalidArgument) naming options.config and why, before
  // anything is launched.
  std::string config;
};

// Element type of the index arrays of DeviceBsrArrays. torch's BSR index tensors (crow_indices,
// col_indices) are int64 by default; the kernels use int32, so Int64 arrays are converted on the
// device (DeviceBsrMatrix::from_device).
enum class IndexType { Int32, Int64 };

// A BSR matrix whose arrays already live in device memory (e.g. a torch.sparse_bsr_tensor's
// crow_indices / col_indices / values), in the layout of BsrMatrix (bsr.hpp). Non-owning.
struct DeviceBsrArrays {
  const float* block_data = nullptr;     // nnzb * block_rows * block_cols floats, row-major blocks
  const void* block_indices = nullptr;   // nnzb entries of index_type
  const void* index_pointer = nullptr;   // rows / block_rows + 1 entries of index_type
  IndexType index_type = IndexType::Int32;
  int64_t rows = 0, cols = 0;
  int block_rows = 1, block_cols = 1;
  int64_t nnzb = 0;
};

// A BSR matrix in device memory (float blocks, int32 indices) prepared for the products: its view
// (blocks, indices, shape) plus the block-row launch order the tiled kernels use (block rows by
// decreasing block count, ties in increasing row order) on the device and the matching block
// counts on the host (the launch planner reads them). Move-only. Three ways to make one:
//
//   DeviceBsrMatrix(host, stream)  uploads a host BsrMatrix (validated with tilegemm::validate; the
//       order is computed on the host). Owns every device array. The copies are enqueued on
//       `stream` (cudaMemcpyAsync) and the constructor synchronizes `stream` before it returns.
//
//   from_device(arrays, stream, validate)  adopts arrays that are already device memory, with no
//       host round trip of blocks or indices. Host-side checks first (shape, null pointers,
//       alignment, device pointers; nothing is launched when they fail), then on `stream`:
//       Int64 indices are converted to int32 arrays this matrix owns; with validate == true a
//       device check of the structure (index_pointer starts at 0, never decreases, ends at nnzb;
//       block indices in [0, block_col_count) and strictly increasing per block row; Int64 values
//       in [0, 2^31 - 1]); the longest-first order (device sort). The block counts come back to
//       the host (block_row_count() ints). The function synchronizes `stream` before it returns.
//       BORROWED: block_data, and with Int32 indices block_indices and index_pointer, are used in
//       place. They must stay allocated and unchanged while this matrix (or a borrow() of it) is
//       used. With validate == false the caller guarantees a valid structure: an invalid one is
//       undefined behaviour in the products (out-of-bounds reads), not an error.
//
//   borrow(view, row_order, lengths)  adopts arrays prepared before by from_device (its view(),
//       row_order() and row_lengths_longest_first(), or copies of them held elsewhere, e.g. by a
//       framework as tensors). Only cheap host checks (shape, null pointers, lengths: one per block
//       row, non-negative, non-increasing, summing to nnzb); no device work; owns nothing, so its
//       destructor frees nothing. Everything it points to must outlive it.
//
// Ordering: every constructor above returns only after its device work (copies, conversion, checks,
// sort) has finished and after all earlier work on `stream`, so the matrix can be used at once on
// any stream. Arrays the caller wrote on another stream must be complete (or ordered before
// `stream`) when from_device is called. `stream` == nullptr is the legacy default stream; a given
// stream is the only stream used (no implicit legacy-stream work besides cudaMalloc/cudaFree of the
// owned arrays, which the destructor frees with cudaFree).
//
// Errors: tilegemm::Error(InvalidArgument) naming the argument, e.g.
//   "DeviceBsrMatrix::from_device: arrays.rows = 60 is not divisible by arrays.block_rows = 16"
//   "DeviceBsrMatrix::from_device: arrays.block_data is a host pointer; tilegemm needs device memory"
//   "DeviceBsrMatrix::from_device: arrays.index_pointer[0] = 1, must be 0"
//   "DeviceBsrMatrix::from_device: arrays.block_indices[9] (block row 4): column indices not sorted (2 after 3)"
// A failed call leaves nothing allocated. A default-constructed DeviceBsrMatrix is an empty 0 x 0
// matrix.
class DeviceBsrMatrix {
 public:
  DeviceBsrMatrix() = default;
  explicit DeviceBsrMatrix(const BsrMatrix& host, Stream stream = nullptr);
  static DeviceBsrMatrix from_device(const DeviceBsrArrays& arrays, Stream stream = nullptr,
                                     bool validate = true);
  static DeviceBsrMatrix borrow(const BsrView& view, const int32_t* row_order,
                                std::vector<int32_t> row_lengths_longest_first);
  ~DeviceBsrMatrix();
  DeviceBsrMatrix(DeviceBsrMatrix&& other) noexcept;
  DeviceBsrMatrix& operator=(DeviceBsrMatrix&& other) noexcept;
  DeviceBsrMatrix(const DeviceBsrMatrix&) = delete;
  DeviceBsrMatrix& operator=(const DeviceBsrMatrix&) = delete;

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  int block_rows() const { return block_rows_; }
  int block_cols() const { return block_cols_; }
  int64_t nnzb() const { return nnzb_; }
  int64_t block_row_count() const { return rows_ / block_rows_; }
  // The most blocks any block row holds (0 when nnzb == 0).
  int64_t max_row_blocks() const { return row_lengths_.empty() ? 0 : row_lengths_.front(); }

  // What this object frees: the blocks (true only for the host constructor); the int32 index
  // arrays (host constructor, and from_device with Int64 indices: the converted copies, valid
  // while this object lives); row_order() is owned except by borrow().
  bool owns_blocks() const { return owns_blocks_; }
  bool owns_indices() const { return owns_indices_; }

  // Device pointers (block_data, block_indices, index_pointer: int32) and the shape.
  BsrView view() const;
  // block_row_count() entries: the block rows, longest first (ties in increasing row order).
  const int32_t* row_order() const { return row_order_; }
  // Host copy of the block counts of those rows, in the same order (non-increasing).
  const std::vector<int32_t>& row_lengths_longest_first() const { return row_lengths_; }
  // Copies back to the host whatever view() points to (synchronous, legacy default stream).
  BsrMatrix to_host() const;

 private:
  void release() noexcept;
  void set_shape(const BsrView& v);
  int64_t rows_ = 0, cols_ = 0;
  int block_rows_ = 1, block_cols_ = 1;
  int64_t nnzb_ = 0;
  const float* block_data_ = nullptr;
  const int32_t* block_indices_ = nullptr;
  const int32_t* index_pointer_ = nullptr;
  const int32_t* row_order_ = nullptr;
  bool owns_blocks_ = false, owns_indices_ = false, owns_row_order_ = false;
  std::vector<int32_t> row_lengths_;
};

// Y = alpha * X * W^T + beta * Y.
//   X: m x k row-major, ldx >= max(k, 1).  W: BSR n x k.  Y: m x n row-major, ldy >= max(n, 1).
void bsr_xwt(int64_t m, int64_t n, int64_t k, float alpha, const float* x, int64_t ldx,
             const DeviceBsrMatrix& w, float beta, float* y, int64_t ldy, Stream stream = nullptr,
             const BsrOptions& options = {});

// Y = alpha * W * X + beta * Y.
//   W: BSR m x k.  X: k x n row-major, ldx >= max(n, 1).  Y: m x n row-major, ldy >= max(n, 1).
void bsr_wx(int64_t m, int64_t n, int64_t k, float alpha, const DeviceBsrMatrix& w, const float* x,
            int64_t ldx, float beta, float* y, int64_t ldy, Stream stream = nullptr,
            const BsrOptions& options = {});

// The argument checks the products perform that need no device (sizes against W's shape, leading
// dimensions, null pointers, overlap of Y with X, 32-bit index range). Throw tilegemm::Error.
void check_bsr_xwt_args(int64_t m, int64_t n, int64_t k, const float* x, int64_t ldx,
                        const BsrView& w, const float* y, int64_t ldy);
void check_bsr_wx_args(int64_t m, int64_t n, int64_t k, const BsrView& w, const float* x,
                       int64_t ldx, const float* y, int64_t ldy);

}  // namespace tilegemm
