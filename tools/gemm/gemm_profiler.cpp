// `tilegemm bench|check|tune gemm`: the GEMM problems (presets, --shape, --sizes, layouts, --dtype),
// their contenders (cuBLAS, the ladder, Auto, families, configs; contenders.hpp) and cuBLAS as
// baseline. The reference: cuBLAS FP32 (pedantic) for fp32 runs; for tf32, bf16 and fp16 runs the
// product of the same inputs in FP64 (cuBLAS DGEMM), which every contender, cuBLAS included, is
// measured against (the error column).
#include "gemm_profiler.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "choice_log.hpp"
#include "contenders.hpp"
#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "cublas.hpp"
#include "gemm_options.hpp"
#include "gemm_report.hpp"
#include "ops/fused_epilogue.hpp"
#include "plot.hpp"
#include "profiler/peaks.hpp"
#include "ref/reference.hpp"
#include "shapes.hpp"
#include "typed_matrices.hpp"

namespace tilegemm {
namespace tools {

namespace {

// The shape of a problem as the tuner takes it.
GemmShape gemm_shape(const Problem& p) {
  GemmShape s;
  s.dtype = p.dtype;
  s.math = p.math;
  s.layout = p.layout;
  s.op_a = p.op_a;
  s.op_b = p.op_b;
  s.m = p.m;
  s.n = p.n;
  s.k = p.k;
  s.lda = p.lda();
  s.ldb = p.ldb();
  s.ldc = p.ldc();
  s.offset = p.offset;
  s.beta_zero = true;
  s.batch = p.batch;
  s.bias = p.bias;
  s.activation = p.activation;
  return s;
}

// Adds the options that say where the matrices lie (--layout, --trans, --ld, --offset).
template <class Args>
void add_layout_options(CLI::App* cmd, Args& a) {
  cmd->add_option("--layout", a.layout, "row | col")->capture_default_str();
  cmd->add_option("--trans", a.trans, "NN | NT | TN | TT (presets may fix some shapes' ops)")->capture_default_str();
  cmd->add_option("--ld", a.ld, "+N: pad every leading dimension by N elements; N: every leading dimension is N")
      ->capture_default_str();
  cmd->add_option("--offset", a.offset, "start every matrix N elements into its buffer (unaligned pointers)")
      ->capture_default_str();
}
// --batch (bench, check, tune): every shape as N strided batches (cuBLAS's gemmStridedBatched the
// baseline); --epilogue: fused bias and activation (cuBLASLt's matmul with the same epilogue the baseline).
template <class Args>
void add_batch_option(CLI::App* cmd, Args& a) {
  cmd->add_option("--batch", a.batch,
                  "run every shape as N strided batches, each matrix's batches one after the other (default: each "
                  "shape's own, 1 but in the batched preset)");
  cmd->add_option("--epilogue", a.epilogue,
                  "fused epilogue(s), comma separated, each run: none, or bias (per column of C) / row-bias and an "
                  "activation (relu, gelu-tanh, gelu-erf, silu) joined by '+', e.g. none,bias+gelu-tanh; the bias "
                  "is in C's type; cuBLASLt with the same epilogue is the baseline where it has one");
}

class GemmProfiler final : public OperationProfiler {
 public:
  std::string name() const override { return "gemm"; }
  std::string summary() const override {
    return "dense products C = op(A) op(B), FP32, BF16 or FP16, against cuBLAS";
  }
  const ReportFormat& report() const override { return gemm_report(); }

  // --- bench ---------------------------------------------------------------------------------------
  void add_bench_options(CLI::App* cmd) override {
    BenchArgs& a = bench_args_;
    cmd->add_option("--shape", a.shapes, "MxNxK (repeatable)");
    cmd->add_option("--sizes", a.sizes, "square sweep LO:HI:xF or LO:HI:+S, e.g. 256:16384:x2");
    cmd->add_option("--preset", a.preset, join_alternatives(preset_names()) + " (default: ladder)");
    cmd->add_option("--kernels", a.kernels, "comma list of levels (1-7 or names), auto, all, families or family names")
        ->capture_default_str();
    add_layout_options(cmd, a);
    add_batch_option(cmd, a);
    cmd->add_option("--config", a.configs,
                    "also run this config (text form, repeatable), e.g. tiled:64x64x16:w32x32:t8x4:s3:b6:k8:hilbert");
    cmd->add_option("--rasters", a.rasters, "time levels 4-6 with each tile order: rowmajor,grouped,hilbert")
        ->delimiter(',');
    cmd->add_flag("--ffma-auto", a.ffma_auto,
                  "also time Auto kept to CUDA-core FFMA (GemmOptions::math = FfmaOnly), as auto-ffma");
    cmd->add_flag("--cublas-tf32", a.cublas_tf32,
                  "FP32 runs: also time cuBLAS on TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32) as cublas-tf32, "
                  "checked to TF32's bound");
    cmd->add_flag("--schedules", a.schedules,
                  "also time every compiled tiled schedule at the split the model predicts best for it, and the "
                  "GEMV kernel where it applies");
    add_timing_options(cmd, a);
    cmd->add_option("--plot", a.plot,
                    "draw TFLOP/s vs size into this .png or .svg (bench/plot_gflops.py; its CSV is FILE.csv "
                    "unless --csv is given)");
  }

