// The canonical problem every dense kernel receives. A plain struct shared by host and device code
// (no includes, so kernel headers stay NVRTC-compilable).
#pragma once

namespace tilegemm {
namespace kernels {

// Every call is reduced by the host launcher to one canonical row-major problem:
//   C[m][n] = alpha * sum_k a(m, k) * b(k, n) + beta * C[m][n]
//   a(m, k) = TransA ? A[k * lda + m] : A[m * lda + k]
//   b(k, n) = TransB ? B[n * ldb + k] : B[k * ldb + n]
// The launcher guarantees every stored extent fits in int (see check_gemm_args), so 32-bit
// offsets are exact.
struct GemmParams {
  int m, n, k;
  float alpha, beta;
  const float* a;
  int lda;
  const float* b;
  int ldb;
  float* c;
  int ldc;
  int raster;      // Raster enum value, used by the tiled levels
  int c_vec4;      // 1 when C rows may be written with 16-byte stores (ldc % 4 == 0, C 16-B aligned)
};

}  // namespace kernels
}  // namespace tilegemm
