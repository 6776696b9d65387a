// tilegemm::sgemm: validation, reduction to the canonical row-major problem, dispatch (a ladder level,
// an explicit config, or the analytic chooser of Kernel::Auto: dense/choose.hpp).
#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <optional>
#include <string>

#include "core/cuda_check.hpp"
#include "core/device_checks.hpp"
#include "core/device_context.hpp"
#include "dense/choose.hpp"
#include "dense/config.hpp"
#include "dense/gemm_ops.hpp"
#include "dense/launch.hpp"
#include "tilegemm/error.hpp"
#include "tilegemm/gemm.hpp"
#include "tune/tuned_table.hpp"

namespace tilegemm {

namespace {

[[noreturn]] void invalid(const std::string& msg) { throw Error(ErrorCode::InvalidArgument, msg); }

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }
bool aligned32(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 32 == 0; }
int clamp_ld(int64_t ld) { return ld > INT_MAX ? INT_MAX : static_cast<int>(ld); }

// options.kernel and options.raster hold enum values; options.config, when given, parses (its
// applicability needs the problem's alignment, checked later but before any launch).
std::optional<detail::GemmConfig> check_options(const GemmOptions& options) {
  const int level = static_cast<int>(options.kernel);
  if (level < 0 || level > kNumLadderLevels)
    invalid("options.kernel = " + std::to_string(level) + " is not a ladder level (0-" +
            std::to_string(kNumLadderLevels) + ")");
  const int raster = static_cast<int>(options.raster);
  if (raster < 0 || raster > 2)
    invalid("options.raster = " + std::to_string(raster) + " is not a Raster value");
  const int math = static_cast<int>(options.math);
  if (math < 0 || math > 1) invalid("options.math = " + std::to_string(math) + " is not a Math value");
  if (options.config.empty()) return std::nullopt;
  if (options.kernel != Kernel::Auto)
    invalid("options.config = '" + options.config + "' needs options.kernel = auto (it is " +
            to_string(options.kernel) + ")");
  // An application that forces a config passes the same text on every call: parsing it was ~2 us of
  // a ~7 us call (tilegemm overhead, H100 host, 2026-11-25).
  thread_local std::string last_text;
  thread_local detail::GemmConfig last_config;
  if (options.config != last_text) {
    last_config = detail::parse_gemm_config(options.config, "options.config");  // throws: cache untouched
    last_text = options.config;
  }
  return last_config;
}

void require_applicable(const detail::GemmProblem& problem, const detail::GemmConfig& c, const GemmOptions& options) {
  const std::string why = detail::can_implement(problem, c);
  if (!why.empty()) invalid("options.config = '" + options.config + "' cannot run this product: " + why);
}

// The problem Auto chooses for: options.math may keep it to FFMA configs.
detail::GemmProblem auto_problem(const detail::CanonicalGemm& g, const GemmOptions& options) {
  detail::GemmProblem p = detail::describe(g);
  p.ffma_only = options.math == Math::FfmaOnly;
  return p;
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
  p.c_vec8 = aligned32(c) && p.ldc % 8 == 0;
  g.trans_a = (row ? op_a : op_b) == Op::T;
  g.trans_b = (row ? op_b : op_a) == Op::T;
  g.vec_a = aligned16(p.a) && p.lda % 4 == 0;
  g.vec_b = aligned16(p.b) && p.ldb % 4 == 0;
  g.shift_a = !g.vec_a && p.lda % 4 == 0;
  g.shift_b = !g.vec_b && p.ldb % 4 == 0;
  g.shifts_match = g.shift_a && g.shift_b &&
                   reinterpret_cast<uintptr_t>(p.a) % 16 == reinterpret_cast<uintptr_t>(p.b) % 16;
  // Stored rows x row length of A and B, each extent = (rows - 1) * ld + row length.
  const int64_t rows_a = g.trans_a ? k : p.m, len_a = g.trans_a ? p.m : k;
  const int64_t rows_b = g.trans_b ? p.n : k, len_b = g.trans_b ? k : p.n;
  g.tiled_offsets_fit = (rows_a - 1) * static_cast<int64_t>(p.lda) + len_a <= kMaxTiledExtent &&
                        (rows_b - 1) * static_cast<int64_t>(p.ldb) + len_b <= kMaxTiledExtent;
  return g;
}

void sgemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
           const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
           int64_t ldc, Stream stream, const GemmOptions& options) {
  check_gemm_args(layout, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, c, ldc);
  const std::optional<detail::GemmConfig> forced = check_options(options);
  if (m == 0 || n == 0) return;  // nothing to write
  const bool reads_ab = k > 0 && alpha != 0.0f;  // BLAS quick return otherwise: C = beta * C
  const detail::CanonicalGemm g = detail::canonicalize(layout, op_a, op_b, m, n, k, alpha, a, lda, b, ldb,
                                                        beta, c, ldc, options.raster);
  if (forced && reads_ab) require_applicable(detail::describe(g), *forced, options);
  // Level 7 runs as a config: its schedule over whole tiles, unaligned operands packed first.
  std::optional<detail::GemmConfig> level7;
  if (options.kernel == Kernel::MmaTf32x3 && reads_ab) {
    level7 = detail::level7_config(detail::describe(g));
    const std::string why = detail::can_implement(detail::describe(g), *level7);
    if (!why.empty()) invalid("options.kernel = 07-mma-tf32x3 cannot run this product: " + why);
  }
  const bool tiled_level = options.kernel == Kernel::WarpTiled || options.kernel == Kernel::MmaTf32x3;
  if (tiled_level && reads_ab && !g.tiled_offsets_fit)
    invalid("options.kernel = " + to_string(options.kernel) + " takes A and B of at most " + std::to_string(detail::kMaxTiledExtent) +
            " elements each (32-bit offsets in its copies; C may be larger): use Kernel::Auto, which runs level 5 "
            "or the GEMV kernels on larger operands");

  const detail::DeviceContext& ctx = detail::current_device_context();  // NoDevice / UnsupportedArch
  if (reads_ab) {
    detail::require_device_pointer("a", a, ctx.ordinal);
    detail::require_device_pointer("b", b, ctx.ordinal);
  }
  detail::require_device_pointer("c", c, ctx.ordinal);

  cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
  if (!reads_ab) {
    detail::launch_scale(g.p, s);
    return;
  }
  const detail::DeviceFacts facts = detail::device_facts(ctx);
  if (forced) {
    detail::run_config(g, *forced, facts, s);
  } else if (options.kernel == Kernel::Auto) {
    const std::optional<detail::GemmConfig> c = detail::cached_choice(
        auto_problem(g, options), facts, [&ctx](const detail::GemmProblem& p) { return detail::tuned_gemm_config(ctx, p); });
    if (c) detail::run_config(g, *c, facts, s);
    else detail::launch_ladder(Kernel::Vectorized, g, s);  // A or B beyond the tiled kernels' 32-bit copies
  } else if (options.kernel == Kernel::WarpTiled) {
    detail::launch_warp_tiled(g, detail::plan_warp_tiled(g, ctx.sm_count), s);
  } else if (level7) {
    detail::run_config(g, *level7, facts, s);
  } else {
    detail::launch_ladder(options.kernel, g, s);
  }
}