  BenchRunPlan plan_bench(const std::vector<std::string>& argv) override {
    bench_ = tools::plan_bench(bench_args_);
    if (!bench_.plot.empty())
      plot_script_ = find_plot_script(current_executable(argv.empty() ? nullptr : argv[0].c_str()),
                                      std::getenv("TILEGEMM_PLOT_SCRIPT"));
    return bench_run_plan(bench_);
  }

  void start_bench(const RunInfo& run) override {
    check_fits(bench_.problems, 2, run.flush_bytes, static_cast<double>(run.device.global_mem_bytes), run.device.name);
    const TensorRates tensor = tensor_flop_per_clk_per_sm(run.device.cc_major, run.device.cc_minor);
    peak_ = bench_.dtype.math == Math::Tf32   ? peak_tflops(run.device, tensor.tf32)
            : bench_.dtype.dtype == DType::F32 ? run.device.fp32_peak_tflops()
                                               : peak_tflops(run.device, tensor.bf16);
    cublas_.emplace();
  }

  std::vector<Row> bench_problem(size_t pi, const TimingPlan& timing, const volatile std::sig_atomic_t& stop) override {
    const Problem& p = bench_.problems[pi];
    const Operands o(p, 1 + pi, 1000 + pi);
    const Reference ref = reference(p, o, *cublas_);
    if (log_choice_requested()) log_choice_for(p, o.a.at(p.offset), o.b.at(p.offset), o.c.at(p.offset));
    const std::vector<Contender> contenders =
        make_contenders(p, bench_.kernels, bench_.families, bench_.configs, bench_.rasters, bench_.schedules,
                        bench_.ffma_auto, *cublas_, bench_.cublas_tf32);
    std::vector<Row> rows;
    for (size_t ci = 0; ci < contenders.size() && !stop; ++ci) {
      const Contender& ct = contenders[ci];
      std::fprintf(stderr, "[shape %zu/%zu %s] %s (%zu/%zu)\n", pi + 1, bench_.problems.size(), p.str().c_str(),
                   ct.label.c_str(), ci + 1, contenders.size());
      rows.push_back(measure(ct, p, timing, o, ref));
    }
    set_ratios(rows);
    return rows;
  }

  // The plot, drawn from the CSV just written. Failing here leaves the result files in place.
  void finish_bench() override {
    if (bench_.plot.empty()) return;
    const std::string said = run_plot_script(plot_script_, bench_.csv, bench_.plot);
    std::printf("%s", said.c_str());
    if (!said.empty() && said.back() != '\n') std::printf("\n");
  }

  // --- check ---------------------------------------------------------------------------------------
  void add_check_options(CLI::App* cmd) override {
    CheckArgs& a = check_args_;
    cmd->add_option("--preset", a.preset, join_alternatives(preset_names()) + ", or '' for none")->capture_default_str();
    cmd->add_option("--shape", a.shapes, "MxNxK (repeatable)");
    cmd->add_option("--dtype", a.dtype, "element type of A, B and C: fp32 (= fp32-accurate) | tf32 (FP32 data on TF32 "
                   "tensor cores, against cuBLAS's FAST_TF32) | bf16 | fp16")->capture_default_str();
    cmd->add_option("--kernels", a.kernels, "comma list of levels, auto, all")->capture_default_str();
    add_layout_options(cmd, a);
    add_batch_option(cmd, a);
    cmd->add_option("--config", a.configs, "also check this config (text form, repeatable)");
  }

