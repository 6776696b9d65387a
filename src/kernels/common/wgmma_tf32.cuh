// Level 8's FP32 operands (kernels/gemm/08_wgmma_tma.cuh, WgmmaIn::TF32 and TF32x3): TMA stores FP32
// tiles as it does 16-bit ones (128-byte lines: 32 elements of k, or of m or n, swizzled). wgmma on
// TF32 reads only K-major tiles and takes no rounding of its own (it ignores the 13 low bits: TF32 by
// truncation), so
//  - TF32 (one product) reads K-major operands from TMA's tiles as they are; an MN-major A goes
//    through registers (load_a_fragments_k_order, wgmma taking A from registers) and an MN-major B
//    is copied K-major first (kernels/gemm/split_b_tf32.cuh, one part: the bits as stored; a product
//    whose B is MN-major runs as C^T = B^T A^T where that pays, the B's lines then A's);
//  - 3xTF32 makes B's TF32 parts (big = tf32(v), small = tf32(v - big), both rounded to nearest)
//    once before the product, K-major (split_b_tf32.cuh), and each consumer warpgroup loads its A
//    fragments into registers (load_a_fragments) and splits them there (split_fragments), wgmma
//    taking A from registers.
// The 3xTF32 guard's key (mma_tf32x3.cuh) folds every operand value split, and ffma_tile recomputes a
// warpgroup's sums with FFMA where the guard finds the split short of FP32.
//
// Byte offsets in a 1024-byte aligned tile of 128-byte lines, 16-byte chunk c of line l at chunk
// c ^ (l % 8) (TMA's 128-byte swizzle):
//  - K-major (lines along m or n): element (mn, k) at mn * 128 + ((k / 4) ^ (mn % 8)) * 16 + (k % 4) * 4;
//  - MN-major (lines along k, boxes of 32 m or n, 4 KB apart): element (mn, k) at (mn / 32) * 4096 +
//    k * 128 + (((mn % 32) / 4) ^ (k % 8)) * 16 + (mn % 4) * 4 (tf32_mn_major_at).
// Device code only.
#pragma once
#include "kernels/common/mma_tf32x3.cuh"

