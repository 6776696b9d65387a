// tilegemm::sgemm: validation, reduction to the canonical row-major problem, dispatch.
#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <string>

#include "core/cuda_check.hpp"
#include "core/device_checks.hpp"
#include "dense/launch.hpp"
#include "tilegemm/device.hpp"
#include "tilegemm/error.hpp"
#include "tilegemm/gemm.hpp"

namespace tilegemm {

namespace {

[[noreturn]] void invalid(const std::string& msg) { throw Error(ErrorCode::InvalidArgument, msg); }

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }
int clamp_ld(int64_t ld) { return ld > INT_MAX ? INT_MAX : static_cast<int>(ld); }

// Kernel::Auto: the one place that chooses. Heuristics from the measurements in docs/ladder.md until
// the tuner's database exists (ratios to cuBLAS):
// - level 6 needs its large tiles to fill at least half the SMs; below that (1000^3: 32 tiles,
//   skinny shapes) level 5's 128x128 tiles are faster (1000^3: 0.54x vs 0.30x). At 2048^3 (128
//   tiles, one wave) level 6 wins: 0.868x vs 0.808x (H200), 0.889x vs 0.804x (H100);
// - since level 6 transposes k-contiguous operands in its copies (perf note #16) it also wins with
//   unaligned operands (4095x4097x4093: 0.891x vs level 5's 0.869x) and for every op combination,
//   which used to go to level 5.
Kernel choose_kernel(const detail::WarpTiledPlan& level6, int sms) {
  return 2 * level6.tiles >= sms ? Kernel::WarpTiled : Kernel::Vectorized;
}

}  // namespace

detail::CanonicalGemm detail::canonicalize(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n,
                                           int64_t k, float alpha, const float* a, int64_t lda,
                                           const float* b, int64_t ldb, float beta, float* c,
                                           int64_t ldc, Raster raster) {
  // Column-major C = op(A) op(B) is row-major C^T = op(B)^T op(A)^T over the same memory, with the
  // operands swapped and each keeping its op.
  CanonicalGemm g;
  kernels::GemmParams& p = g.p;
  const bool row = layout == Layout::RowMajor;
  p.m = static_cast<int>(row ? m : n);
  p.n = static_cast<int>(row ? n : m);
  p.k = static_cast<int>(k);
  p.alpha = alpha;
  p.beta = beta;
  p.a = row ? a : b;
  p.lda = clamp_ld(row ? lda : ldb);  // a clamped ld only occurs with a single stored row/column
  p.b = row ? b : a;
  p.ldb = clamp_ld(row ? ldb : lda);
  p.c = c;
  p.ldc = clamp_ld(ldc);
  p.raster = static_cast<int>(raster);
  p.c_vec4 = aligned16(c) && p.ldc % 4 == 0;
  g.trans_a = (row ? op_a : op_b) == Op::T;
  g.trans_b = (row ? op_b : op_a) == Op::T;
  g.vec_a = aligned16(p.a) && p.lda % 4 == 0;
  g.vec_b = aligned16(p.b) && p.ldb % 4 == 0;
  return g;
}

void sgemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
           const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
           int64_t ldc, Stream stream, const GemmOptions& options) {
  check_gemm_args(layout, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc);
  const int level = static_cast<int>(options.kernel);
  if (level < 0 || level > kNumLadderLevels)
    invalid("options.kernel = " + std::to_string(level) + " is not a ladder level (0-" +
            std::to_string(kNumLadderLevels) + ")");
  const int raster = static_cast<int>(options.raster);
  if (raster < 0 || raster > 2)
    invalid("options.raster = " + std::to_string(raster) + " is not a Raster value");
  if (m == 0 || n == 0) return;  // nothing to write

  detail::require_supported_device_cached();
  const bool reads_ab = k > 0 && alpha != 0.0f;  // BLAS quick return otherwise: C = beta * C
  if (reads_ab) {
    detail::require_device_pointer("a", a);
    detail::require_device_pointer("b", b);
  }
  detail::require_device_pointer("c", c);

  const detail::CanonicalGemm g = detail::canonicalize(layout, op_a, op_b, m, n, k, alpha, a, lda, b, ldb,
                                                        beta, c, ldc, options.raster);
  const kernels::GemmParams& p = g.p;

  cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
  if (!reads_ab) {
    detail::launch_scale(p, s);
    return;
  }
  Kernel kernel = options.kernel;
  if (kernel == Kernel::Auto || kernel == Kernel::WarpTiled) {
    const int sms = detail::current_sm_count();  // once per call: the plan and Auto both need it
    const detail::WarpTiledPlan level6 = detail::plan_warp_tiled(g, sms);
    if (kernel == Kernel::Auto) kernel = choose_kernel(level6, sms);
    if (kernel == Kernel::WarpTiled) {
      detail::launch_warp_tiled(g, level6, s);
      return;
    }
  }
  detail::launch_ladder(kernel, g, s);
}

}  // namespace tilegemm
