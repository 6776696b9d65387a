#include "cusparse.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "core/cuda_check.hpp"
#include "profiler/harness.hpp"  // bench_stream()

namespace tilegemm {
namespace tools {

namespace {

// cuSPARSE's logger is process-wide; the last error message it reported, for the next status text.
std::mutex g_log_mutex;
std::string g_last_log;

void log_callback(int /*level*/, const char* function_name, const char* message) {
  std::lock_guard<std::mutex> lock(g_log_mutex);
  g_last_log = std::string(function_name ? function_name : "cuSPARSE") + ": " + (message ? message : "");
}

std::string take_log() {
  std::lock_guard<std::mutex> lock(g_log_mutex);
  std::string s;
  s.swap(g_last_log);
  return s;
}

// One way to express the product as C = op(A) * op(B) with A = W in BSR: the views of X (B) and Y (C).
struct Formulation {
  const char* note;
  cusparseOperation_t op_b;
  int64_t b_rows, b_cols, ldb;
  cusparseOrder_t b_order;
  int64_t c_rows, c_cols, ldc;
  cusparseOrder_t c_order;
};

std::vector<Formulation> formulations(SparseOp op, int64_t m, int64_t n, int64_t k) {
  const cusparseOperation_t N = CUSPARSE_OPERATION_NON_TRANSPOSE, T = CUSPARSE_OPERATION_TRANSPOSE;
  const cusparseOrder_t row = CUSPARSE_ORDER_ROW, col = CUSPARSE_ORDER_COL;
  if (op == SparseOp::Xwt)  // Y^T (N x M, column-major view of Y) = W (N x K) * X^T (K x M)
    return {{"Y^T = W * X^T: B = X^T col-major KxM, C = Y^T col-major NxM, opB = N", N, k, m, k, col, n, m, n, col},
            {"Y^T = W * X^T: B = X row-major MxK with opB = T, C = Y^T col-major NxM", T, m, k, k, row, n, m, n, col}};
  // Y (M x N) = W (M x K) * X (K x N)
  return {{"Y = W * X: B = X row-major KxN, C = Y row-major MxN, opB = N", N, k, n, n, row, m, n, n, row},
          {"Y = W * X: B = X^T col-major NxK with opB = T, C = Y row-major MxN", T, n, k, n, col, m, n, n, row}};
}

}  // namespace

std::string cusparse_status_text(cusparseStatus_t st) {
  std::string s = std::string(cusparseGetErrorName(st)) + " (" + cusparseGetErrorString(st) + ")";
  const std::string log = take_log();
  if (!log.empty()) s += ": " + log;
  return s;
}

void throw_cusparse(cusparseStatus_t st, const char* expr, const char* file, int line) {
  throw Error(ErrorCode::CusparseError, std::string(file) + ":" + std::to_string(line) + ": " + expr +
                                            " failed: " + cusparse_status_text(st));
}

void clear_cusparse_log() { take_log(); }

Cusparse::Cusparse() {
  TILEGEMM_CUSPARSE_CHECK(cusparseCreate(&handle_));
  const cusparseStatus_t st = cusparseSetStream(handle_, bench_stream());
  if (st != CUSPARSE_STATUS_SUCCESS) {
    cusparseDestroy(handle_);  // the destructor does not run for a constructor that throws
    handle_ = nullptr;
    TILEGEMM_CUSPARSE_CHECK(st);
  }
  // Error messages (level 1) go to the callback, which keeps the last one for the skip reasons, and
  // not to the log file (stdout by default: they would interleave with the tables). Someone who set
  // CUSPARSE_LOG_LEVEL wants cuSPARSE's own log: then the logger is left as they configured it. The
  // logger is optional: without it the reasons are the status names alone.
  if (std::getenv("CUSPARSE_LOG_LEVEL") == nullptr &&
      cusparseLoggerSetCallback(log_callback) == CUSPARSE_STATUS_SUCCESS) {
    static FILE* const devnull = std::fopen("/dev/null", "w");
    if (devnull) cusparseLoggerSetFile(devnull);
    cusparseLoggerSetLevel(1);
  }
}

Cusparse::~Cusparse() {
  if (handle_) cusparseDestroy(handle_);
}

CusparseBsrProduct::CusparseBsrProduct(const Cusparse& cs, SparseOp op, int64_t m, int64_t n, int64_t k,
                                       const BsrView& w, const float* x, float* y)
    : handle_(cs.handle()) {
  try {
    setup(op, m, n, k, w, x, y);
  } catch (...) {
    release();  // the destructor does not run for a constructor that throws
    throw;
  }
}

void CusparseBsrProduct::setup(SparseOp op, int64_t m, int64_t n, int64_t k, const BsrView& w, const float* x,
                               float* y) {
  // A known limit, checked here rather than by asking: cuSPARSE prints its refusal on stderr even with
  // its logger silenced, and the bench's output should stay the bench's.
  if (w.block_rows != w.block_cols) {
    why_not_ = "BSR descriptors take square blocks only (cusparseCreateBsr: \"non-square block isn't "
               "supported\"), not " + std::to_string(w.block_rows) + "x" + std::to_string(w.block_cols);
    return;
  }
  std::vector<std::string> reasons;
  for (const Formulation& f : formulations(op, m, n, k)) {
    clear_cusparse_log();
    // The first step cuSPARSE rejects ends this formulation; the reason names the call.
    auto rejected = [&](const char* call, cusparseStatus_t st) {
      const std::string why = std::string(call) + ": " + cusparse_status_text(st);
      release();
      bool seen = false;
      for (const std::string& r : reasons) seen = seen || r == why;
      if (!seen) reasons.push_back(why);
    };
    cusparseStatus_t st = cusparseCreateBsr(
        &a_, w.block_row_count(), w.block_col_count(), w.nnzb, w.block_rows, w.block_cols,
        const_cast<int32_t*>(w.index_pointer), const_cast<int32_t*>(w.block_indices), const_cast<float*>(w.block_data),
        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F, CUSPARSE_ORDER_ROW);
    if (st != CUSPARSE_STATUS_SUCCESS) {
      a_ = nullptr;
      rejected("cusparseCreateBsr", st);
      continue;
    }
    st = cusparseCreateDnMat(&b_, f.b_rows, f.b_cols, f.ldb, const_cast<float*>(x), CUDA_R_32F, f.b_order);
    if (st != CUSPARSE_STATUS_SUCCESS) {
      b_ = nullptr;
      rejected("cusparseCreateDnMat(B)", st);
      continue;
    }
    st = cusparseCreateDnMat(&c_, f.c_rows, f.c_cols, f.ldc, y, CUDA_R_32F, f.c_order);
    if (st != CUSPARSE_STATUS_SUCCESS) {
      c_ = nullptr;
      rejected("cusparseCreateDnMat(C)", st);
      continue;
    }
    size_t bytes = 0;
    st = cusparseSpMM_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, f.op_b, &one_, a_, b_, &zero_, c_,
                                 CUDA_R_32F, CUSPARSE_SPMM_BSR_ALG1, &bytes);
    if (st != CUSPARSE_STATUS_SUCCESS) {
      rejected("cusparseSpMM_bufferSize", st);
      continue;
    }
    workspace_ = DeviceBuffer<char>(bytes);  // CUDA failures (out of memory) throw: not a rejection
    st = cusparseSpMM_preprocess(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, f.op_b, &one_, a_, b_, &zero_, c_,
                                 CUDA_R_32F, CUSPARSE_SPMM_BSR_ALG1, workspace_.get());
    if (st != CUSPARSE_STATUS_SUCCESS) {
      rejected("cusparseSpMM_preprocess", st);
      continue;
    }
    op_b_ = f.op_b;
    st = cusparseSpMM(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, op_b_, &one_, a_, b_, &zero_, c_, CUDA_R_32F,
                      CUSPARSE_SPMM_BSR_ALG1, workspace_.get());
    if (st != CUSPARSE_STATUS_SUCCESS) {
      rejected("cusparseSpMM", st);
      continue;
    }
    TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
    formulation_ = f.note;
    return;
  }
  for (size_t i = 0; i < reasons.size(); ++i) why_not_ += (i ? "; then " : "") + reasons[i];
  if (why_not_.empty()) why_not_ = "no formulation of this product";
}

CusparseBsrProduct::~CusparseBsrProduct() { release(); }

void CusparseBsrProduct::release() noexcept {
  if (a_) cusparseDestroySpMat(a_);
  if (b_) cusparseDestroyDnMat(b_);
  if (c_) cusparseDestroyDnMat(c_);
  a_ = nullptr;
  b_ = nullptr;
  c_ = nullptr;
  workspace_ = DeviceBuffer<char>();
}

void CusparseBsrProduct::run() {
  if (!why_not_.empty() || !a_) throw Error(ErrorCode::Internal, "cuSPARSE product run without a formulation");
  TILEGEMM_CUSPARSE_CHECK(cusparseSpMM(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, op_b_, &one_, a_, b_, &zero_, c_,
                                       CUDA_R_32F, CUSPARSE_SPMM_BSR_ALG1, workspace_.get()));
}

}  // namespace tools
}  // namespace tilegemm
