// The warp-level tensor-core pieces of the 16-bit kernels that run on mma.sync rather than wgmma
// (kernels/gemm/skinny_16bit.cuh): ldmatrix of 8 x 8 matrices of 16-bit elements from shared memory,
// plain or transposed, and the m16n8k16 product with FP32 accumulation. Fragment layouts: PTX ISA,
// "Matrix Fragments for mma.m16n8k16 with floating point type".
//
// Device code only.
#pragma once

namespace tilegemm {
namespace kernels {

// Four 8 x 8 matrices: lane t passes the address of row t % 8 of matrix t / 8 and receives, in r[j],
// the two elements (row t / 4, columns 2 (t % 4) and 2 (t % 4) + 1) of matrix j; kTrans: of matrix j
// transposed (rows of the stored matrix become its columns).
template <bool kTrans>
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned smem) {
  if constexpr (kTrans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem));
}

// Two matrices: lanes 0-15 pass the addresses (the others' are ignored).
template <bool kTrans>
__device__ __forceinline__ void ldmatrix_x2(unsigned (&r)[2], unsigned smem) {
  if constexpr (kTrans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(smem));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(smem));
}

// d += a b: a the 16 x 16 row fragment (4 registers of element pairs), b the 16 x 8 column fragment
// (2 registers), d the 16 x 8 FP32 accumulator; kF16: f16 elements, else bf16.
template <bool kF16>
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  if constexpr (kF16)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

}  // namespace kernels
}  // namespace tilegemm
