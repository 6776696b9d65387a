// Internal launch layer: the canonical row-major problem and the per-level launchers.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/with_bool.hpp"
#include "dense/kernels/params.hpp"
#include "tilegemm/types.hpp"

namespace tilegemm {
namespace detail {

// The problem after the host launcher reduced it to row-major form (see kernels::GemmParams).
struct CanonicalGemm {
  kernels::GemmParams p;
  bool trans_a = false, trans_b = false;
  // 16-byte accesses along the operand's contiguous dimension are allowed: its pointer is 16-byte
  // aligned and its leading dimension a multiple of 4.
  bool vec_a = false, vec_b = false;
};

// The call after validation, reduced to the canonical row-major problem (column-major swaps the
// operands), with the copy widths its pointers and leading dimensions allow. No checks: the caller
// validated the arguments (tilegemm::check_gemm_args).
CanonicalGemm canonicalize(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                           float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                           float beta, float* c, int64_t ldc, Raster raster);

// Levels 1-5 (tiled levels use p.raster).
void launch_ladder(Kernel level, const CanonicalGemm& g, cudaStream_t stream);
// Level 6's schedule for the problem (by alignment and wave efficiency on `sms` SMs) and the output
// tiles (thread blocks) it launches.
struct WarpTiledPlan {
  bool large = true;  // WarpTiledLarge, else WarpTiledSmall (src/dense/warp_tiled_default.hpp)
  long long tiles = 0;
};
WarpTiledPlan plan_warp_tiled(const CanonicalGemm& g, int sms);
// Level 6 with the planned schedule.
void launch_warp_tiled(const CanonicalGemm& g, const WarpTiledPlan& plan, cudaStream_t stream);
// C = beta * C (k == 0 or alpha == 0).
void launch_scale(const kernels::GemmParams& p, cudaStream_t stream);

}  // namespace detail
}  // namespace tilegemm
