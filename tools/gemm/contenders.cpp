#include "contenders.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>

#include "core/device_facts.hpp"
#include "dense/check_args.hpp"
#include "ops/choose.hpp"
#include "ops/gemm_call.hpp"
#include "ops/registry.hpp"
#include "tilegemm/error.hpp"
#include "tilegemm/gemm.hpp"

namespace tilegemm {
namespace tools {

namespace {

// The problem's math (--dtype tf32: Math::Tf32), unless the contender keeps to FFMA.
GemmOptions with_math(GemmOptions opt, const Problem& p) {
  if (opt.math != Math::FfmaOnly) opt.math = p.math;
  return opt;
}

void run_gemm(const Problem& p, const void* a, const void* b, void* c, const GemmOptions& opt) {
  gemm(gemm_args(p, a, b, c), bench_stream(), with_math(opt, p));
}

GemmChoice explain(const Problem& p, const void* a, const void* b, const void* c, const GemmOptions& opt) {
  return explain_choice(gemm_args(p, a, b, c), with_math(opt, p));
}

// raster: nullptr = the library's default order (and no "@order" in the label). math: FfmaOnly labels
// the row "auto-ffma"; otherwise the problem's math.
Contender library_contender(Kernel kernel, const Raster* raster, Math math = Math::Fp32) {
  GemmOptions opt;
  opt.kernel = kernel;
  opt.math = math;
  std::string label = to_string(kernel) + (math == Math::FfmaOnly ? "-ffma" : "");
  if (raster) {
    opt.raster = *raster;
    label += "@" + to_string(opt.raster);
  }
  Contender c;
  c.label = label;
  c.run = [opt](const Problem& p, const void* a, const void* b, void* cc) { run_gemm(p, a, b, cc, opt); };
  c.config = [opt](const Problem& p, const void* a, const void* b, const void* cc) {
    return explain(p, a, b, cc, opt).config;
  };
  // A level or Auto that cannot run the product (an FP32 level on bf16 data): the library's reason.
  c.unsupported = [opt](const Problem& p, const void* a, const void* b, const void* cc) -> std::string {
    if (p.k == 0 || p.m == 0 || p.n == 0) return "";
    try {
      explain(p, a, b, cc, opt);
      return "";
    } catch (const Error& e) {
      return e.what();
    }
  };
  return c;
}

// The problem laid out at a, b, c in the library's canonical form (what can_implement and the chooser
// judge: sizes, transposes, alignment).
ops::Problem canonical_problem(const Problem& p, const void* a, const void* b, const void* c) {
  return ops::gemm_call(gemm_args(p, a, b, c), with_math(GemmOptions{}, p)).problem;
}

// An explicit config (GemmOptions::config; `text` was checked by parse_config_list), skipped with
// can_implement's reason where it cannot run the problem.
Contender config_contender(const std::string& text, const std::string& label) {
  GemmOptions opt;
  opt.config = text;
  const ops::Config config = ops::registry().parse(text, "--config", ops::OpKind::Gemm);
  Contender c;
  c.label = label;
  c.run = [opt](const Problem& p, const void* a, const void* b, void* cc) { run_gemm(p, a, b, cc, opt); };
  c.config = [text](const Problem&, const void*, const void*, const void*) { return text; };
  c.unsupported = [config](const Problem& p, const void* a, const void* b, const void* cc) -> std::string {
    if (p.k == 0) return "K = 0 runs no config";
    const ops::Problem canonical = canonical_problem(p, a, b, cc);
    return config.family()->can_implement(ops::launch_problem(*config.family(), canonical), config);
  };
  return c;
}

// A kernel family named in --kernels: its best config on each problem (ops::rank over that family
// alone: the lowest estimate among its legal candidates, else its first measure-only one), labelled
// with the family's name.
Contender family_contender(const std::string& name) {
  const ops::Family* family = ops::registry().find(name);
  // Chosen once per problem and layout in memory (the timed runs reuse it): the config's text.
  struct Memo {
    const void* at[3] = {nullptr, nullptr, nullptr};
    int64_t m = -1, n = -1, k = -1;
    std::string text;
  };
  auto memo = std::make_shared<Memo>();
  auto best = [family, memo](const Problem& p, const void* a, const void* b, const void* cc) -> std::string {
    if (p.k == 0 || p.m == 0 || p.n == 0) return "";
    if (memo->at[0] == a && memo->at[1] == b && memo->at[2] == cc && memo->m == p.m && memo->n == p.n && memo->k == p.k)
      return memo->text;
    const ops::Ranking ranking = ops::rank(canonical_problem(p, a, b, cc), detail::current_device_facts(), *family);
    *memo = Memo{{a, b, cc}, p.m, p.n, p.k, ranking.best().text()};
    return memo->text;
  };
  Contender c;
  c.label = name;
  c.run = [best](const Problem& p, const void* a, const void* b, void* cc) {
    GemmOptions opt;
    opt.config = best(p, a, b, cc);
    run_gemm(p, a, b, cc, opt);
  };
  c.config = best;
  c.unsupported = [best, name](const Problem& p, const void* a, const void* b, const void* cc) -> std::string {
    if (p.k == 0) return "K = 0 runs no config";
    return best(p, a, b, cc).empty() ? "no " + name + " config can run this product" : "";
  };
  return c;
}

}  // namespace

GemmArgs gemm_args(const Problem& p, const void* a, const void* b, const void* c) {
  GemmArgs args;
  args.layout = p.layout;
  args.op_a = p.op_a;
  args.op_b = p.op_b;
  args.m = p.m;
  args.n = p.n;
  args.k = p.k;
  args.batch = p.batch;
  args.a = {p.dtype, a, p.lda(), p.stride_a()};
  args.b = {p.dtype, b, p.ldb(), p.stride_b()};
  args.c = {p.dtype, const_cast<void*>(c), p.ldc(), p.stride_c()};
  args.epilogue.bias_kind = p.bias;
  args.epilogue.bias = p.bias == BiasKind::None ? nullptr : bias_in(p, c);
  args.epilogue.bias_type = p.dtype;
  args.epilogue.activation = p.activation;
  return args;
}

std::vector<Contender> make_contenders(const Problem& p, const std::vector<Kernel>& kernels,
                                       const std::vector<std::string>& families,
                                       const std::vector<std::string>& configs, const std::vector<Raster>& rasters,
                                       bool schedules, bool ffma_auto, Cublas& cublas, bool cublas_tf32) {
  std::vector<Contender> out;
  Contender base;
  // Cublas::gemm follows p.math, and runs an epilogue through cuBLASLt.
  base.label = !p.plain_epilogue() ? "cublaslt" : p.math == Math::Tf32 ? "cublas-tf32" : "cublas";
  base.is_baseline = true;
  base.run = [&cublas](const Problem& pr, const void* a, const void* b, void* c) { cublas.gemm(pr, a, b, c); };
  base.config = [](const Problem&, const void*, const void*, const void*) { return std::string(); };
  base.unsupported = [&cublas](const Problem& pr, const void* a, const void* b, const void* c) {
    return cublas.refuses_epilogue(pr, a, b, c);
  };
  out.push_back(base);
  if (cublas_tf32 && p.dtype == DType::F32 && p.math != Math::Tf32 && p.plain_epilogue()) {
    Contender tf32 = base;
    tf32.label = "cublas-tf32";
    tf32.is_baseline = false;
    tf32.run = [&cublas](const Problem& pr, const void* a, const void* b, void* c) {
      cublas.tf32(pr, static_cast<const float*>(a), static_cast<const float*>(b), static_cast<float*>(c));
    };
    tf32.extra_tol_per_k = std::ldexp(1.0, -9);  // two operands rounded to 10-bit mantissas, doubled
    out.push_back(tf32);
  }

  for (Kernel k : kernels) {
    const bool rasterized = k == Kernel::RegisterTiled || k == Kernel::Vectorized || k == Kernel::WarpTiled;
    if (rasters.empty() || !rasterized) {
      out.push_back(library_contender(k, nullptr));
      if (k == Kernel::Auto && ffma_auto) out.push_back(library_contender(k, nullptr, Math::FfmaOnly));
    } else {
      for (const Raster& r : rasters) out.push_back(library_contender(k, &r));
    }
  }
  for (const std::string& name : families) out.push_back(family_contender(name));
  for (const std::string& text : configs) out.push_back(config_contender(text, text));
  if (schedules && p.k > 0 && p.m > 0 && p.n > 0) {
    // The model's favourite split for each compiled schedule (and the GEMV kernel), on the problem's
    // canonical form with the alignment the bench's buffers give it (cudaMalloc bases are 256-byte
    // aligned; the matrices start p.offset elements in).
    const auto at = [&p](int which) {
      return reinterpret_cast<const void*>((uintptr_t(which + 1) << 40) + dtype_bytes(p.dtype) * uintptr_t(p.offset));
    };
    const ops::Ranking ranking = ops::rank(canonical_problem(p, at(0), at(1), at(2)), detail::current_device_facts());
    std::vector<std::string> seen;  // error groups (a tile shape, the GEMV kernel) taken
    for (const ops::Ranked& r : ranking.estimated) {
      const std::string group = std::string(r.config.family()->name()) + " " + r.config.family()->error_group(r.config);
      if (std::find(seen.begin(), seen.end(), group) != seen.end()) continue;
      seen.push_back(group);
      const std::string text = r.config.text();
      out.push_back(config_contender(text, text));
    }
  }
  return out;
}

}  // namespace tools
}  // namespace tilegemm
