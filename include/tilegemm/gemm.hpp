// Dense GEMM: C = alpha * op(A) * op(B) + beta * C   (BLAS semantics).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tilegemm/types.hpp"

struct CUstream_st;

namespace tilegemm {

using Stream = CUstream_st*;  // same type as cudaStream_t; nullptr is the legacy default stream

struct GemmOptions {
  // A ladder level, or Auto: the analytic chooser picks a config (docs/shapes.md).
  Kernel kernel = Kernel::Auto;
  // Tile visiting order for levels 4-6; Auto dispatch uses the measured best (docs/ladder.md).
  Raster raster = Raster::Hilbert;
  // A config in its text form runs exactly that config instead of the chooser's pick (kernel must be
  // Auto), e.g. "tiled:64x64x16:w32x32:t8x4:s3:b6:k8:hilbert" or "gemv-cols:s1:k4"
  // (docs/shapes.md lists the families and fields). An unknown or inapplicable config throws
  // Error(InvalidArgument) naming options.config and why, before anything is launched.
  std::string config;
  // Which math Auto may pick from (types.hpp, Math): by default FFMA or 3xTF32 tensor cores (level 7),
  // both FP32-class; Math::FfmaOnly keeps Auto and its tuned configs on CUDA cores. A named config or
  // ladder level runs as named.
  Math math = Math::Fp32;
};

// Single-precision GEMM on device pointers, enqueued on `stream`.
//   layout: storage order of A, B and C (one for all three, as in cblas_sgemm).
//   op(A) is m x k, op(B) is k x n, C is m x n. m, n, k >= 0.
//   k == 0 or alpha == 0 gives C = beta * C without reading A or B (they may then be null);
//   m == 0 or n == 0 is a no-op. beta == 0 never reads C.
//   lda/ldb/ldc >= the number of elements in a stored row (row-major) or column (col-major), and >= 1,
//   and <= 2^31 - 1. Matrices may span more than 2^31 elements.
// Every argument is checked before anything is launched; a bad one throws tilegemm::Error naming it,
// and no output is touched.
void sgemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
           const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
           int64_t ldc, Stream stream = nullptr, const GemmOptions& options = {});

// The argument checks sgemm performs that need no device (sizes, leading dimensions, null pointers,
// overlap). Like the reference BLAS, alpha == 0 or k == 0 reads neither A nor B, so they may be null
// then. Throws tilegemm::Error; exposed for tools and tests.
void check_gemm_args(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                     const float* a, int64_t lda, const float* b, int64_t ldb, const float* c,
                     int64_t ldc);

// What sgemm would run for these arguments and why (the library never prints; the tools print this
// when TILEGEMM_LOG_CHOICE=1). The pointers are only looked at for their alignment.
struct GemmChoice {
  std::string config;  // the config's text form (GemmOptions::config), or the ladder level / "scale C"
  // "gemv", "split-k", "stream-k", "small-tile", "big-tile"; "ladder" for an explicit level;
  // "scale" for the quick return C = beta * C (k == 0 or alpha == 0); "empty" for m or n == 0.
  std::string kind;
  bool tuned = false;       // the config is the tuning database's winner (tilegemm/tune.hpp), not the model's
  double predicted_us = 0;  // the analytic model's time (0 when no model applies)
  std::string reason;       // the model's terms: waves, slices, compute/DRAM/L2 times
  std::vector<std::pair<std::string, double>> runners_up;  // the next best configs and their times
};
GemmChoice explain_choice(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                          const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                          const float* c, int64_t ldc, const GemmOptions& options = {});

}  // namespace tilegemm
