#include "cublas.hpp"

#include <string>

#include "core/cuda_check.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace tools {

#define TILEGEMM_CUBLAS_CHECK(expr)                                                              \
  do {                                                                                           \
    const cublasStatus_t st_ = (expr);                                                           \
    if (st_ != CUBLAS_STATUS_SUCCESS)                                                            \
      throw Error(ErrorCode::CublasError, std::string(__FILE__) + ":" + std::to_string(__LINE__) + \
                                              ": " #expr " failed: " + cublasGetStatusString(st_)); \
  } while (0)

Diff compare_c(const Problem& p, const float* x_buffer, const float* y_buffer) {
  if (p.size_c() == 0) return compare_matrix(x_buffer, y_buffer, 0, 0, 1);
  return compare_matrix(x_buffer + p.offset, y_buffer + p.offset, p.c_outer(), p.c_inner(), p.ldc());
}

Cublas::Cublas() {
  TILEGEMM_CUBLAS_CHECK(cublasCreate(&handle_));
  try {
    TILEGEMM_CUBLAS_CHECK(cublasSetStream(handle_, bench_stream()));
    // cublasSetStream puts the handle back on cuBLAS's default workspace pool: set ours after it.
    int device = 0, major = 0;
    TILEGEMM_CUDA_CHECK(cudaGetDevice(&device));
    TILEGEMM_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    const size_t bytes = size_t(major >= 9 ? 32 : 4) << 20;
    TILEGEMM_CUDA_CHECK(cudaMalloc(&workspace_, bytes));
    TILEGEMM_CUBLAS_CHECK(cublasSetWorkspace(handle_, workspace_, bytes));
  } catch (...) {
    cublasDestroy(handle_);  // the destructor does not run for a constructor that throws
    if (workspace_) cudaFree(workspace_);
    throw;
  }
}
Cublas::~Cublas() {
  if (handle_) cublasDestroy(handle_);
  if (workspace_) cudaFree(workspace_);
}

void Cublas::sgemm(const Problem& p, float alpha, const float* a, const float* b, float beta, float* c) {
  auto op = [](Op o) { return o == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T; };
  // cuBLAS is column-major; a row-major product is the column-major product of the transposes.
  const bool row = p.layout == Layout::RowMajor;
  const int m = static_cast<int>(row ? p.n : p.m), n = static_cast<int>(row ? p.m : p.n);
  const float* x = row ? b : a;
  const float* y = row ? a : b;
  const int ldx = static_cast<int>(row ? p.ldb() : p.lda()), ldy = static_cast<int>(row ? p.lda() : p.ldb());
  const Op ox = row ? p.op_b : p.op_a, oy = row ? p.op_a : p.op_b;
  TILEGEMM_CUBLAS_CHECK(cublasGemmEx(handle_, op(ox), op(oy), m, n, static_cast<int>(p.k), &alpha, x,
                                     CUDA_R_32F, ldx, y, CUDA_R_32F, ldy, &beta, c, CUDA_R_32F,
                                     static_cast<int>(p.ldc()), CUBLAS_COMPUTE_32F_PEDANTIC,
                                     CUBLAS_GEMM_DEFAULT));
}

}  // namespace tools
}  // namespace tilegemm
