// The cuBLAS baseline of the GEMM bench, check and tune (and the dense reference of the BSR bench):
// FP32 products on bench_stream() in the command's layout conventions.
#pragma once
#include <cublas_v2.h>

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

 private:
  cublasHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
};

// The same over C of `p` in buffers allocated with p.size_c() elements (the matrix starts at p.offset).
Diff compare_c(const Problem& p, const float* x_buffer, const float* y_buffer);

}  // namespace tools
}  // namespace tilegemm
