// The fused epilogue (tilegemm::Epilogue): D = activation(alpha * sums + beta * C + bias) in FP32,
// rounded once to C's type. Level 8 applies it to a tile's accumulators in registers before any store
// path (epilogue_in_registers); split-K's reduction and the sum inside a cluster per 4 outputs
// (store_quad_fused); families that do not fuse it run epilogue_pass.cuh over C afterwards.
//
// Device code only; compiles with NVRTC.
#pragma once
#include "kernels/common/fused_epilogue.hpp"
#include "kernels/common/out_convert.cuh"

namespace tilegemm {
namespace kernels {

__device__ __forceinline__ float exp2_approx(float t) {
  float e;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(t));
  return e;
}
__device__ __forceinline__ float rcp_approx(float d) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(d));
  return r;
}

// x / (1 + 2^t) through the approximate ex2 and rcp (relative error about 2^-21): the sigmoid forms
// of GELU(tanh) and SiLU. 0.5 x (1 + tanh u) cancels to few digits where tanh u is near -1 (x < -3);
// x / (1 + e^(-2u)) does not. 2^t = Inf gives rcp 0: a zero of x's sign (the limit; NaN for x = -Inf).
// Seven instructions a value, two on the MUFU pipe: the reciprocal by Newton steps on the FMA pipe
// (16 instructions) doubled the activation's cost (perf note #107).
__device__ __forceinline__ float div_one_plus_exp2(float x, float t) {
  return x * rcp_approx(1.0f + exp2_approx(t));
}

// erfc(z) with a relative error under 1.2e-7 in exact arithmetic (the Chebyshev fit of Numerical
// Recipes' erfcc: t exp(-z^2 + P(t)), t = 1 / (1 + |z| / 2)), about 2^-17 in FP32 with the approximate
// ex2 and rcp (|z| < 4: 2^-19). Ten FMAs and two MUFU operations with few live values: CUDA's erfcf,
// inlined over a tile's 64-128 accumulators, made level 8 spill (68-88 bytes on 128-wide tiles). |z|
// is taken at most 10 (erfc(10) is below FP32's range); a NaN z gives a finite value here, and x's
// NaN the result.
__device__ __forceinline__ float erfc_fast(float z) {
  const float a = fminf(fabsf(z), 10.0f);
  const float t = rcp_approx(fmaf(0.5f, a, 1.0f));
  float q = fmaf(t, 0.17087277f, -0.82215223f);
  q = fmaf(t, q, 1.48851587f);
  q = fmaf(t, q, -1.13520398f);
  q = fmaf(t, q, 0.27886807f);
  q = fmaf(t, q, -0.18628806f);
  q = fmaf(t, q, 0.09678418f);
  q = fmaf(t, q, 0.37409196f);
  q = fmaf(t, q, 1.00002368f);
  q = fmaf(t, q, -1.26551223f);
  const float r = t * exp2_approx(fmaf(-a, a, q) * 1.44269504f);
  return z < 0.0f ? 2.0f - r : r;
}

// ReLU keeps NaN (torch.relu's). GELU(tanh): u = sqrt(2/pi) (x + 0.044715 x^3), so -2u log2(e) =
// x (-2.3022082 - 0.10294324 x^2). GELU(erf) = x Phi(x) = 0.5 x erfc(-x / sqrt 2): erfc keeps
// the digits of the negative tail that 1 + erf(x / sqrt 2) cancels. SiLU = x / (1 + e^-x).
template <int kAct>
__device__ __forceinline__ float activate(float x) {
  if constexpr (kAct == kActRelu) return x < 0.0f ? 0.0f : x;
  if constexpr (kAct == kActGeluTanh) return div_one_plus_exp2(x, x * fmaf(x * x, -0.10294324f, -2.3022082f));
  if constexpr (kAct == kActGeluErf) return 0.5f * x * erfc_fast(-0.70710678f * x);
  if constexpr (kAct == kActSilu) return div_one_plus_exp2(x, -1.44269504f * x);
  return x;
}
// Every value of v, one unrolled loop per activation: the switch is taken once, not per value.
template <int kAct, int N>
__device__ __forceinline__ void activate_each(float (&v)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) v[i] = activate<kAct>(v[i]);
}
template <int N>
__device__ __forceinline__ void activate_all(float (&v)[N], int act) {
  switch (act) {
    case kActRelu: return activate_each<kActRelu>(v);
    case kActGeluTanh: return activate_each<kActGeluTanh>(v);
    case kActGeluErf: return activate_each<kActGeluErf>(v);
    case kActSilu: return activate_each<kActSilu>(v);
    default: return;
  }
}
__device__ __forceinline__ float activate(float x, int act) {
  float v[1] = {x};
  activate_all(v, act);
  return v[0];
}