namespace tilegemm {
namespace kernels {

__device__ __forceinline__ int tf32_mn_major_at(int mn, int k) {
  return (mn >> 5) * 4096 + k * 128 + ((((mn & 31) >> 2) ^ (k & 7)) << 4) + (mn & 3) * 4;
}

// The TF32 parts of one value: with kParts == 2 big, small and the guard's key (3xTF32); with 1 the
// value's bits as they are (TF32's copies: the tensor core truncates them as it does TMA's tiles).
template <int kParts>
__device__ __forceinline__ void tf32_parts(float v, unsigned& big, unsigned& small, unsigned& min_key) {
  if constexpr (kParts == 2) {
    split_tf32(v, big, small, min_key);
  } else {
    big = __float_as_uint(v);
    small = 0;
  }
}

// The k order inside a step of 32 that the A fragments and B's TF32 parts share: wgmma's register
// slot (k8 step kk, column t or t + 4: h = 0 or 1) of thread t holds logical k 8 t + 2 kk + h, so a
// thread's 8 values of a K-major A row are 32 contiguous bytes (two 16-byte loads); B's parts store
// logical k at the position wgmma reads for that slot, 8 kk + 4 h + t (split_b_tf32).
__device__ __forceinline__ int tf32_k_position(int k) { return 8 * ((k % 8) / 2) + 4 * (k % 2) + k / 8; }

// A thread's A values of one stage (32 k) for WgmmaTf32's register fragments, raw FP32 bits: rows `r`
// (its warp's row g of the stage tile) and r + 8, fragment kk (k8 step) in raw[4 kk .. 4 kk + 3] as
// (r, slot t), (r + 8, slot t), (r, slot t + 4), (r + 8, slot t + 4), slots in tf32_k_position's
// order. K-major: two 16-byte loads per row, 8 distinct chunks per quarter warp (the swizzle); MN-major:
// 8 scalar loads per row.
template <bool kAMn>
__device__ __forceinline__ void load_a_fragments(const void* tile, int r, int t, unsigned (&raw)[16]) {
  const unsigned char* in = static_cast<const unsigned char*>(tile);
#pragma unroll
  for (int h2 = 0; h2 < 2; ++h2) {
    const int row = r + 8 * h2;
    unsigned v[8];  // logical k 8 t .. 8 t + 7
    if constexpr (kAMn) {
#pragma unroll
      for (int s = 0; s < 8; ++s) v[s] = *reinterpret_cast<const unsigned*>(in + tf32_mn_major_at(row, 8 * t + s));
    } else {
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const uint4 q = *reinterpret_cast<const uint4*>(in + row * 128 + (((2 * t + c) ^ (row & 7)) << 4));
        v[4 * c] = q.x, v[4 * c + 1] = q.y, v[4 * c + 2] = q.z, v[4 * c + 3] = q.w;
      }
    }
#pragma unroll
    for (int s = 0; s < 8; ++s) raw[(s / 2) * 4 + (s % 2) * 2 + h2] = v[s];
  }
}

// TF32's (one product) A fragments of one stage from an MN-major tile, in k order (B's tile is TMA's
// K-major one): frag[kk] = A(r, 8 kk + t), A(r + 8, 8 kk + t), A(r, 8 kk + t + 4), A(r + 8, 8 kk + t + 4),
// the FP32 bits as stored (the tensor core truncates them as it does the tiles it reads). 16 scalar
// loads; a warp's load reads 8 chunks of 16 bytes (4 lines of k, 2 chunks each), which the swizzle
// puts on 4 distinct chunk positions of the banks: 2 wavefronts.
__device__ __forceinline__ void load_a_fragments_k_order(const void* tile, int r, int t, unsigned (&frag)[4][4]) {
  const unsigned char* in = static_cast<const unsigned char*>(tile);
#pragma unroll
  for (int kk = 0; kk < 4; ++kk)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      frag[kk][e] = *reinterpret_cast<const unsigned*>(in + tf32_mn_major_at(r + 8 * (e % 2), 8 * kk + t + 4 * (e / 2)));
}

// The TF32 parts of a thread's A fragments (load_a_fragments), and the guard's key (kParts == 2).
template <int kParts>
__device__ __forceinline__ void split_fragments(const unsigned (&raw)[16], unsigned (&big)[4][4],
                                                unsigned (&small)[4][4], unsigned& min_key) {
#pragma unroll
  for (int i = 0; i < 16; ++i)
    tf32_parts<kParts>(__uint_as_float(raw[i]), big[i / 4][i % 4], small[i / 4][i % 4], min_key);
}

// FFMA sums of a thread's share of an m64 x BN accumulator slice (rows `row`, row + 8; column pairs
// col + 8 j, j < BN / 8) over k in [k_lo, k_hi), from A and B in global memory as the launch stores them
// (A: m x k, or k x m when kAMn; B: n x k, or k x n when kBMn), rows and columns past the matrix zero:
// the 3xTF32 guard's recomputation (mma_tf32x3.cuh), slow and rare.
template <int BN, bool kAMn, bool kBMn>
__device__ __forceinline__ void ffma_tile(const float* a, long long lda, const float* b, long long ldb, int m, int n,
                                       int row, int col, int k_lo, int k_hi, float (&sums)[BN / 2]) {
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) sums[i] = 0.0f;
  for (int k = k_lo; k < k_hi; ++k) {
    float av[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const long long r = row + h * 8;
      av[h] = r < m ? (kAMn ? a[k * lda + r] : a[r * lda + k]) : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const long long c = col + j * 8 + e;
        const float bv = c < n ? (kBMn ? b[k * ldb + c] : b[c * ldb + k]) : 0.0f;
#pragma unroll
        for (int h = 0; h < 2; ++h) sums[j * 4 + h * 2 + e] = fmaf(av[h], bv, sums[j * 4 + h * 2 + e]);
      }
  }
}

}  // namespace kernels
}  // namespace tilegemm
