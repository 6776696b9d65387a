// The cuSPARSE baseline of `tilegemm bench bsr`: cusparseSpMM with CUSPARSE_SPMM_BSR_ALG1 over
// the bench's own buffers (the same BSR arrays our kernels read, the same X and Y).
//
// What BSR_ALG1 accepts (cuSPARSE 12.x: the library's own error messages and docs): opA = NON_TRANSPOSE
// only, blocks stored row-major (CUSPARSE_ORDER_ROW for the BSR descriptor), square blocks only
// (rowBlockSize == colBlockSize), FP32 with CUDA_R_32F compute; the dense B and C may each be row- or
// column-major, and opB may be N or T. So the two products map onto it without copying anything:
//   wx  (Y = W X):   C = Y as M x N row-major (ld N), B = X as K x N row-major (ld N), opB = N.
//   xwt (Y = X W^T): Y^T = W X^T. Y row-major M x N is Y^T column-major N x M (ld N) and X row-major
//                    M x K is X^T column-major K x M (ld K): C = Y^T column-major, B = X^T
//                    column-major, opB = N.
// Each product has a second formulation over the same memory (opB = T on the other view of X), tried
// when the first is rejected; the row's note says which one ran. Non-square blocks are refused without
// asking cuSPARSE (it would print its refusal on stderr).
// Measured on an H100 with cuSPARSE 12.6 (CUDA 13): the first formulation is accepted for both products
// and every square block size of the presets (8, 16, 32, 64).
#pragma once
#include <cusparse.h>

#include <string>

#include "core/device_buffer.hpp"
#include "bsr_options.hpp"
#include "tilegemm/bsr.hpp"
#include "tilegemm/error.hpp"

// Every cuSPARSE call goes through this: a failure becomes tilegemm::Error(CusparseError) with file:line,
// the call, the status and cuSPARSE's own explanation when its logger gave one.
#define TILEGEMM_CUSPARSE_CHECK(expr)                                                                     \
  do {                                                                                                    \
    const cusparseStatus_t tilegemm_st_ = (expr);                                                         \
    if (tilegemm_st_ != CUSPARSE_STATUS_SUCCESS)                                                          \
      ::tilegemm::tools::throw_cusparse(tilegemm_st_, #expr, __FILE__, __LINE__);                         \
  } while (0)

namespace tilegemm {
namespace tools {

// "CUSPARSE_STATUS_NOT_SUPPORTED (operation not supported)", plus ": <cuSPARSE's log message>" when
// the logger reported one since the last clear_cusparse_log().
std::string cusparse_status_text(cusparseStatus_t st);
[[noreturn]] void throw_cusparse(cusparseStatus_t st, const char* expr, const char* file, int line);
void clear_cusparse_log();

// One cuSPARSE handle on bench_stream() (harness.hpp) with cuSPARSE's error log captured for the
// messages above.
class Cusparse {
 public:
  Cusparse();
  ~Cusparse();
  Cusparse(const Cusparse&) = delete;
  Cusparse& operator=(const Cusparse&) = delete;
  cusparseHandle_t handle() const { return handle_; }

 private:
  cusparseHandle_t handle_ = nullptr;
};

// Y = X * W^T (xwt) or Y = W * X (wx) with alpha 1, beta 0, through cusparseSpMM + BSR_ALG1.
// Construction does everything outside the timed region: the descriptors, the buffer-size query, the
// workspace, cusparseSpMM_preprocess, and one trial product; a formulation cuSPARSE rejects at any of
// those steps is dropped for the next. When none is accepted, unsupported() says why (the row is
// "skipped: cuSPARSE: ..."); errors other than rejections (CUDA failures, out of memory) throw.
class CusparseBsrProduct {
 public:
  CusparseBsrProduct(const Cusparse& cs, SparseOp op, int64_t m, int64_t n, int64_t k, const BsrView& w,
                     const float* x, float* y);
  ~CusparseBsrProduct();
  CusparseBsrProduct(const CusparseBsrProduct&) = delete;
  CusparseBsrProduct& operator=(const CusparseBsrProduct&) = delete;

  const std::string& unsupported() const { return why_not_; }  // empty when run() can be called
  const std::string& formulation() const { return formulation_; }
  size_t workspace_bytes() const { return workspace_.size(); }
  // One product on the handle's stream, bench_stream() (asynchronous); every status checked. It is the
  // one cusparseSpMM call, with the workspace allocated and preprocessed at construction, so nothing in
  // it allocates, copies or synchronizes (cuSPARSE documents SpMM as capturable into a CUDA graph).
  void run();

 private:
  void setup(SparseOp op, int64_t m, int64_t n, int64_t k, const BsrView& w, const float* x, float* y);
  void release() noexcept;
  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t a_ = nullptr;
  cusparseDnMatDescr_t b_ = nullptr, c_ = nullptr;
  cusparseOperation_t op_b_ = CUSPARSE_OPERATION_NON_TRANSPOSE;
  // alpha and beta (host pointer mode), kept for the object's life rather than on run()'s stack: a
  // call captured into a CUDA graph should not leave the graph holding an address that is gone.
  const float one_ = 1.0f, zero_ = 0.0f;
  DeviceBuffer<char> workspace_;
  std::string why_not_, formulation_;
};

}  // namespace tools
}  // namespace tilegemm
