// The BLAS epilogue every kernel ends with, dense and sparse: out = alpha * acc + beta * out. With
// beta == 0 the output is write-only, as the reference BLAS specifies (NaN or Inf already in it must
// not leak into the result). Scalar, 2-wide and 4-wide forms: a wide store is one 8- or 16-byte
// read-modify-write, so the caller checks that `out` is aligned for it and that every element exists.
//
// Device code only, includes nothing: compiles with nvcc and with NVRTC.
#pragma once

namespace tilegemm {
namespace kernels {

__device__ __forceinline__ void epilogue_store(float* out, float acc, float alpha, float beta) {
  *out = beta == 0.0f ? alpha * acc : alpha * acc + beta * *out;
}

__device__ __forceinline__ void epilogue_store2(float* out, float a0, float a1, float alpha, float beta) {
  float2 v = make_float2(alpha * a0, alpha * a1);
  if (beta != 0.0f) {
    const float2 old = *reinterpret_cast<const float2*>(out);
    v.x += beta * old.x, v.y += beta * old.y;
  }
  *reinterpret_cast<float2*>(out) = v;
}

__device__ __forceinline__ void epilogue_store4(float* out, float a0, float a1, float a2, float a3, float alpha,
                                                float beta) {
  float4 v = make_float4(alpha * a0, alpha * a1, alpha * a2, alpha * a3);
  if (beta != 0.0f) {
    const float4 old = *reinterpret_cast<const float4*>(out);
    v.x += beta * old.x, v.y += beta * old.y, v.z += beta * old.z, v.w += beta * old.w;
  }
  *reinterpret_cast<float4*>(out) = v;
}

}  // namespace kernels
}  // namespace tilegemm