GemmChoice explain_choice(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                          const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                          const float* c, int64_t ldc, const GemmOptions& options) {
  check_gemm_args(layout, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, c, ldc);
  const std::optional<detail::GemmConfig> forced = check_options(options);
  GemmChoice out;
  if (m == 0 || n == 0) {
    out.kind = "empty";
    out.reason = "m or n is 0: nothing to write";
    return out;
  }
  if (k == 0 || alpha == 0.0f) {
    out.kind = "scale";
    out.config = "scale C";
    out.reason = "k == 0 or alpha == 0: C = beta * C without reading A or B";
    return out;
  }
  if (!forced && options.kernel != Kernel::Auto) {
    out.kind = "ladder";
    out.config = to_string(options.kernel);
    out.reason = "options.kernel names a ladder level";
    return out;
  }
  const detail::CanonicalGemm g = detail::canonicalize(layout, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta,
                                                        const_cast<float*>(c), ldc, options.raster);
  const detail::GemmProblem problem = auto_problem(g, options);
  const detail::DeviceContext& ctx = detail::current_device_context();
  const detail::DeviceFacts device = detail::device_facts(ctx);
  detail::ScoredConfig best;
  const std::optional<detail::GemmConfig> tuned =
      forced ? std::nullopt : detail::tuned_gemm_config(ctx, problem);
  if (forced) {
    require_applicable(problem, *forced, options);
    best = detail::score_config(problem, *forced, device);
    best.why = "options.config; " + best.why;
  } else if (tuned) {
    best = detail::score_config(problem, *tuned, device);
    best.why = "the tuning database's winner for this problem on this device; model: " + best.why;
    out.tuned = true;
  } else {
    const detail::ConfigChoice choice = detail::choose_config(problem, device);
    if (choice.ranked.empty()) {
      out.kind = "ladder";
      out.config = to_string(Kernel::Vectorized);
      out.reason = "A or B spans more than " + std::to_string(detail::kMaxTiledExtent) +
                   " elements (the tiled kernels' 32-bit copies) and no GEMV shape: level 5 (64-bit offsets)";
      return out;
    }
    best = choice.best;
    for (size_t i = 1; i < choice.ranked.size() && out.runners_up.size() < 4; ++i)
      out.runners_up.emplace_back(detail::to_string(choice.ranked[i].config), choice.ranked[i].predicted_us);
  }
  out.config = detail::to_string(best.config);
  out.kind = detail::config_class(problem, best.config, device);
  out.predicted_us = best.predicted_us;
  out.reason = best.why;
  return out;
}

}  // namespace tilegemm
