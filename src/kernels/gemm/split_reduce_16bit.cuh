// The second step of level 8's split-K (08_wgmma_tma.cuh with splits > 1): C = alpha * (the sum of
// the k slices' FP32 partial products) + beta * C, the slices summed in slice order (the result does
// not depend on which block finished first), C in bf16, f16 or f32.
//
// Device code only.
#pragma once
#include "kernels/common/out_convert.cuh"

namespace tilegemm {
namespace kernels {

// partial: `splits` slices of m x n FP32 sums, ld_partial apart in a slice, m * ld_partial apart
// between slices. One thread per element, grid-stride.
template <class OutT>
__global__ void __launch_bounds__(256) split_reduce_16bit(const float* partial, int splits, int m, int n,
                                                          long long ld_partial, OutT* c, long long ldc, float alpha,
                                                          float beta) {
  const long long count = static_cast<long long>(m) * n, slice = static_cast<long long>(m) * ld_partial;
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < count; i += gridDim.x * 256ll) {
    const long long row = i / n, col = i - row * n;
    const float* at = partial + row * ld_partial + col;
    float sum = 0.0f;
    for (int s = 0; s < splits; ++s) sum += at[s * slice];
    OutT* out = c + row * ldc + col;
    *out = to_out<OutT>(beta != 0.0f ? alpha * sum + beta * from_out(*out) : alpha * sum);
  }
}

}  // namespace kernels
}  // namespace tilegemm
