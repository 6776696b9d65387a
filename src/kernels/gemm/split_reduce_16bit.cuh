// The second step of level 8's split-K (08_wgmma_tma.cuh with splits > 1): C = alpha * (the sum of
// the k slices' FP32 partial products) + beta * C, the slices summed in slice order (the result does
// not depend on which block finished first), C in bf16, f16 or f32.
//
// Launched to overlap the product's last blocks (programmatic dependent launch,
// kernels/common/griddep.cuh): every block waits for the product before it reads a partial sum.
//
// Device code only.
#pragma once
#include "kernels/common/fused_epilogue.cuh"
#include "kernels/common/griddep.cuh"

namespace tilegemm {
namespace kernels {

// The sum of load(0), ..., load(splits - 1) in slice order, four slices' loads in flight before their
// adds (a slice's loads in turn, then its adds, took ~2 us a slice: C^T's 32 x 4096 in 2, 4 and 8
// slices 4.6, 8.4 and 13.3 us, ncu on an H200, 2026-11-29).
template <class Load>
__device__ __forceinline__ float4 sum_slices(int splits, Load load) {
  float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (int s = 0; s < splits; s += 4) {
    float4 v[4];
#pragma unroll
    for (int t = 0; t < 4; ++t) v[t] = s + t < splits ? load(s + t) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int t = 0; t < 4; ++t)
      if (s + t < splits) sum.x += v[t].x, sum.y += v[t].y, sum.z += v[t].z, sum.w += v[t].w;
  }
  return sum;
}

// partial: per batch `splits` slices of m x n FP32 sums, ld_partial apart in a slice (a multiple of 4;
// 16-byte aligned rows), m * ld_partial apart between slices (and the batches one after the other);
// batch b's C at c + b * stride_c; then the bias and activation (epi). A thread sums 4 columns of a
// row at a time, grid-stride: 16-byte loads, the loads of up to 4 slices in flight before their adds
// (sum_slices; one element a thread with a load per slice in turn took 9.4 us on 1024 x 768 in 2
// slices, ncu on an H200), one 64-bit division per 4 elements, and C's 4 elements as one store where
// aligned.
// kTransposedC: the sums are C^T's (C is n x m, ldc apart; epi on C): a thread sums 4 rows of one
// column of them, C's 4 adjacent elements; consecutive threads take consecutive columns of the sums
// (C's rows: coalesced loads, C's stores ldc apart; the products that take this way have short C
// rows, m <= 64 in the chooser).
template <class OutT, bool kTransposedC = false>
__global__ void __launch_bounds__(256) split_reduce_16bit(const float* partial, int splits, int m, int n,
                                                          long long ld_partial, OutT* c, long long ldc, float alpha,
                                                          float beta, int batches, long long stride_c,
                                                          FusedEpilogue epi) {
  const long long slice = static_cast<long long>(m) * ld_partial;
  griddep_wait();  // the product has written every slice
  if constexpr (kTransposedC) {
    const long long quads = (m + 3) / 4, count = static_cast<long long>(n) * quads * batches;
    for (long long i = blockIdx.x * 256ll + threadIdx.x; i < count; i += gridDim.x * 256ll) {
      const long long rest = i / n, batch = rest / quads;
      const int row = static_cast<int>(i - rest * n), col = static_cast<int>(rest - batch * quads) * 4;  // C's
      const int valid = m - col < 4 ? m - col : 4;
      const float* at = partial + (batch * splits * m + col) * ld_partial + row;
      const float4 sum = sum_slices(splits, [&](int s) {
        float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (j < valid) v[j] = at[s * slice + j * ld_partial];
        return make_float4(v[0], v[1], v[2], v[3]);
      });
      const float sums[4] = {sum.x, sum.y, sum.z, sum.w};
      store_quad_fused(c + batch * stride_c + row * ldc + col, sums, valid, alpha, beta, epi, row, col);
    }
    return;
  }
  const long long quads = (n + 3) / 4, count = static_cast<long long>(m) * quads * batches;
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < count; i += gridDim.x * 256ll) {
    const long long rows = i / quads, batch = rows / m, row = rows - batch * m;  // rows of all batches
    const int col = static_cast<int>(i - rows * quads) * 4;
    const float4* at = reinterpret_cast<const float4*>(partial + (batch * splits * m + row) * ld_partial + col);
    const float4 sum = sum_slices(splits, [&](int s) { return at[s * (slice / 4)]; });
    const float sums[4] = {sum.x, sum.y, sum.z, sum.w};
    const int valid = n - col < 4 ? n - col : 4;
    store_quad_fused(c + batch * stride_c + row * ldc + col, sums, valid, alpha, beta, epi, static_cast<int>(row),
                     col);
  }
}

}  // namespace kernels
}  // namespace tilegemm
