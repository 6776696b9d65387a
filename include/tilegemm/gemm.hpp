// Dense GEMM: C = alpha * op(A) * op(B) + beta * C   (BLAS semantics).
#pragma once
#include <cstdint>

#include "tilegemm/types.hpp"

struct CUstream_st;

namespace tilegemm {

using Stream = CUstream_st*;  // same type as cudaStream_t; nullptr is the legacy default stream

struct GemmOptions {
  Kernel kernel = Kernel::Auto;
  // Tile visiting order for levels 4-6; Auto dispatch uses the measured best (docs/ladder.md).
  Raster raster = Raster::Hilbert;
};

// Single-precision GEMM on device pointers, enqueued on `stream`.
//   layout: storage order of A, B and C (one for all three, as in cblas_sgemm).
//   op(A) is m x k, op(B) is k x n, C is m x n. m, n, k >= 0.
//   k == 0 gives C = beta * C; m == 0 or n == 0 is a no-op. beta == 0 never reads C.
//   lda/ldb/ldc >= the number of elements in a stored row (row-major) or column (col-major), and >= 1.
// Every argument is checked before anything is launched; a bad one throws tilegemm::Error naming it,
// and no output is touched.
void sgemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
           const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
           int64_t ldc, Stream stream = nullptr, const GemmOptions& options = {});

// The argument checks sgemm performs that need no device (sizes, leading dimensions, null pointers,
// overlap, index range). Throws tilegemm::Error; exposed for tools and tests.
void check_gemm_args(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                     const float* a, int64_t lda, const float* b, int64_t ldb, const float* c,
                     int64_t ldc);

}  // namespace tilegemm
