// Conversions between FP32 accumulators and output elements (float, bf16, f16), shared by the
// 16-bit kernels' epilogues: to_out rounds to nearest even, from_out widens C for beta, OutPair
// makes and reads two adjacent outputs as one access. PTX, so NVRTC compiles them without CUDA's
// headers (types_16bit.cuh); the instructions are those of __float2bfloat16_rn and its kin.
//
// Device code only.
#pragma once
#include "kernels/common/types_16bit.cuh"

namespace tilegemm {
namespace kernels {

template <class T>
__device__ __forceinline__ unsigned short bits_of(T v) {
  return *reinterpret_cast<const unsigned short*>(&v);
}
template <class T>
__device__ __forceinline__ T from_bits(unsigned short b) {
  T v;
  *reinterpret_cast<unsigned short*>(&v) = b;
  return v;
}

template <class OutT>
__device__ __forceinline__ OutT to_out(float v);
template <>
__device__ __forceinline__ float to_out<float>(float v) { return v; }
template <>
__device__ __forceinline__ bf16_t to_out<bf16_t>(float v) {
  unsigned short b;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b) : "f"(v));
  return from_bits<bf16_t>(b);
}
template <>
__device__ __forceinline__ f16_t to_out<f16_t>(float v) {
  unsigned short b;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(b) : "f"(v));
  return from_bits<f16_t>(b);
}
__device__ __forceinline__ float bf16_bits_to_float(unsigned short b) { return __uint_as_float(unsigned(b) << 16); }
__device__ __forceinline__ float f16_bits_to_float(unsigned short b) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(b));
  return f;
}
__device__ __forceinline__ float from_out(float v) { return v; }
__device__ __forceinline__ float from_out(bf16_t v) { return bf16_bits_to_float(bits_of(v)); }
__device__ __forceinline__ float from_out(f16_t v) { return f16_bits_to_float(bits_of(v)); }

// Two adjacent outputs as one access: float2, or the two 16-bit elements in one 32-bit word (the
// first in the low half, as they sit in memory).
template <class OutT>
struct OutPair;
template <>
struct OutPair<float> {
  using type = float2;
  __device__ static type make(float x, float y) { return make_float2(x, y); }
  __device__ static float2 get(type v) { return v; }
};
template <>
struct OutPair<bf16_t> {
  using type = unsigned;
  __device__ static type make(float x, float y) {
    unsigned r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(y), "f"(x));  // the first source fills the high half
    return r;
  }
  __device__ static float2 get(type v) {
    return make_float2(bf16_bits_to_float(v & 0xFFFFu), bf16_bits_to_float(v >> 16));
  }
};
template <>
struct OutPair<f16_t> {
  using type = unsigned;
  __device__ static type make(float x, float y) {
    unsigned r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(y), "f"(x));
    return r;
  }
  __device__ static float2 get(type v) {
    return make_float2(f16_bits_to_float(v & 0xFFFFu), f16_bits_to_float(v >> 16));
  }
};

// alpha * sums + beta * out (beta == 0: out is not read) into `valid` (1-4) adjacent outputs: one
// store of 4 where they are all there, 4-element aligned and beta is 0, else element by element.
// Split-K's sums end here (split_reduce_16bit.cuh, and level 8's sum inside a cluster).
template <class OutT>
__device__ __forceinline__ void store_quad(OutT* out, const float (&sums)[4], int valid, float alpha, float beta) {
  if (valid == 4 && beta == 0.0f && reinterpret_cast<unsigned long long>(out) % (4 * sizeof(OutT)) == 0) {
    const float a0 = alpha * sums[0], a1 = alpha * sums[1], a2 = alpha * sums[2], a3 = alpha * sums[3];
    if constexpr (sizeof(OutT) == 4) {
      *reinterpret_cast<float4*>(out) = make_float4(a0, a1, a2, a3);
    } else {
      *reinterpret_cast<uint2*>(out) = make_uint2(OutPair<OutT>::make(a0, a1), OutPair<OutT>::make(a2, a3));
    }
    return;
  }
  for (int e = 0; e < valid; ++e)
    out[e] = to_out<OutT>(beta != 0.0f ? alpha * sums[e] + beta * from_out(out[e]) : alpha * sums[e]);
}

}  // namespace kernels
}  // namespace tilegemm
