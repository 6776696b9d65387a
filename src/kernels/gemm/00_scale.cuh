// Not a ladder level: C = beta * C, for the BLAS quick-return cases (k == 0 or alpha == 0), where A and
// B must not be read. beta == 0 writes zeros without reading C. C in f32, bf16 or f16 (kType: a
// ScaleType), converted through f32 with PTX conversions (no half-precision headers: NVRTC compiles
// this file with -I src alone).
#pragma once
#include "kernels/gemm/common.cuh"

namespace tilegemm {
namespace kernels {

enum ScaleType : int { kScaleF32 = 0, kScaleBf16 = 1, kScaleF16 = 2 };

namespace scale_detail {
template <int kType>
__device__ __forceinline__ float load_as_float(const void* p) {
  if (kType == kScaleF32) return *static_cast<const float*>(p);
  const unsigned short bits = *static_cast<const unsigned short*>(p);
  float v;
  if (kType == kScaleBf16) asm("cvt.f32.bf16 %0, %1;" : "=f"(v) : "h"(bits));
  else asm("cvt.f32.f16 %0, %1;" : "=f"(v) : "h"(bits));
  return v;
}
template <int kType>
__device__ __forceinline__ void store_from_float(void* p, float v) {
  if (kType == kScaleF32) {
    *static_cast<float*>(p) = v;
    return;
  }
  unsigned short bits;
  if (kType == kScaleBf16) asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(v));
  else asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(v));
  *static_cast<unsigned short*>(p) = bits;
}
}  // namespace scale_detail

template <int kType>
__global__ void __launch_bounds__(256) scale_c(void* c, int m, int n, int ldc, float beta) {
  const int tiles_n = (n + 255) / 256;
  const int row = blockIdx.x / tiles_n;
  const int col = (blockIdx.x % tiles_n) * 256 + threadIdx.x;
  if (row >= m || col >= n) return;
  constexpr int kBytes = kType == kScaleF32 ? 4 : 2;
  void* dst = static_cast<char*>(c) + at(row, ldc, col) * kBytes;
  scale_detail::store_from_float<kType>(dst, beta == 0.0f ? 0.0f : beta * scale_detail::load_as_float<kType>(dst));
}

}  // namespace kernels
}  // namespace tilegemm
