// tilegemm::gemm and sgemm: validation, reduction to the canonical problem (ops/gemm_call.hpp), the
// config to run (options.config, an explicit ladder level, or Auto's choice over the registered kernel
// families: ops/choose.hpp), and its family's launch: one for all batches where the family runs them
// (ops::Family::runs_batches), else one per batch.
#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_checks.hpp"
#include "core/device_context.hpp"
#include "dense/check_args.hpp"
#include "dense/gemm_ops.hpp"
#include "dense/launch.hpp"
#include "ops/choose.hpp"
#include "ops/context_state.hpp"
#include "ops/families/dense_f32/dense_f32_family.hpp"
#include "ops/gemm_call.hpp"
#include "ops/registry.hpp"
#include "tilegemm/error.hpp"
#include "tilegemm/gemm.hpp"
#include "tune/tuned_table.hpp"

namespace tilegemm {

namespace {

[[noreturn]] void invalid(const std::string& msg) { throw Error(ErrorCode::InvalidArgument, msg); }

int clamp_ld(int64_t ld) { return ld > INT_MAX ? INT_MAX : static_cast<int>(ld); }

// A config text parsed by the family that claims it, through the device context's cache when there
// is a device (an application that forces a config passes the same text on every call).
ops::Config parse_cached(const std::string& text, const char* what, const detail::DeviceContext* ctx) {
  auto parse = [what](const std::string& t) { return ops::registry().parse(t, what, ops::OpKind::Gemm); };
  return ctx ? ctx->ops->gemm_configs.get(text, parse) : parse(text);
}

// options.kernel, options.raster and options.math hold enum values; the config named by
// options.config or options.kernel (empty for Auto).
ops::Config named_config(const GemmOptions& options, const detail::DeviceContext* ctx) {
  const int level = static_cast<int>(options.kernel);
  if (level < 0 || level > kNumLadderLevels)
    invalid("options.kernel = " + std::to_string(level) + " is not a ladder level (0-" +
            std::to_string(kNumLadderLevels) + ")");
  const int raster = static_cast<int>(options.raster);
  if (raster < 0 || raster > 2)
    invalid("options.raster = " + std::to_string(raster) + " is not a Raster value");
  const int math = static_cast<int>(options.math);
  if (math < 0 || math > static_cast<int>(Math::Tf32))  // Tf32: the last value
    invalid("options.math = " + std::to_string(math) + " is not a Math value");
  if (!options.config.empty()) {
    if (options.kernel != Kernel::Auto)
      invalid("options.config = '" + options.config + "' needs options.kernel = auto (it is " +
              to_string(options.kernel) + ")");
    return parse_cached(options.config, "options.config", ctx);
  }
  if (options.kernel == Kernel::Auto) return ops::Config();
  return parse_cached("ladder:" + std::to_string(level), "options.kernel", ctx);
}

// Why a named config cannot run the problem, as the error names it.
void require_applicable(const ops::Problem& p, const ops::Config& c, const GemmOptions& options,
                        const detail::DeviceFacts& device) {
  std::string why = c.family()->runs_on(device);
  if (why.empty()) why = c.family()->can_implement(ops::launch_problem(*c.family(), p), c);
  if (why.empty()) return;
  if (!options.config.empty()) invalid("options.config = '" + options.config + "' cannot run this product: " + why);
  invalid("options.kernel = " + to_string(options.kernel) + " cannot run this product: " + why);
}

detail::DeviceFacts facts_of(const detail::DeviceContext* ctx) {
  return ctx ? detail::device_facts(*ctx) : detail::DeviceFacts{};
}

// Auto's config: the context's cache, the tuning database, the ranking. Without a device (the call
// fails with NoDevice next) the ranking alone, to say why no family can run a product.
ops::TunedLookup tuned_lookup(const detail::DeviceContext& ctx) {
  return [&ctx](const ops::Problem& q) { return detail::tuned_config(ctx, q); };
}

ops::Config auto_config(const ops::Problem& p, const detail::DeviceContext* ctx) {
  if (!ctx) return ops::rank(p, detail::DeviceFacts{}).best();
  return ops::choose(p, detail::device_facts(*ctx), ctx->ops->choices, tuned_lookup(*ctx));
}

// The bias and activation over one batch's C, where nothing applied them (ops::Family::fuses_epilogue).
void epilogue_pass(const ops::Problem& p, const ops::Operands& o, int sm_count, cudaStream_t s) {
  if (p.plain_epilogue()) return;
  detail::launch_epilogue_pass(o.c, p.c_type, static_cast<int>(p.m), static_cast<int>(p.n), o.ldc, o.bias, p.bias,
                               p.bias_type, p.activation, sm_count, s);
}

// C = activation(beta * C + bias) for every batch (the quick return: k == 0 or alpha == 0).
void scale_batches(const ops::GemmCall& call, int64_t batch, int sm_count, cudaStream_t s) {
  for (int64_t b = 0; b < batch; ++b) {
    const ops::Operands o = ops::batch_operands(call, b);
    detail::launch_scale(o.c, call.problem.c_type, static_cast<int>(call.problem.m), static_cast<int>(call.problem.n),
                         clamp_ld(o.ldc), o.beta, s);
    epilogue_pass(call.problem, o, sm_count, s);
  }
}

void run_gemm(const GemmArgs& args, Stream stream, const GemmOptions& options, const detail::GemmArgNames& names) {
  detail::check_gemm(args, names);
  const detail::DeviceContext* ctx = detail::current_device_context_if_any();
  const ops::Config named = named_config(options, ctx);
  if (args.m == 0 || args.n == 0 || args.batch == 0) return;  // nothing to write
  const bool reads_ab = args.k > 0 && args.epilogue.alpha != 0.0f;  // BLAS quick return otherwise: C = beta * C
  const ops::GemmCall call = ops::gemm_call(args, options);
  ops::Config config;
  if (reads_ab) {
    if (!named.empty()) {
      require_applicable(call.problem, named, options, facts_of(ctx));
      config = named;
    } else {
      config = auto_config(call.problem, ctx);
      if (config.empty()) invalid(ops::no_family_reason(call.problem, ops::rank(call.problem, facts_of(ctx))));
    }
  } else if (args.c.type != DType::F32 && args.c.type != DType::BF16 && args.c.type != DType::F16) {
    invalid(std::string(names.c_type) + " = " + to_string(args.c.type) + ": C must be F32, BF16 or F16");
  }

  if (!ctx) ctx = &detail::current_device_context();  // throws NoDevice / UnsupportedArch
  if (reads_ab) {
    detail::require_device_pointer(names.a, args.a.data, ctx->ordinal);
    detail::require_device_pointer(names.b, args.b.data, ctx->ordinal);
  }
  detail::require_device_pointer(names.c, args.c.data, ctx->ordinal);
  if (args.epilogue.bias_kind != BiasKind::None)
    detail::require_device_pointer(names.bias, args.epilogue.bias, ctx->ordinal);

  cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
  const detail::DeviceFacts facts = detail::device_facts(*ctx);
  if (!reads_ab) return scale_batches(call, args.batch, facts.sm_count, s);
  const ops::Family& family = *config.family();
  const ops::Problem launch = ops::launch_problem(family, call.problem);
  const bool pass = !family.fuses_epilogue();  // the bias and activation after each product
  if (launch.batch > 1) {
    family.run(launch, config, call.operands, facts, s);
    if (pass)
      for (int64_t b = 0; b < args.batch; ++b) epilogue_pass(launch, ops::batch_operands(call, b), facts.sm_count, s);
    return;
  }
  for (int64_t b = 0; b < args.batch; ++b) {
    const ops::Operands o = ops::batch_operands(call, b);
    family.run(launch, config, o, facts, s);
    if (pass) epilogue_pass(launch, o, facts.sm_count, s);
  }
}

}  // namespace

detail::CanonicalGemm detail::canonicalize(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n,
                                           int64_t k, float alpha, const float* a, int64_t lda,
                                           const float* b, int64_t ldb, float beta, float* c,
                                           int64_t ldc, Raster raster) {
  GemmOptions options;
  options.raster = raster;
  const ops::GemmCall call =
      ops::gemm_call(detail::sgemm_args(layout, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc), options);
  return ops::canonical_gemm(call.problem, call.operands);
}

void gemm(const GemmArgs& args, Stream stream, const GemmOptions& options) {
  run_gemm(args, stream, options, detail::kGemmArgNames);
}

void sgemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
           const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
           int64_t ldc, Stream stream, const GemmOptions& options) {
  run_gemm(detail::sgemm_args(layout, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc), stream, options,
           detail::kSgemmArgNames);
}

