// Conversions between FP32 accumulators and output elements (float, bf16, f16), shared by the
// 16-bit kernels' epilogues: to_out rounds to nearest even, from_out widens C for beta, OutPair
// makes and reads two adjacent outputs as one access.
//
// Device code only.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace tilegemm {
namespace kernels {

template <class OutT>
__device__ __forceinline__ OutT to_out(float v);
template <>
__device__ __forceinline__ float to_out<float>(float v) { return v; }
template <>
__device__ __forceinline__ __nv_bfloat16 to_out<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <>
__device__ __forceinline__ __half to_out<__half>(float v) { return __float2half_rn(v); }
__device__ __forceinline__ float from_out(float v) { return v; }
__device__ __forceinline__ float from_out(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float from_out(__half v) { return __half2float(v); }

// Two adjacent outputs as one access (__nv_bfloat162, __half2, float2).
template <class OutT>
struct OutPair;
template <>
struct OutPair<float> {
  using type = float2;
  __device__ static type make(float x, float y) { return make_float2(x, y); }
  __device__ static float2 get(type v) { return v; }
};
template <>
struct OutPair<__nv_bfloat16> {
  using type = __nv_bfloat162;
  __device__ static type make(float x, float y) { return __floats2bfloat162_rn(x, y); }
  __device__ static float2 get(type v) { return __bfloat1622float2(v); }
};
template <>
struct OutPair<__half> {
  using type = __half2;
  __device__ static type make(float x, float y) { return __floats2half2_rn(x, y); }
  __device__ static float2 get(type v) { return __half22float2(v); }
};

}  // namespace kernels
}  // namespace tilegemm