// The bias value at index i (a row or a column of C).
template <class OutT>
__device__ __forceinline__ float epilogue_bias_at(const FusedEpilogue& e, int i) {
  return e.bias_f32 ? static_cast<const float*>(e.bias)[i] : from_out(static_cast<const OutT*>(e.bias)[i]);
}
// One value at (row, col) after alpha and beta.
template <class OutT>
__device__ __forceinline__ float epilogue_apply(const FusedEpilogue& e, float v, int row, int col) {
  if (e.bias_kind != kBiasNone) v += epilogue_bias_at<OutT>(e, e.bias_kind == kBiasRow ? row : col);
  return activate(v, e.activation);
}

// The bias of a quad of outputs at (row, col ..): the row's value four times, or the `valid` columns'
// values (one 16- or 8-byte load where the four are aligned), zeros past them and without a bias.
template <class OutT>
__device__ __forceinline__ void load_quad_bias(const FusedEpilogue& e, int row, int col, int valid, float (&b)[4]) {
  b[0] = b[1] = b[2] = b[3] = 0.0f;
  if (e.bias_kind == kBiasRow) {
    b[0] = b[1] = b[2] = b[3] = epilogue_bias_at<OutT>(e, row);
    return;
  }
  if (e.bias_kind != kBiasColumn) return;
  const int bytes = e.bias_f32 ? 4 : int(sizeof(OutT));
  const char* at = static_cast<const char*>(e.bias) + static_cast<long long>(col) * bytes;
  if (valid == 4 && reinterpret_cast<unsigned long long>(at) % (4 * bytes) == 0) {
    if (bytes == 4) {  // an F32 bias, or C's type is float
      const float4 v = *reinterpret_cast<const float4*>(at);
      b[0] = v.x, b[1] = v.y, b[2] = v.z, b[3] = v.w;
    } else if constexpr (sizeof(OutT) == 2) {
      const uint2 v = *reinterpret_cast<const uint2*>(at);
      const float2 lo = OutPair<OutT>::get(v.x), hi = OutPair<OutT>::get(v.y);
      b[0] = lo.x, b[1] = lo.y, b[2] = hi.x, b[3] = hi.y;
    }
    return;
  }
  for (int i = 0; i < valid; ++i) b[i] = epilogue_bias_at<OutT>(e, col + i);
}

// store_quad with the epilogue: `valid` outputs at (row, col ..); one bias load and one activation
// dispatch a quad (a load and a dispatch per value cost the cluster-sum path of 1024 x 768 x 3072 as
// much with ReLU as with GELU, perf note #116).
template <class OutT>
__device__ __forceinline__ void store_quad_fused(OutT* out, const float (&sums)[4], int valid, float alpha, float beta,
                                                 const FusedEpilogue& e, int row, int col) {
  if (e.plain()) return store_quad(out, sums, valid, alpha, beta);
  float v[4];
  load_quad_bias<OutT>(e, row, col, valid, v);
#pragma unroll
  for (int i = 0; i < 4; ++i)
    if (i < valid) v[i] += alpha * sums[i] + (beta != 0.0f ? beta * from_out(out[i]) : 0.0f);
  activate_all(v, e.activation);
  store_quad(out, v, valid, 1.0f, 0.0f);
}