  size_t plan_check() override {
    check_ = tools::plan_check(check_args_);
    return check_.problems.size();
  }
  CheckColumns check_columns() const override { return {36, 48}; }

  void start_check(const DeviceInfo& dev) override {
    // A, B, C and the expected C (cuBLAS's C, for large problems, is freed before that is allocated).
    check_fits(check_.problems, 2, 0.0, static_cast<double>(dev.global_mem_bytes), dev.name);
    cublas_.emplace();
  }

  void check_problem(size_t i, CheckTable& table) override {
    const Problem& p = check_.problems[i];
    const int64_t off = p.offset;
    if (!fp32_reference(p)) {  // against the FP64 product of the same inputs
      const Operands o(p, 7, 8);
      const Reference ref = reference(p, o, *cublas_);
      for (const Contender& ct :
           make_contenders(p, check_.kernels, check_.families, check_.configs, {}, false, false, *cublas_)) {
        const std::string why = ct.unsupported(p, o.a.at(off), o.b.at(off), o.c.at(off));
        if (!why.empty()) {
          table.skipped(p.str(), ct.label, why);
          continue;
        }
        fill_nan(o.c, p.size_c());
        ct.run(p, o.a.at(off), o.b.at(off), o.c.at(off));
        TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
        table.result(p.str(), ct.label, "fp64", ref.compare(p, o.c).diff, ref.tol);
      }
      return;
    }
    DeviceBuffer<float> a(p.size_a()), b(p.size_b()), c(p.size_c());
    fill_uniform(a.get(), p.size_a(), 7);
    fill_uniform(b.get(), p.size_b(), 8);
    // The fills ran on the bench stream; download() copies on the legacy stream, not ordered after it.
    TILEGEMM_CUDA_CHECK(cudaStreamSynchronize(bench_stream()));
    const bool cpu = p.flops() <= 2.0 * 1024 * 1024 * 1024;
    std::vector<float> expect(p.size_c(), 0.0f);
    if (cpu) {
      const std::vector<float> ha = a.download(), hb = b.download();
      for (int64_t i = 0; i < p.batch; ++i)
        ref::sgemm(p.layout, p.op_a, p.op_b, p.m, p.n, p.k, 1.0f, ha.data() + off + i * p.stride_a(), p.lda(),
                   hb.data() + off + i * p.stride_b(), p.ldb(), 0.0f, expect.data() + off + i * p.stride_c(), p.ldc());
    } else {
      DeviceBuffer<float> c_ref(p.size_c());
      cublas_->sgemm(p, 1.0f, a.get() + off, b.get() + off, 0.0f, c_ref.get() + off);
      TILEGEMM_CUDA_CHECK(cudaStreamSynchronize(bench_stream()));
      expect = c_ref.download();
    }
    DeviceBuffer<float> d_expect(p.size_c());
    d_expect.upload(expect);
    // A pageable cudaMemcpy may return before its DMA is done; the comparisons run on the bench stream.
    TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
    if (log_choice_requested()) log_choice_for(p, a.get() + off, b.get() + off, c.get() + off);
    const double tol = (cpu ? 1.0 : 2.0) * ref::fp32_gemm_error_bound(p.k);
    for (const Contender& ct :
         make_contenders(p, check_.kernels, check_.families, check_.configs, {}, false, false, *cublas_)) {
      if (ct.is_baseline) continue;
      const std::string why = ct.unsupported(p, a.get() + off, b.get() + off, c.get() + off);
      if (!why.empty()) {
        table.skipped(p.str(), ct.label, why);
        continue;
      }
      fill_value(c.get(), p.size_c(), std::nanf(""));
      ct.run(p, a.get() + off, b.get() + off, c.get() + off);
      TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
      table.result(p.str(), ct.label, cpu ? "cpu" : "cublas", compare_c(p, c.get(), d_expect.get()), tol);
    }
  }

