// BSR kernel 02, small M (the dense batch dimension J <= 16: a network layer at batch size 1-16):
// one warp per W row i computes out(i, j) for 16 columns j at a time, so every stored W element
// is read from memory once per 16 columns instead of once per column (kernel 01) and W streams at
// memory bandwidth. Lanes split the row's stored elements (4 at a time with 16-byte loads when
// C % 4 == 0); the 16 partial sums per lane are combined with a reduce-scatter across the warp
// (8 + 4 + 2 + 1 + 1 shuffles instead of 16 x 5). Any J works (chunks of 16); dispatch uses it
// for J <= 16 and for tiny blocks (R * C < 16, e.g. 1 x 1 = CSR) where tiles would be mostly empty.
#pragma once
#include "common.cuh"

namespace tilegemm {
namespace kernels {

constexpr int kSmallMThreads = 256;  // 8 warps = 8 consecutive W rows per thread block
constexpr int kSmallMCols = 16;      // columns j per pass

// Sums v[q] over the 32 lanes of the warp for every q < 16; afterwards lanes 2q and 2q + 1 hold the
// total of v[q] in v[0]. Each step halves the values a lane carries: a lane keeps one half, sends
// the other half to its partner and adds what the partner sent for the half it kept.
__device__ __forceinline__ float reduce_scatter_16(float (&v)[kSmallMCols], int lane) {
#pragma unroll
  for (int width = kSmallMCols / 2, mask = 16; width >= 1; width /= 2, mask /= 2) {
    const bool upper = (lane & mask) != 0;
#pragma unroll
    for (int q = 0; q < width; ++q) {
      const float keep = upper ? v[q + width] : v[q];
      const float send = upper ? v[q] : v[q + width];
      v[q] = keep + __shfl_xor_sync(0xffffffffu, send, mask);
    }
  }
  return v[0] + __shfl_xor_sync(0xffffffffu, v[0], 1);
}

// kVec: W rows read 4 elements at a time (C % 4 == 0, W 16-byte aligned) and, for xwt, X too
// (x 16-byte aligned, ldx % 4 == 0).
template <bool kXwt, bool kVec>
__global__ void __launch_bounds__(kSmallMThreads) bsr_small_m(BsrParams p) {
  const int i = blockIdx.x * (kSmallMThreads / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (i >= p.rows_i) return;  // whole warps leave together: the shuffles below see full warps
  const int block_row = i / p.block_r, r = i % p.block_r;
  const int first = p.w_rowptr[block_row];
  constexpr int kStep = kVec ? 4 : 1;
  const int groups = (p.w_rowptr[block_row + 1] - first) * p.block_c / kStep;

  for (int j0 = 0; j0 < p.cols_j; j0 += kSmallMCols) {
    float acc[kSmallMCols];
#pragma unroll
    for (int q = 0; q < kSmallMCols; ++q) acc[q] = 0.0f;
    for (int t = lane; t < groups; t += 32) {
      const int e = t * kStep;
      const int b = first + e / p.block_c, c = e % p.block_c;
      const int k = p.w_cols[b] * p.block_c + c;
      if (kVec) {
        const float4 w4 = *reinterpret_cast<const float4*>(block_elem(p, b, r, c));
#pragma unroll
        for (int q = 0; q < kSmallMCols; ++q) {
          if (j0 + q >= p.cols_j) break;
          if (kXwt) {
            const float4 x4 = *reinterpret_cast<const float4*>(dense_ptr<true>(p, k, j0 + q));
            acc[q] += w4.x * x4.x + w4.y * x4.y + w4.z * x4.z + w4.w * x4.w;
          } else {
            acc[q] += w4.x * *dense_ptr<false>(p, k, j0 + q) +
                      w4.y * *dense_ptr<false>(p, k + 1, j0 + q) +
                      w4.z * *dense_ptr<false>(p, k + 2, j0 + q) +
                      w4.w * *dense_ptr<false>(p, k + 3, j0 + q);
          }
        }
      } else {
        const float w1 = *block_elem(p, b, r, c);
#pragma unroll
        for (int q = 0; q < kSmallMCols; ++q) {
          if (j0 + q >= p.cols_j) break;
          acc[q] += w1 * *dense_ptr<kXwt>(p, k, j0 + q);
        }
      }
    }
    const float total = reduce_scatter_16(acc, lane);
    const int j = j0 + lane / 2;
    if (lane % 2 == 0 && j < p.cols_j) store_out(p, out_ptr<kXwt>(p, i, j), total);
  }
}

}  // namespace kernels
}  // namespace tilegemm
