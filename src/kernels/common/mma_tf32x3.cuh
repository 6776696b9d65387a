// Warp-level tensor-core products at FP32 accuracy (3xTF32), shared by the dense level-7 block
// (kernels/gemm/07_mma_tf32x3.cuh) and BSR kernel 04 (kernels/bsr/04_tiled_tf32x3.cuh).
//
// 3xTF32 (split-precision emulation of an FP32 product): every operand v is split into
// big = tf32(v) (round to nearest, 10 mantissa bits) and small = tf32(v - big), and
// a * b ~ big_a * big_b + big_a * small_b + small_a * big_b (the small terms first). The dropped
// small_a * small_b and the rounding of small leave about 2^-22 relative per product, next to
// FP32's 2^-24 per product and per add. The tensor core rounds its sums toward zero, so the callers
// sum a few MMAs in a zeroed register tile and add that to their accumulators with round-to-nearest
// FP32 adds: the error then does not grow with a bias over long K (perf note B10a).
//
// The split carries FP32 accuracy only where both parts are numbers the tensor core keeps: TF32 has
// FP32's exponent range (the tensor core multiplies and adds subnormals exactly), but in the
// subnormal range its 10 mantissa bits sit above 2^-136, so a value below 2^-112 loses bits past
// FP32's 2^-24 relative; Inf and NaN turn the rest v - big into NaN (an Inf operand would give NaN
// where FFMA gives Inf). The callers keep FP32's contract with a guard: every split also folds its
// operand into a running minimum of nonzero magnitudes (split_tf32's min_key, two integer
// instructions), and a warp whose minimum is below 2^-112 or whose accumulators are not all finite
// recomputes its outputs with FFMA (split_exact). Measured on the H100 (2026-11-27, perf note #65):
// 4-9 % on the products that run level 7's tiles (models preset geomean 1.22x -> 1.16x cuBLAS);
// folding each staged tile once per thread block from shared memory instead cost more (5-11 %).
//
// Device code only, includes nothing: compiles with nvcc and with NVRTC.
#pragma once

namespace tilegemm {
namespace kernels {

// v rounded to TF32, to nearest with ties away from zero (cvt.rna.tf32.f32 for finite v): half a
// TF32 unit added to the magnitude's bits, the 13 low bits cleared. Two integer instructions where
// cvt.rna compiles to ~4 (a NaN/Inf test and a select among them), which made the splits a quarter
// of level 7's instructions (perf note #45). Inf and NaN inputs give NaN products (the rest v - big
// is NaN): the guard below sees them in the accumulators.
__device__ __forceinline__ unsigned round_tf32(float v) { return (__float_as_uint(v) + 0x1000u) & 0xffffe000u; }

// An order key of |v| for the guard's running minimum: 2 * bits - 2 with the sign shifted out, so
// nonzero magnitudes keep their order and both zeros map to 0xfffffffe, above every other key
// (a tile's zeros, padding included, never trip the guard).
__device__ __forceinline__ unsigned nonzero_magnitude_key(float v) { return (__float_as_uint(v) << 1) - 2u; }
// The smallest magnitude the split carries at FP32 accuracy: 2^-112 (exponent field 15), where the
// TF32 rest's lowest bit, 2^-136 at worst, is 2^-24 of the value.
constexpr unsigned kSplitMinKey = (0x07800000u << 1) - 2u;

// The TF32 part of v and the rest v - big (exact in FP32), both rounded to nearest (ties away) to
// TF32; the tensor core would truncate an unrounded rest, a bias toward zero in every small term.
// min_key: the running minimum of nonzero_magnitude_key over the operands split (the guard).
__device__ __forceinline__ void split_tf32(float v, unsigned& big, unsigned& small, unsigned& min_key) {
  big = round_tf32(v);
  small = round_tf32(v - __uint_as_float(big));
  const unsigned key = nonzero_magnitude_key(v);
  min_key = key < min_key ? key : min_key;
}

// Whether a warp's split products stand for FP32 arithmetic: every lane's operands at or above
// 2^-112 in magnitude (or zero) and every accumulator finite (not so after an Inf or NaN operand,
// or a product or sum that overflowed, where FFMA's answer differs in class). Warp-wide: each output
// of a warp depends on fragments its lanes split, and on no others. Call with the whole warp.
template <int kCount>
__device__ __forceinline__ bool split_exact(unsigned min_key, const float (&acc)[kCount]) {
  bool ok = min_key >= kSplitMinKey;
#pragma unroll
  for (int i = 0; i < kCount; ++i) ok &= fabsf(acc[i]) <= 3.402823466e38f;  // false for Inf and NaN
  return __all_sync(0xffffffffu, ok);
}

// d += a * b for one 16 x 8 x 8 TF32 tile (PTX fragment layouts: with g = lane / 4, t = lane % 4,
// a = A(g, t), A(g + 8, t), A(g, t + 4), A(g + 8, t + 4); b = B(t, g), B(t + 4, g);
// d = D(g, 2t), D(g, 2t + 1), D(g + 8, 2t), D(g + 8, 2t + 1)).
__device__ __forceinline__ void mma_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// d += the 3xTF32 product of split fragments, small terms first.
__device__ __forceinline__ void mma_tf32x3(float (&d)[4], const unsigned (&a_big)[4], const unsigned (&a_small)[4],
                                           const unsigned (&b_big)[2], const unsigned (&b_small)[2]) {
  mma_tf32(d, a_small, b_big);
  mma_tf32(d, a_big, b_small);
  mma_tf32(d, a_big, b_big);
}

// acc[mt][nt][e] += a[mt][e / 2] * b[nt][e % 2] by FFMA, in the MMA accumulator layout (a lane's
// rows g, g + 8 of tile row mt and columns 2t, 2t + 1 of tile column nt): one k step of the guard's
// FFMA recomputation, shared by the dense and BSR kernels.
template <int kMT, int kNT>
__device__ __forceinline__ void ffma_outer(float (&acc)[kMT][kNT][4], const float (&a)[kMT][2], const float (&b)[kNT][2]) {
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mt][nt][e] = fmaf(a[mt][e / 2], b[nt][e % 2], acc[mt][nt][e]);
}

template <int kMT, int kNT>
__device__ __forceinline__ void set_zero(float (&t)[kMT][kNT][4]) {
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) t[mt][nt][e] = 0.0f;
}

}  // namespace kernels
}  // namespace tilegemm
