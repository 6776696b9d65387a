// Warp-level tensor-core products at FP32 accuracy (3xTF32), shared by the dense level-7 block
// (dense/kernels/07_mma_tf32x3.cuh) and BSR kernel 04 (sparse/kernels/04_tiled_tf32x3.cuh).
//
// 3xTF32 (split-precision emulation of an FP32 product): every operand v is split into
// big = tf32(v) (round to nearest, 10 mantissa bits) and small = tf32(v - big), and
// a * b ~ big_a * big_b + big_a * small_b + small_a * big_b (the small terms first). The dropped
// small_a * small_b and the rounding of small leave about 2^-22 relative per product, next to
// FP32's 2^-24 per product and per add. The tensor core rounds its sums toward zero, so the callers
// sum a few MMAs in a zeroed register tile and add that to their accumulators with round-to-nearest
// FP32 adds: the error then does not grow with a bias over long K (perf note B10a).
//
// Device code only, includes nothing: compiles with nvcc and with NVRTC.
#pragma once

namespace tilegemm {
namespace kernels {

// v rounded to TF32, to nearest with ties away from zero (cvt.rna.tf32.f32 for finite v): half a
// TF32 unit added to the magnitude's bits, the 13 low bits cleared. Two integer instructions where
// cvt.rna compiles to ~4 (a NaN/Inf test and a select among them), which made the splits a quarter
// of level 7's instructions (perf note #45). Inf and NaN inputs give NaN products either way (the
// rest v - big is NaN).
__device__ __forceinline__ unsigned round_tf32(float v) { return (__float_as_uint(v) + 0x1000u) & 0xffffe000u; }

// The TF32 part of v and the rest v - big (exact in FP32), both rounded to nearest (ties away) to
// TF32; the tensor core would truncate an unrounded rest, a bias toward zero in every small term.
__device__ __forceinline__ void split_tf32(float v, unsigned& big, unsigned& small) {
  big = round_tf32(v);
  small = round_tf32(v - __uint_as_float(big));
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
