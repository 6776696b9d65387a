// Pieces shared by the two GEMV-class kernels (gemv_rows.cuh, gemv_cols.cuh): staging the short
// operand X through shared memory, the K slice a thread block walks, and the store of C(s, l).
// Device code only; compiles under NVRTC.
#pragma once
#include "dense/kernels/common.cuh"
#include "core/cp_async.cuh"

namespace tilegemm {
namespace kernels {

// Starts copying X(s, k0 + kk) for s < kS, kk < kChunk into xs[s * kSStride + kk * kKStride] with
// 4-byte cp.async (zeros past s_count and k_end) and commits the group: every copy is in flight at
// once, with no registers held (register loads, a few in flight at a time, left the rows kernel
// waiting ~8 L2 round trips per chunk). Consecutive threads walk whichever of X's dimensions is
// contiguous (a decode product's X is one row; a small-N product's X is B, contiguous along s), so
// the reads coalesce. The caller waits (cp_async_wait) and synchronizes before reading xs.
template <int kS, int kChunk, int kThreads, int kSStride, int kKStride>
__device__ __forceinline__ void gemv_stage_x(float* xs, const GemvParams& p, int k0, int k_end) {
  const bool s_fastest = p.x_s == 1 && p.x_k != 1;
  for (int e = threadIdx.x; e < kS * kChunk; e += kThreads) {
    const int s = s_fastest ? e % kS : e / kChunk;
    const int kk = s_fastest ? e / kS : e % kChunk;
    const int k = k0 + kk;
    const bool ok = s < p.s_count && k < k_end;
    cp_async_4(xs + s * kSStride + kk * kKStride,
               ok ? p.x + static_cast<long long>(s) * p.x_s + static_cast<long long>(k) * p.x_k : p.x, ok);
  }
  cp_async_commit();
}

// The K range [begin, end) of a thread block's slice.
struct GemvSlice {
  int begin, end;
  __device__ __forceinline__ GemvSlice(const GemvParams& p, int slice)
      : begin(slice * p.slice_k), end(p.k - slice * p.slice_k < p.slice_k ? p.k : slice * p.slice_k + p.slice_k) {}
};

// C(s, l) = alpha * v + beta * C(s, l); beta == 0 never reads C.
__device__ __forceinline__ void gemv_store(const GemvParams& p, int s, int l, float v) {
  epilogue_store(p.c + static_cast<long long>(s) * p.c_s + static_cast<long long>(l) * p.c_l, v, p.alpha, p.beta);
}

}  // namespace kernels
}  // namespace tilegemm
