// Decode products in bf16/f16 (family gemv16): one operand has few rows (at most 4), the
// other is streamed once from memory, which is the whole cost: C = alpha * X * W^T + beta * C with
// X (`rows` x k) the short operand and W (`lines` x k) the long one, both K-major with 16-byte
// aligned rows, FP32 accumulation. A warp takes one line of W at a time: each lane reads 16 bytes (8
// elements) per step, eight steps in flight (a 4096-element line in one round trip), and multiplies
// them with the same 8 elements of every X row (L1-resident); the warp then sums its lanes. C(r, line) lies at c + r * c_row + line * c_col,
// so either operand of the canonical product can be the long one.
//
// Device code only.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/common/out_convert.cuh"
#include "kernels/gemm/gemv_16bit_params.hpp"

namespace tilegemm {
namespace kernels {

namespace gemv16_detail {
__device__ __forceinline__ float2 to_float2(unsigned v, bool f16) {
  if (f16) return __half22float2(*reinterpret_cast<const __half2*>(&v));
  return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&v));
}
}  // namespace gemv16_detail

// kRows: the X rows this instantiation holds accumulators for (>= p.rows).
template <bool kF16, class OutT, int kRows>
__global__ void __launch_bounds__(256) gemv_16bit(const Gemv16Params p) {
  using namespace gemv16_detail;
  const int lane = threadIdx.x % 32;
  const long long warps = gridDim.x * 8ll;  // 64-bit: line + warps passes 2^31 near the size limit
  const int chunks = p.k / 8;
  for (long long line = blockIdx.x * 8ll + threadIdx.x / 32; line < p.lines; line += warps) {
    const uint4* w = reinterpret_cast<const uint4*>(static_cast<const unsigned short*>(p.w) + line * p.w_ld);
    float acc[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) acc[r] = 0.0f;
    constexpr int kInFlight = 8;
    for (int c0 = lane; c0 < chunks; c0 += 32 * kInFlight) {
      uint4 wv[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {  // streamed once: keep it out of L1
        const int c = c0 + u * 32;
        wv[u] = c < chunks ? __ldcs(w + c) : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const int c = c0 + u * 32;
        if (c >= chunks) break;
        const unsigned wu[4] = {wv[u].x, wv[u].y, wv[u].z, wv[u].w};
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          if (r >= p.rows) break;
          const uint4 xv =
              __ldg(reinterpret_cast<const uint4*>(static_cast<const unsigned short*>(p.x) + r * p.x_ld) + c);
          const unsigned xu[4] = {xv.x, xv.y, xv.z, xv.w};
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const float2 a = to_float2(xu[e], kF16), b = to_float2(wu[e], kF16);
            acc[r] = fmaf(a.x, b.x, fmaf(a.y, b.y, acc[r]));
          }
        }
      }
    }
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      if (r >= p.rows) break;
      float v = acc[r];
#pragma unroll
      for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
      if (lane == 0) {
        OutT* out = static_cast<OutT*>(p.c) + r * p.c_row + line * p.c_col;
        v *= p.alpha;
        if (p.beta != 0.0f) v += p.beta * from_out(*out);
        *out = to_out<OutT>(v);
      }
    }
  }
}

}  // namespace kernels
}  // namespace tilegemm
