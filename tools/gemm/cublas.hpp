// The cuBLAS baseline of the GEMM bench, check and tune (and the dense reference of the BSR bench):
// products on bench_stream() in the command's layout conventions: FP32, the run's 16-bit type, and
// the FP64 reference of 16-bit runs; with an epilogue (--epilogue), cuBLASLt's matmul with the same
// bias and activation where it has them.
#pragma once
#include <cublasLt.h>
#include <cublas_v2.h>

#include <map>
#include <string>

#include "problem.hpp"
#include "profiler/harness.hpp"

namespace tilegemm {
namespace tools {

// cuBLAS FP32 with CUBLAS_COMPUTE_32F_PEDANTIC (no TF32), mapped from our layout conventions, on
// bench_stream() with a workspace of its own (cublasSetWorkspace: 32 MiB on compute capability 9.x
// and later, 4 MiB before, the sizes cuBLAS documents for its default pool), so a call can be
// captured into a CUDA graph without cuBLAS allocating during the capture.
class Cublas {
 public:
  Cublas();
  ~Cublas();
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  void sgemm(const Problem& p, float alpha, const float* a, const float* b, float beta, float* c);
  // C = A B in p.dtype: FP32 as sgemm (with p.math = Tf32 as tf32); BF16 / FP16 A, B and C with
  // CUBLAS_COMPUTE_32F (what torch.matmul runs).
  void gemm(const Problem& p, const void* a, const void* b, void* c);
  // Empty where cuBLASLt has p's epilogue, else why not. It adds one bias value per row of its
  // column-major D (our columns in row-major, rows in column-major) and has ReLU and GELU (tanh).
  static std::string lacks_epilogue(const Problem& p);
  // lacks_epilogue's reason, or cuBLASLt's own refusal of p laid out at a, b, c (one call, writing C).
  std::string refuses_epilogue(const Problem& p, const void* a, const void* b, const void* c);
  // C = A B on FP32 data with TF32 tensor-core products (CUBLAS_COMPUTE_32F_FAST_TF32).
  void tf32(const Problem& p, const float* a, const float* b, float* c);
  // C = A B in FP64 (the reference of 16-bit runs), over matrices laid out as p's.
  void dgemm(const Problem& p, const double* a, const double* b, double* c);

 private:
  void gemm_ex(const Problem& p, cudaDataType type_ab, cudaDataType type_c, cublasComputeType_t compute,
               const void* alpha, const void* a, const void* b, const void* beta, void* c);
  // cuBLASLt's matmul with p's epilogue (bias_in(p, c)); its descriptors and algorithm are made once
  // per problem (kept in lt_plans_), so a timed call only launches.
  struct LtPlan;
  void lt_matmul(const Problem& p, const void* a, const void* b, void* c);
  cublasHandle_t handle_ = nullptr;
  cublasLtHandle_t lt_ = nullptr;
  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
  std::map<std::string, LtPlan*> lt_plans_;
};

// The same over C of `p` in buffers allocated with p.size_c() elements (the matrix starts at p.offset).
Diff compare_c(const Problem& p, const float* x_buffer, const float* y_buffer);

}  // namespace tools
}  // namespace tilegemm
