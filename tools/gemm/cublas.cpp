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

void Cublas::gemm_ex(const Problem& p, cudaDataType type_ab, cudaDataType type_c, cublasComputeType_t compute,
                     const void* alpha, const void* a, const void* b, const void* beta, void* c) {
  auto op = [](Op o) { return o == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T; };
  // cuBLAS is column-major; a row-major product is the column-major product of the transposes.
  const bool row = p.layout == Layout::RowMajor;
  const int m = static_cast<int>(row ? p.n : p.m), n = static_cast<int>(row ? p.m : p.n);
  const void* x = row ? b : a;
  const void* y = row ? a : b;
  const int ldx = static_cast<int>(row ? p.ldb() : p.lda()), ldy = static_cast<int>(row ? p.lda() : p.ldb());
  const Op ox = row ? p.op_b : p.op_a, oy = row ? p.op_a : p.op_b;
  if (p.batch > 1) {  // strided batches: cuBLAS's own batched kernels, one call
    const long long sx = row ? p.stride_b() : p.stride_a(), sy = row ? p.stride_a() : p.stride_b();
    TILEGEMM_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        handle_, op(ox), op(oy), m, n, static_cast<int>(p.k), alpha, x, type_ab, ldx, sx, y, type_ab, ldy, sy, beta, c,
        type_c, static_cast<int>(p.ldc()), p.stride_c(), static_cast<int>(p.batch), compute, CUBLAS_GEMM_DEFAULT));
    return;
  }
  TILEGEMM_CUBLAS_CHECK(cublasGemmEx(handle_, op(ox), op(oy), m, n, static_cast<int>(p.k), alpha, x, type_ab, ldx, y,
                                     type_ab, ldy, beta, c, type_c, static_cast<int>(p.ldc()), compute,
                                     CUBLAS_GEMM_DEFAULT));
}

void Cublas::sgemm(const Problem& p, float alpha, const float* a, const float* b, float beta, float* c) {
  gemm_ex(p, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC, &alpha, a, b, &beta, c);
}

void Cublas::gemm(const Problem& p, const void* a, const void* b, void* c) {
  const float one = 1.0f, zero = 0.0f;
  if (p.dtype == DType::F32 && p.math == Math::Tf32)
    return tf32(p, static_cast<const float*>(a), static_cast<const float*>(b), static_cast<float*>(c));
  if (p.dtype == DType::F32) return sgemm(p, one, static_cast<const float*>(a), static_cast<const float*>(b), zero,
                                          static_cast<float*>(c));
  const cudaDataType t = p.dtype == DType::BF16 ? CUDA_R_16BF : CUDA_R_16F;
  gemm_ex(p, t, t, CUBLAS_COMPUTE_32F, &one, a, b, &zero, c);
}

void Cublas::tf32(const Problem& p, const float* a, const float* b, float* c) {
  const float one = 1.0f, zero = 0.0f;
  gemm_ex(p, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, &one, a, b, &zero, c);
}

void Cublas::dgemm(const Problem& p, const double* a, const double* b, double* c) {
  const double one = 1.0, zero = 0.0;
  gemm_ex(p, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, &one, a, b, &zero, c);
}

}  // namespace tools
}  // namespace tilegemm