namespace {

GemmChoice explain(const GemmArgs& args, const GemmOptions& options, const detail::GemmArgNames& names) {
  detail::check_gemm(args, names);
  const detail::DeviceContext* ctx = detail::current_device_context_if_any();
  const ops::Config named = named_config(options, ctx);
  GemmChoice out;
  if (args.m == 0 || args.n == 0 || args.batch == 0) {
    out.kind = "empty";
    out.reason = "m, n or batch is 0: nothing to write";
    return out;
  }
  if (args.k == 0 || args.epilogue.alpha == 0.0f) {
    out.kind = "scale";
    out.config = "scale C";
    out.reason = "k == 0 or alpha == 0: C = beta * C without reading A or B";
    return out;
  }
  const ops::GemmCall call = ops::gemm_call(args, options);
  const ops::Problem& p = call.problem;
  if (!ctx) ctx = &detail::current_device_context();
  const detail::DeviceFacts device = detail::device_facts(*ctx);
  ops::Config chosen = named;
  std::string source;
  if (!named.empty()) {
    require_applicable(p, named, options, device);
    source = options.config.empty() ? "options.kernel names a ladder level" : "options.config";
  } else {
    const ops::Decision decision = ops::decide(p, device, tuned_lookup(*ctx));
    chosen = decision.config;
    if (decision.tuned) {
      source = "the tuning database's winner for this problem on this device";
      out.tuned = true;
    } else {
      if (chosen.empty()) invalid(ops::no_family_reason(p, decision.ranking));
      const std::vector<ops::Ranked>& ranked = decision.ranking.estimated;
      for (size_t i = 1; i < ranked.size() && out.runners_up.size() < 4; ++i)
        out.runners_up.emplace_back(ranked[i].config.text(), ranked[i].estimate.us);
    }
  }
  const ops::Family& family = *chosen.family();
  out.config = chosen.text();
  out.family = std::string(family.name());
  out.kind = family.config_class(ops::launch_problem(family, p), chosen, device);
  if (const std::optional<ops::Estimate> e = ops::call_estimate(family, p, chosen, device)) {
    out.predicted_us = e->us;
    out.reason = source.empty() ? e->why : source + "; model: " + e->why;
  } else {
    out.reason = source.empty() ? "no family's model applies; the only config that can run this product (measure only)"
                                : source + " (no model: measured by tilegemm bench)";
  }
  return out;
}

}  // namespace

GemmChoice explain_choice(const GemmArgs& args, const GemmOptions& options) {
  return explain(args, options, detail::kGemmArgNames);
}

GemmChoice explain_choice(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                          const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                          const float* c, int64_t ldc, const GemmOptions& options) {
  return explain(detail::sgemm_args(layout, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc), options,
                 detail::kSgemmArgNames);
}

}  // namespace tilegemm
