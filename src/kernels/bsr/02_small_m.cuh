// BSR kernel 02, small M (the dense batch dimension J <= 16: a network layer at batch size 1-16):
// one warp per W row i computes out(i, j) for up to 16 columns j at a time, so every stored W
// element is read from memory once per 16 columns instead of once per column (kernel 01) and W
// streams at memory bandwidth. Lanes split the row's stored elements (4 at a time with 16-byte loads when
// C % 4 == 0); the 16 partial sums per lane are combined with a reduce-scatter across the warp
// (for 16 columns 8 + 4 + 2 + 1 + 1 shuffles instead of 16 x 5). Any J works (chunks of 16); dispatch uses it
// for J <= 16 and for tiny blocks (R * C < 16, e.g. 1 x 1 = CSR) where tiles would be mostly empty.
#pragma once
#include "kernels/bsr/common.cuh"

namespace tilegemm {
namespace kernels {

constexpr int kSmallMThreads = 256;  // 8 warps = 8 consecutive W rows per thread block

// Sums v[q] over the 32 lanes of the warp for every q < kCols (a power of two <= 16); afterwards
// lane l holds the total of v[l / (32 / kCols)] in the return value. The first log2(kCols) steps
// halve the values a lane carries: it keeps one half, sends the other half to its partner and adds
// what the partner sent for the half it kept; the remaining steps are a plain butterfly.
template <int kCols>
__device__ __forceinline__ float reduce_scatter(float (&v)[kCols], int lane) {
#pragma unroll
  for (int width = kCols / 2, mask = 16; width >= 1; width /= 2, mask /= 2) {
    const bool upper = (lane & mask) != 0;
#pragma unroll
    for (int q = 0; q < width; ++q) {
      const float keep = upper ? v[q + width] : v[q];
      const float send = upper ? v[q] : v[q + width];
      v[q] = keep + __shfl_xor_sync(0xffffffffu, send, mask);
    }
  }
  float total = v[0];
#pragma unroll
  for (int mask = 16 / kCols; mask >= 1; mask /= 2)
    total += __shfl_xor_sync(0xffffffffu, total, mask);
  return total;
}

// kCols: dense columns j per pass (1, 8 or 16; dispatch picks the smallest >= J, else 16).
// kVec: W rows read 4 elements at a time (C % 4 == 0, W 16-byte aligned) and, for xwt, X too
// (x 16-byte aligned, ldx % 4 == 0). All of a step's loads are issued before any is used, so a
// lane waits for memory once per step, not once per column.
template <bool kXwt, bool kVec, int kCols>
__global__ void __launch_bounds__(kSmallMThreads) bsr_small_m(BsrParams p) {
  const int i = blockIdx.x * (kSmallMThreads / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (i >= p.rows_i) return;  // whole warps leave together: the shuffles below see full warps
  const int block_row = i / p.block_r, r = i % p.block_r;
  const int first = p.w_rowptr[block_row];
  constexpr int kStep = kVec ? 4 : 1;
  const int groups = (p.w_rowptr[block_row + 1] - first) * p.block_c / kStep;

  for (int j0 = 0; j0 < p.cols_j; j0 += kCols) {
    float acc[kCols];
#pragma unroll
    for (int q = 0; q < kCols; ++q) acc[q] = 0.0f;
    for (int t = lane; t < groups; t += 32) {
      const int e = t * kStep;
      const int b = first + e / p.block_c, c = e % p.block_c;
      const int k = p.w_cols[b] * p.block_c + c;
      if (kVec) {
        const float4 w4 = *reinterpret_cast<const float4*>(block_elem(p, b, r, c));
        float4 d[kCols];
#pragma unroll
        for (int q = 0; q < kCols; ++q) {
          const bool in = j0 + q < p.cols_j;
          if (kXwt) {
            d[q] = in ? *reinterpret_cast<const float4*>(dense_ptr<true>(p, k, j0 + q))
                      : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
          } else {
            d[q].x = in ? *dense_ptr<false>(p, k, j0 + q) : 0.0f;
            d[q].y = in ? *dense_ptr<false>(p, k + 1, j0 + q) : 0.0f;
            d[q].z = in ? *dense_ptr<false>(p, k + 2, j0 + q) : 0.0f;
            d[q].w = in ? *dense_ptr<false>(p, k + 3, j0 + q) : 0.0f;
          }
        }
#pragma unroll
        for (int q = 0; q < kCols; ++q)
          acc[q] += w4.x * d[q].x + w4.y * d[q].y + w4.z * d[q].z + w4.w * d[q].w;
      } else {
        const float w1 = *block_elem(p, b, r, c);
        float d[kCols];
#pragma unroll
        for (int q = 0; q < kCols; ++q)
          d[q] = j0 + q < p.cols_j ? *dense_ptr<kXwt>(p, k, j0 + q) : 0.0f;
#pragma unroll
        for (int q = 0; q < kCols; ++q) acc[q] += w1 * d[q];
      }
    }
    const float total = reduce_scatter<kCols>(acc, lane);
    constexpr int kLanesPerCol = 32 / kCols;
    const int j = j0 + lane / kLanesPerCol;
    if (lane % kLanesPerCol == 0 && j < p.cols_j) epilogue_store(out_ptr<kXwt>(p, i, j), total, p.alpha, p.beta);
  }
}

}  // namespace kernels
}  // namespace tilegemm