  // --- tune ----------------------------------------------------------------------------------------
  void add_tune_options(CLI::App* cmd) override {
    GemmTuneArgs& a = tune_args_;
    cmd->add_option("--dtype", a.dtype, "element type of A, B and C: fp32 (= fp32-accurate) | tf32 | bf16 | fp16 (FP32 "
                   "accumulation)")
        ->capture_default_str();
    cmd->add_option("--layout", a.layout, "row or col");
    cmd->add_option("--trans", a.trans, "NN, NT, TN or TT");
    cmd->add_option("--ld", a.ld, "+N pads every leading dimension; N sets it");
    cmd->add_option("--offset", a.offset, "elements every matrix starts into its buffer");
    add_batch_option(cmd, a);
  }
  size_t plan_tune(const TuneArgs& shared) override {
    tune_problems_ = plan_gemm_tune(shared.shapes, shared.preset, tune_args_);
    return tune_problems_.size();
  }
  std::string tune_problem_name(size_t i) const override { return tune_problems_[i].str(); }
  // cuBLAS for plain products, cuBLASLt's matmul for those with an epilogue (--epilogue).
  std::string tune_baseline() const override {
    const auto plain = [](const Problem& p) { return p.plain_epilogue(); };
    if (std::all_of(tune_problems_.begin(), tune_problems_.end(), plain)) return "cuBLAS";
    return std::none_of(tune_problems_.begin(), tune_problems_.end(), plain) ? "cuBLASLt" : "cuBLAS/Lt";
  }
  // 34, or the longest name (batches and epilogues lengthen it).
  int tune_name_width() const override {
    size_t width = 34;
    for (const Problem& p : tune_problems_) width = std::max(width, p.str().size() + 1);
    return static_cast<int>(width);
  }

  TuneRow tune_problem(size_t i, const TuneOptions& o, size_t flush_bytes) override {
    const Problem& p = tune_problems_[i];
    TuneRow row;
    row.shape = p.str();
    row.result = tune(gemm_shape(p), o);
    row.baseline = "cuBLAS";
    // cuBLAS on the shape, timed like the tuner times a config (cold L2, the same minimum time): in
    // p.dtype SGEMM or cublasGemmEx with the same types and FP32 compute (strided batched for
    // batches); with an epilogue cuBLASLt's matmul with the same one, where it has it.
    if (!cublas_) cublas_.emplace();
    Operands ops(p, 1, 2);
    if (!p.plain_epilogue()) {
      row.baseline = "cuBLASLt";
      const std::string lacks =
          cublas_->refuses_epilogue(p, ops.a.at(p.offset), ops.b.at(p.offset), ops.c.at(p.offset));
      if (!lacks.empty()) {
        row.baseline = "cuBLASLt (skipped: " + lacks + ")";
        return row;
      }
    }
    const Timing t = time_runs([&] { cublas_->gemm(p, ops.a.at(p.offset), ops.b.at(p.offset), ops.c.at(p.offset)); },
                               o.min_time_s, flush_bytes);
    row.baseline_us = t.median_ms * 1e3;
    return row;
  }

