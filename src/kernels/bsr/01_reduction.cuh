// BSR kernel 01, the report's kernel (seeds/002, "parallel reduction within blocks"): one warp per
// output element. The 32 lanes split the stored part of W's row i (its blocks' row segments, in
// order) between them, multiply by the matching D column, and combine the partial sums with warp
// shuffles. Simple and any-shape; W is re-read once per output column j, so it is the reference
// point, not the fast path.
#pragma once
#include "kernels/bsr/common.cuh"

namespace tilegemm {
namespace kernels {

constexpr int kReductionThreads = 256;  // 8 warps, 8 outputs per thread block

template <bool kXwt>
__global__ void __launch_bounds__(kReductionThreads) bsr_reduction(BsrParams p) {
  const long long warp = (static_cast<long long>(blockIdx.x) * kReductionThreads + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (warp >= static_cast<long long>(p.rows_i) * p.cols_j) return;
  // Consecutive warps write consecutive addresses: along i for xwt, along j for wx.
  const int i = kXwt ? static_cast<int>(warp % p.rows_i) : static_cast<int>(warp / p.cols_j);
  const int j = kXwt ? static_cast<int>(warp / p.rows_i) : static_cast<int>(warp % p.cols_j);

  const int block_row = i / p.block_r, r = i % p.block_r;
  const int first = p.w_rowptr[block_row];
  const int count = (p.w_rowptr[block_row + 1] - first) * p.block_c;  // stored elements of row i
  float sum = 0.0f;
  for (int t = lane; t < count; t += 32) {
    const int b = first + t / p.block_c, c = t % p.block_c;
    sum += *block_elem(p, b, r, c) * *dense_ptr<kXwt>(p, p.w_cols[b] * p.block_c + c, j);
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (lane == 0) epilogue_store(out_ptr<kXwt>(p, i, j), sum, p.alpha, p.beta);
}

}  // namespace kernels
}  // namespace tilegemm
