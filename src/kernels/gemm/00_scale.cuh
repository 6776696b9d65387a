// Not a ladder level: C = beta * C, for the BLAS quick-return cases (k == 0 or alpha == 0), where A and
// B must not be read. beta == 0 writes zeros without reading C.
#pragma once
#include "kernels/gemm/common.cuh"

namespace tilegemm {
namespace kernels {

__global__ void __launch_bounds__(256) scale_c(float* c, int m, int n, int ldc, float beta) {
  const int tiles_n = (n + 255) / 256;
  const int row = blockIdx.x / tiles_n;
  const int col = (blockIdx.x % tiles_n) * 256 + threadIdx.x;
  if (row >= m || col >= n) return;
  float* dst = c + at(row, ldc, col);
  *dst = beta == 0.0f ? 0.0f : beta * *dst;
}

}  // namespace kernels
}  // namespace tilegemm