 private:
  // A problem's A, B and C (and cuBLAS's C) in p.dtype, A and B uniform in [-1, 1), and the bias.
  struct Operands {
    Operands(const Problem& p, uint64_t seed_a, uint64_t seed_b)
        : a(p.dtype, p.size_a()),
          b(p.dtype, p.size_b()),
          c(p.dtype, p.size_c_buffer()),
          c_ref(p.dtype, p.size_c_buffer()) {
      fill_uniform(a, p.size_a(), seed_a);
      fill_uniform(b, p.size_b(), seed_b);
      // The bias after C's batches (bias_in), the same in our C's buffer and cuBLAS's.
      fill_uniform(c, p.bias_count(), seed_a + seed_b, p.bias_first());
      fill_uniform(c_ref, p.bias_count(), seed_a + seed_b, p.bias_first());
    }
    TypedBuffer a, b, c, c_ref;
  };
  // What a contender's C is compared with, and the tolerance. fp32: cuBLAS's C (c_ref), |A|,|B| <= 1:
  // the FP32 rounding bound of a K-term dot product for both sides. 16-bit and tf32: the FP64 product
  // of the same inputs; two roundings to the output type (2 x unit roundoff x the largest |C|:
  // cuBLAS's split products round partial sums too) plus the FP32 accumulation's bound, and for tf32
  // both operands cut to 10-bit mantissas (2^-9 of each product, truncated or rounded). With an
  // epilogue the FP64 product gets the bias and activation (none of which grows |C| beyond the plain
  // product's max + the bias's 1), and FP32 outputs 2^-15 of that for the activations' exp2/rcp/erfc.
  struct Reference {
    std::optional<DeviceBuffer<double>> f64;  // 16-bit and tf32 runs
    const TypedBuffer* c_ref = nullptr;       // fp32 runs
    double tol = 0;
    F64Diff compare(const Problem& p, const TypedBuffer& c) const {
      if (!f64) return {compare_c(p, static_cast<const float*>(c.at(0)), static_cast<const float*>(c_ref->at(0))), 0};
      if (p.size_c() == 0) return {};
      return compare_to_f64(c.at(p.offset), p.dtype, f64->get() + p.offset, p.c_outer(), p.c_inner(), p.ldc());
    }
  };
  // FP32 math is checked against cuBLAS's SGEMM (the baseline is the reference); the rest against FP64.
  static bool fp32_reference(const Problem& p) { return !p.fp64_reference(); }
  static Reference reference(const Problem& p, const Operands& o, Cublas& cublas) {
    Reference r;
    r.tol = 2.0 * ref::fp32_gemm_error_bound(p.k);
    fill_nan(o.c_ref, p.size_c());
    Problem plain = p;  // the product alone: the scale of the tolerance
    plain.bias = BiasKind::None;
    plain.activation = Activation::None;
    cublas.gemm(plain, o.a.at(p.offset), o.b.at(p.offset), o.c_ref.at(p.offset));
    if (fp32_reference(p)) {
      r.c_ref = &o.c_ref;
    } else {
      DeviceBuffer<double> a64(p.size_a()), b64(p.size_b());
      r.f64.emplace(p.size_c());
      widen_to_f64(o.a, p.size_a(), a64.get());
      widen_to_f64(o.b, p.size_b(), b64.get());
      cublas.dgemm(p, a64.get() + p.offset, b64.get() + p.offset, r.f64->get() + p.offset);
      // synchronizes before a64, b64 go
      const double max_c = r.compare(p, o.c_ref).max_ref + (p.bias != BiasKind::None ? 1.0 : 0.0);
      r.tol += 2.0 * ref::unit_roundoff(p.dtype) * max_c;
      if (p.math == Math::Tf32) r.tol += std::ldexp(1.0, -9) * static_cast<double>(p.k);
      if (!p.plain_epilogue()) {
        const bool row = p.layout == Layout::RowMajor;
        // A stored line is a row of the canonical C: its elements take a canonical column's bias.
        const bool bias_on_inner = (row ? p.bias : ops::transposed(p.bias)) == BiasKind::PerColumn;
        apply_epilogue_f64(r.f64->get() + p.offset, p.c_outer(), p.c_inner(), p.ldc(), row ? p.m : p.n,
                           p.bias == BiasKind::None ? nullptr : bias_in(p, o.c.at(p.offset)), p.dtype, bias_on_inner,
                           p.activation);
        if (p.dtype == DType::F32) r.tol += std::ldexp(max_c, -15);
      }
    }
    TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
    return r;
  }

  // Verifies (fp32: unless it is the baseline, the reference itself) and times one contender on one
  // problem.
  Row measure(const Contender& ct, const Problem& p, const TimingPlan& timing, const Operands& o,
              const Reference& ref) const {
    const void* a = o.a.at(p.offset);
    const void* b = o.b.at(p.offset);
    void* c = o.c.at(p.offset);
    Row r;
    r.what = p;
    r.dtype = bench_.dtype.name;
    r.kernel = ct.label;
    r.baseline = ct.is_baseline;
    r.reference = ct.is_baseline && fp32_reference(p);
    r.tol = ref.tol + ct.extra_tol_per_k * static_cast<double>(p.k);
    const std::string why = ct.unsupported(p, a, b, c);
    if (!why.empty()) {
      r.status = "skipped: " + why;
      return r;
    }
    std::function<Diff()> compare;
    if (!r.reference) compare = [&] { return ref.compare(p, o.c).diff; };
    verify_and_time(
        r, [&] { ct.run(p, a, b, c); }, [&] { fill_nan(o.c, p.size_c()); }, compare, p.flops(), peak_, timing);
    if (r.ok()) r.config = ct.config(p, a, b, c);
    return r;
  }

  BenchArgs bench_args_;
  CheckArgs check_args_;
  GemmTuneArgs tune_args_;
  BenchPlan bench_;
  CheckPlan check_;
  std::vector<Problem> tune_problems_;
  std::string plot_script_;
  double peak_ = 0;  // of the run's dtype: FP32 CUDA cores, or dense TF32 or BF16/FP16 tensor cores
  std::optional<Cublas> cublas_;  // created on the device, after the arguments are checked
};

}  // namespace

std::unique_ptr<OperationProfiler> make_gemm_profiler() { return std::make_unique<GemmProfiler>(); }

}  // namespace tools
}  // namespace tilegemm
