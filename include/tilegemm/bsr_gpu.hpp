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

// BSR kernels (src/sparse/kernels/, docs/sparse.md). Auto lets dispatch choose.
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
  // Experiment knob for the tiled kernels (what `tilegemm bench --sparse --schedules` measures),
  // used when the kernel is Tiled or TiledTf32x3 (or Auto picks one of them); the candidate's name
  // says which kernel it runs ("tf32x3_..." = 04, the others 03):
  // 0 = the schedule dispatch picks by block height; i >= 1 = the i-th of
  // bsr_tiled_schedule_names(), compiled only for bsr_xwt with 16-byte aligned X (ldx % 4 == 0)
  // and block_cols % 4 == 0 (anything else throws InvalidArgument).
  int tiled_schedule = 0;
};

// Names of the extra tiled-kernel schedules, e.g. "32x128x16_t4x8_s4" (tile i x j x K-chunk,
// outputs per thread, pipeline stages).
std::vector<std::string> bsr_tiled_schedule_names();

// A BSR matrix in device memory (float blocks), uploaded from a host BsrMatrix. Move-only; owns its
// device arrays. Construction validates the host matrix (tilegemm::validate) and copies it
// synchronously, together with the block-row launch order the tiled kernel uses (block rows by
// decreasing block count). A default-constructed DeviceBsrMatrix is an empty 0 x 0 matrix.
class DeviceBsrMatrix {
 public:
  DeviceBsrMatrix() = default;
  explicit DeviceBsrMatrix(const BsrMatrix& host);
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

  // Device pointers (block_data, block_indices, index_pointer) and the shape.
  BsrView view() const;
  // block_row_count() entries: the block rows, longest first (ties in increasing row order).
  const int32_t* row_order() const { return row_order_; }
  // Host copy of the block counts of those rows, in the same order (non-increasing).
  const std::vector<int32_t>& row_lengths_longest_first() const { return row_lengths_; }
  // Copies back to the host (synchronous).
  BsrMatrix to_host() const;

 private:
  void release() noexcept;
  int64_t rows_ = 0, cols_ = 0;
  int block_rows_ = 1, block_cols_ = 1;
  int64_t nnzb_ = 0;
  float* block_data_ = nullptr;
  int32_t* block_indices_ = nullptr;
  int32_t* index_pointer_ = nullptr;
  int32_t* row_order_ = nullptr;
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