// The tile's column bias in shared memory, laid out for the accumulators: row q holds the pairs of
// quad position q (columns n0 + 8 j + 2 q + {0, 1}, j = 0 .. BN / 8 - 1) one after the other, so a
// thread takes two j's pairs with one 16-byte load (BN / 16 loads a slice; spreading the bias through
// shuffles cost 64 MIO instructions a thread beside GELU's MUFU operations, perf note #114). Rows
// kPitch floats apart: the four rows a warp's loads touch lie on distinct banks. Each thread t < BN / 2
// of a warpgroup loads columns n0 + 2 t, + 1 when its tile starts (load_column_bias_pair) and puts
// them in place after the main loop (put_column_bias). The caller checks e.bias_kind.
template <int BN>
struct ColumnBiasRows {
  static constexpr int kPitch = BN / 4 + 4;
  static constexpr int kBytes = 4 * kPitch * int(sizeof(float));
};
template <int BN, class OutT>
__device__ __forceinline__ void load_column_bias_pair(float (&pair)[2], const FusedEpilogue& e, int n0, int t, int n) {
#pragma unroll
  for (int x = 0; x < 2; ++x) {
    const int col = n0 + 2 * t + x;
    pair[x] = 2 * t < BN && col < n ? epilogue_bias_at<OutT>(e, col) : 0.0f;
  }
}
template <int BN>
__device__ __forceinline__ void put_column_bias(float* rows, const float (&pair)[2], int t) {
  if (2 * t >= BN) return;
  const int col = 2 * t, j = col / 8, q = (col % 8) / 2;
  *reinterpret_cast<float2*>(rows + q * ColumnBiasRows<BN>::kPitch + 2 * j) = make_float2(pair[0], pair[1]);
}

// One m64nBN slice of wgmma accumulators turned into the epilogue's values in place, before the store
// path is chosen (the stores then write them with alpha 1 and beta 0). Thread `lane` of each warp
// holds rows row0 and row0 + 8, columns n0 + 8 j + 2 (lane % 4) + {0, 1} (sums[4 j + 2 half + x]);
// `bias_rows` holds the tile's column bias (ColumnBiasRows; past C's columns zeros). Rows and
// columns past C read neither C nor the bias (their values are staged, never stored). One unrolled
// loop per term, inlined once: a call per value spilled the accumulators around every call (perf
// note #105).
template <int BN, class OutT>
__device__ __forceinline__ void epilogue_in_registers(float (&sums)[BN / 2], const FusedEpilogue& e, float alpha,
                                                      float beta, const OutT* c, long long ldc, int row0, int n0,
                                                      int lane, int m, int n, const float* bias_rows) {
  const int q = lane % 4, col0 = n0 + 2 * q;
  if (beta != 0.0f) {
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int row = row0 + (i / 2) * 8, col = col0 + j * 8 + i % 2;
        const float old = row < m && col < n ? from_out(c[row * ldc + col]) : 0.0f;
        sums[j * 4 + i] = alpha * sums[j * 4 + i] + beta * old;
      }
  } else if (alpha != 1.0f) {
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) sums[i] *= alpha;
  }
  if (e.bias_kind == kBiasRow) {
    const float b0 = row0 < m ? epilogue_bias_at<OutT>(e, row0) : 0.0f;
    const float b1 = row0 + 8 < m ? epilogue_bias_at<OutT>(e, row0 + 8) : 0.0f;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      sums[j * 4] += b0, sums[j * 4 + 1] += b0;
      sums[j * 4 + 2] += b1, sums[j * 4 + 3] += b1;
    }
  } else if (e.bias_kind == kBiasColumn) {
    const float* row = bias_rows + q * ColumnBiasRows<BN>::kPitch;
#pragma unroll
    for (int j = 0; j < BN / 8; j += 2) {
      const float4 b = *reinterpret_cast<const float4*>(row + 2 * j);
      sums[j * 4] += b.x, sums[j * 4 + 1] += b.y, sums[j * 4 + 2] += b.x, sums[j * 4 + 3] += b.y;
      sums[j * 4 + 4] += b.z, sums[j * 4 + 5] += b.w, sums[j * 4 + 6] += b.z, sums[j * 4 + 7] += b.w;
    }
  }
  activate_all(sums, e.activation);
}

}  // namespace kernels
}  // namespace tilegemm
