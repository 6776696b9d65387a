// `tilegemm bench|check|tune bsr` (also `bench --sparse`): the BSR kernels against cuSPARSE
// (cusparseSpMM, CUSPARSE_SPMM_BSR_ALG1) and dense cuBLAS FP32 (W expanded to dense), on the same
// data. Dense cuBLAS's result is the bench's reference; check compares with the CPU reference for
// small problems.
#include "bsr_profiler.hpp"

#include <cmath>
#include <cstdio>
#include <optional>

#include "bsr_options.hpp"
#include "bsr_report.hpp"
#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "cusparse.hpp"
#include "gemm/cublas.hpp"
#include "ops/bsr_call.hpp"
#include "ref/bsr_reference.hpp"
#include "ref/reference.hpp"
#include "tilegemm/bsr_gpu.hpp"
#include "tilegemm/error.hpp"
#include "tune/search.hpp"

namespace tilegemm {
namespace tools {

namespace {

// One problem's data: W as generated (host), W on the device as BSR, and X, all from the run's seed
// (sparse_w_seed, sparse_x_seed), so bench, check and tune see the same W and X for a problem.
struct BsrData {
  BsrMatrix w;
  DeviceBsrMatrix dw;
  DeviceBuffer<float> x;
  BsrData(const SparseProblem& p, uint64_t seed)
      : w(generate_bsr(p.w_rows(), p.w_cols(), p.block_rows, p.block_cols, p.sparsity, p.rows, sparse_w_seed(seed, p))),
        dw(w),
        x(static_cast<size_t>(p.size_x())) {
    fill_uniform(x.get(), p.size_x(), sparse_x_seed(seed, p));
    // The BSR upload ran on the legacy stream (cudaMemcpy from pageable memory may return before its
    // DMA is done), the fill on the bench stream: both done before anyone reads them.
    TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
  }
};

// Y = X W^T or Y = W X with our library on bench_stream() (asynchronous).
void run_ours(const SparseProblem& p, const BsrData& d, float* y, const BsrOptions& opt) {
  if (p.op == SparseOp::Xwt)
    bsr_xwt(p.m, p.n, p.k, 1.0f, d.x.get(), p.k, d.dw, 0.0f, y, p.n, bench_stream(), opt);
  else
    bsr_wx(p.m, p.n, p.k, 1.0f, d.dw, d.x.get(), p.n, 0.0f, y, p.n, bench_stream(), opt);
}

// The same product with dense cuBLAS on W expanded (`w_dense`, row-major w_rows x k): xwt is
// X (m x k) * Wd^T, wx is Wd (m x k) * X (k x n).
struct DenseProduct {
  Problem shape;
  const float* a;
  const float* b;
};
DenseProduct dense_product(const SparseProblem& p, const float* x, const float* w_dense) {
  const bool xwt = p.op == SparseOp::Xwt;
  DenseProduct d;
  d.shape.layout = Layout::RowMajor;
  d.shape.m = p.m;
  d.shape.n = p.n;
  d.shape.k = p.k;
  d.shape.op_a = Op::N;
  d.shape.op_b = xwt ? Op::T : Op::N;
  d.a = xwt ? x : w_dense;
  d.b = xwt ? w_dense : x;
  return d;
}

// W expanded to dense on the device.
DeviceBuffer<float> dense_w(const SparseProblem& p, const BsrMatrix& w) {
  std::vector<float> host(static_cast<size_t>(p.size_w_dense()));
  bsr_to_dense(w, host.data(), p.w_cols());
  DeviceBuffer<float> d(host.size());
  d.upload(host);
  TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());  // the upload's DMA, before the bench stream reads it
  return d;
}

std::string kernel_list_text(const std::vector<BsrKernel>& kernels) {
  std::string s;
  for (BsrKernel k : kernels) s += (s.empty() ? "" : ",") + to_string(k);
  return s;
}

// The options that describe W of --shape problems, and the product.
template <class Args>
void add_problem_options(CLI::App* cmd, Args& a) {
  cmd->add_option("--block", a.blocks, "with --shape: W's blocks R or RxC, comma list (default 32)")->delimiter(',');
  cmd->add_option("--sparsity", a.sparsities, "with --shape: fraction of absent blocks in [0, 1], comma list (default 0.9)")
      ->delimiter(',');
  cmd->add_option("--rows", a.rows, "with --shape: uniform and/or skewed block rows (default uniform)")->delimiter(',');
  cmd->add_option("--op", a.op, "xwt (Y = X W^T, W is N x K) or wx (Y = W X, W is M x K)")->capture_default_str();
  cmd->add_option("--seed", a.seed, "seed of W and X (bench, check and tune agree)")->capture_default_str();
}

class BsrProfiler final : public OperationProfiler {
 public:
  std::string name() const override { return "bsr"; }
  std::string summary() const override {
    return "block-sparse products Y = X W^T, Y = W X (W in BSR), against cuSPARSE and dense cuBLAS";
  }
  std::string flag_alias() const override { return "--sparse"; }
  const ReportFormat& report() const override { return bsr_report(); }

  // --- bench ---------------------------------------------------------------------------------------
  void add_bench_options(CLI::App* cmd) override {
    SparseBenchArgs& a = bench_args_;
    cmd->add_option("--shape", a.shapes, "MxNxK (repeatable), crossed with --block x --sparsity x --rows");
    cmd->add_option("--preset", a.preset, join_alternatives(sparse_preset_names()) + " (default: seed-sparse)");
    add_problem_options(cmd, a);
    cmd->add_option("--kernels", a.kernels,
                    std::string("comma list: auto, all, reduction, small-m, tiled, tiled-tf32x3 (default ") +
                        kDefaultSparseKernels + ")");
    cmd->add_option("--config", a.configs, "also run this BSR config (text form, repeatable), e.g. bsr-tiled:32x128x16:t4x8:s4");
    cmd->add_flag("--schedules", a.schedules, "also time every compiled config the BSR tuner measures");
    add_timing_options(cmd, a);
  }

  BenchRunPlan plan_bench(const std::vector<std::string>&) override {
    bench_ = plan_sparse_bench(bench_args_);
    return bench_run_plan(bench_);
  }

  void start_bench(const RunInfo& run) override {
    check_sparse_fits(bench_.problems, run.flush_bytes, static_cast<double>(run.device.global_mem_bytes),
                      run.device.name);
    fp32_peak_ = run.device.fp32_peak_tflops();
    cublas_.emplace();
    cusparse_.emplace();
    std::printf("kernels %s + %s + %s; TFLOP/s counts useful work only, 2*M*nnz (nnz = stored blocks x R x C; M = m "
                "for xwt, n for wx); vs = baseline median / this median\n",
                kernel_list_text(bench_.kernels).c_str(), kSparseBaselineLabel, kDenseBaselineLabel);
  }

  std::vector<Row> bench_problem(size_t i, const TimingPlan& timing, const volatile std::sig_atomic_t& stop) override {
    const SparseProblem& p = bench_.problems[i];
    auto progress = [&](const std::string& what) {
      std::fprintf(stderr, "[problem %zu/%zu %s] %s\n", i + 1, bench_.problems.size(), p.str().c_str(), what.c_str());
    };
    progress("generating W and X");
    const BsrData d(p, bench_.seed);
    const DeviceBuffer<float> w_dense = dense_w(p, d.w);
    DeviceBuffer<float> y(static_cast<size_t>(p.size_y())), y_ref(static_cast<size_t>(p.size_y()));
    const DenseProduct dense = dense_product(p, d.x.get(), w_dense.get());
    fill_value(y_ref.get(), p.size_y(), std::nanf(""));
    cublas_->sgemm(dense.shape, 1.0f, dense.a, dense.b, 0.0f, y_ref.get());
    TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());

    Row base;
    base.what = SparseCase{p, d.w.nnzb(),
                           1.0 - static_cast<double>(d.w.nnzb()) / static_cast<double>(p.total_blocks()),
                           d.dw.max_row_blocks()};
    base.dtype = bench_.dtype.name;
    // |X|, |W| <= 1: the FP32 rounding bound of a K-term dot product, for both sides (as the dense bench).
    base.tol = 2.0 * ref::fp32_gemm_error_bound(p.k);
    const double flops = useful_flops(p, d.w.nnzb());
    // Verifies `run` against the reference (unless `verify` is false: the reference itself) and times it.
    auto measure = [&](Row& r, const std::function<void()>& run, bool verify) {
      std::function<Diff()> check;
      if (verify) check = [&] { return compare(y.get(), y_ref.get(), p.size_y()); };
      verify_and_time(r, run, [&] { fill_value(y.get(), p.size_y(), std::nanf("")); }, check, flops, fp32_peak_,
                      timing);
    };

    // Each --config, then with --schedules every compiled config of the tuner's space but Auto's pick.
    std::vector<std::string> configs = bench_.configs;
    if (bench_.schedules) {
      const bool xwt = p.op == SparseOp::Xwt;
      const ops::Problem prob = ops::bsr_call(xwt ? ops::OpKind::BsrXwt : ops::OpKind::BsrWx, p.m, p.n, p.k, 1.0f,
                                              d.x.get(), xwt ? p.k : p.n, d.dw, 0.0f, y.get(), p.n)
                                    .problem;
      size_t compiled_count = 0;
      const std::vector<ops::Ranked> space =
          detail::tuning_candidates(prob, detail::current_device_facts(), false, &compiled_count);
      for (size_t s = 1; s < space.size(); ++s) configs.push_back(space[s].config.text());
    }
    const size_t contenders = 2 + bench_.kernels.size() + configs.size();
    auto label = [&](const std::string& what, size_t n) {
      return what + " (" + std::to_string(n) + "/" + std::to_string(contenders) + ")";
    };
    std::vector<Row> rows;

    // 1. Dense cuBLAS (the reference: not compared with itself).
    if (!stop) {
      progress(label(kDenseBaselineLabel, 1));
      Row r = base;
      r.kernel = kDenseBaselineLabel;
      r.reference = true;
      r.note = p.op == SparseOp::Xwt ? "cublasGemmEx: X * Wd^T, Wd = W expanded to dense N x K"
                                     : "cublasGemmEx: Wd * X, Wd = W expanded to dense M x K";
      measure(r, [&] { cublas_->sgemm(dense.shape, 1.0f, dense.a, dense.b, 0.0f, y.get()); }, false);
      rows.push_back(r);
    }
    // 2. cuSPARSE BSR_ALG1 on the same BSR arrays.
    if (!stop) {
      progress(label(kSparseBaselineLabel, 2));
      Row r = base;
      r.kernel = kSparseBaselineLabel;
      r.baseline = true;
      try {
        CusparseBsrProduct sp(*cusparse_, p.op, p.m, p.n, p.k, d.dw.view(), d.x.get(), y.get());
        if (!sp.unsupported().empty()) {
          r.status = "skipped: cuSPARSE: " + sp.unsupported();
        } else {
          r.note = sp.formulation();
          measure(r, [&] { sp.run(); }, true);
        }
      } catch (const Error& e) {
        if (e.code() == ErrorCode::OutOfMemory) throw;
        r.status = std::string("FAILED: ") + e.what();
      }
      rows.push_back(r);
    }
    // 3. Ours: the kernels, then the configs.
    for (size_t k = 0; k < bench_.kernels.size() && !stop; ++k) {
      const BsrKernel kernel = bench_.kernels[k];
      progress(label(to_string(kernel), 3 + k));
      Row r = base;
      r.kernel = to_string(kernel);
      const std::string why = sparse_kernel_skip_reason(kernel, p, d.w.nnzb());
      if (!why.empty()) {
        r.status = "skipped: " + why;
      } else {
        BsrOptions opt;
        opt.kernel = kernel;
        measure(r, [&] { run_ours(p, d, y.get(), opt); }, true);
      }
      rows.push_back(r);
    }
    for (size_t c = 0; c < configs.size() && !stop; ++c) {
      progress(label(configs[c], 3 + bench_.kernels.size() + c));
      Row r = base;
      r.kernel = configs[c];
      BsrOptions opt;
      opt.config = configs[c];
      measure(r, [&] { run_ours(p, d, y.get(), opt); }, true);
      rows.push_back(r);
    }
    set_ratios(rows);
    return rows;
  }

  // --- check ---------------------------------------------------------------------------------------
  void add_check_options(CLI::App* cmd) override {
    SparseCheckArgs& a = check_args_;
    cmd->add_option("--preset", a.preset, join_alternatives(sparse_preset_names()) + " (default: seed-sparse)");
    cmd->add_option("--shape", a.shapes, "MxNxK (repeatable), crossed with --block x --sparsity x --rows");
    add_problem_options(cmd, a);
    cmd->add_option("--kernels", a.kernels, "comma list: auto, all, reduction, small-m, tiled, tiled-tf32x3")
        ->capture_default_str();
    cmd->add_option("--config", a.configs, "also check this BSR config (text form, repeatable)");
  }

  size_t plan_check() override {
    check_ = plan_sparse_check(check_args_);
    contenders_.clear();
    for (BsrKernel k : check_.kernels) {
      BsrOptions o;
      o.kernel = k;
      contenders_.push_back({to_string(k), o});
    }
    for (const std::string& text : check_.configs) {
      BsrOptions o;
      o.config = text;
      contenders_.push_back({text, o});
    }
    return check_.problems.size();
  }
  CheckColumns check_columns() const override { return {66, 34}; }
  void start_check(const DeviceInfo&) override { cublas_.emplace(); }

  void check_problem(size_t i, CheckTable& table) override {
    const SparseProblem& p = check_.problems[i];
    const bool xwt = p.op == SparseOp::Xwt;
    const BsrData d(p, check_.seed);
    DeviceBuffer<float> y(static_cast<size_t>(p.size_y()));
    const bool cpu = useful_flops(p, d.w.nnzb()) <= kCheckCpuMaxFlops;
    std::vector<float> expect(static_cast<size_t>(p.size_y()), 0.0f);
    if (cpu) {
      const std::vector<float> hx = d.x.download();
      const int64_t ldx = xwt ? p.k : p.n;
      if (xwt) ref::bsr_xwt(p.m, p.n, p.k, 1.0f, hx.data(), ldx, d.w, 0.0f, expect.data(), p.n);
      else ref::bsr_wx(p.m, p.n, p.k, 1.0f, d.w, hx.data(), ldx, 0.0f, expect.data(), p.n);
    } else {  // dense cuBLAS on W expanded
      const DeviceBuffer<float> w_dense = dense_w(p, d.w);
      DeviceBuffer<float> y_ref(static_cast<size_t>(p.size_y()));
      const DenseProduct dense = dense_product(p, d.x.get(), w_dense.get());
      cublas_->sgemm(dense.shape, 1.0f, dense.a, dense.b, 0.0f, y_ref.get());
      TILEGEMM_CUDA_CHECK(cudaStreamSynchronize(bench_stream()));
      expect = y_ref.download();
    }
    DeviceBuffer<float> d_expect(expect.size());
    d_expect.upload(expect);
    TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
    const double tol = (cpu ? 1.0 : 2.0) * ref::fp32_gemm_error_bound(p.k);
    for (const Contender& c : contenders_) {
      const std::string why = sparse_kernel_skip_reason(c.options.kernel, p, d.w.nnzb());  // "" for configs (Auto)
      if (!why.empty()) {
        table.skipped(p.str(), c.label, why);
        continue;
      }
      fill_value(y.get(), p.size_y(), std::nanf(""));
      try {
        run_ours(p, d, y.get(), c.options);
        TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
      } catch (const Error& e) {
        if (e.code() != ErrorCode::InvalidArgument) throw;
        table.skipped(p.str(), c.label, e.what());
        continue;
      }
      table.result(p.str(), c.label, cpu ? "cpu" : "cublas", compare(y.get(), d_expect.get(), p.size_y()), tol);
    }
  }

  // --- tune ----------------------------------------------------------------------------------------
  void add_tune_options(CLI::App* cmd) override { add_problem_options(cmd, tune_args_); }
  size_t plan_tune(const TuneArgs& shared) override {
    tune_ = plan_bsr_tune(shared.shapes, shared.preset, tune_args_);
    return tune_.problems.size();
  }
  std::string tune_problem_name(size_t i) const override { return tune_.problems[i].str(); }
  std::string tune_baseline() const override { return "cuSPARSE"; }
  int tune_name_width() const override { return 66; }

  // W generated as the bench generates it (same seed, so `bench bsr` then runs the tuned entry), tuned,
  // and cuSPARSE timed the same way on the same W and X.
  TuneRow tune_problem(size_t i, const TuneOptions& o, size_t flush_bytes) override {
    const SparseProblem& p = tune_.problems[i];
    if (!cusparse_) cusparse_.emplace();
    const BsrData d(p, tune_.seed);
    BsrShape shape;
    shape.product = p.op == SparseOp::Xwt ? BsrProduct::Xwt : BsrProduct::Wx;
    shape.m = p.m;
    shape.n = p.n;
    shape.k = p.k;
    TuneRow row;
    row.shape = p.str();
    row.result = tune(shape, d.dw, o);
    row.baseline = tune_baseline();
    DeviceBuffer<float> y(static_cast<size_t>(p.size_y()));
    CusparseBsrProduct sp(*cusparse_, p.op, p.m, p.n, p.k, d.dw.view(), d.x.get(), y.get());
    if (sp.unsupported().empty())
      row.baseline_us = time_runs([&] { sp.run(); }, o.min_time_s, flush_bytes).median_ms * 1e3;
    return row;
  }

 private:
  struct Contender {
    std::string label;
    BsrOptions options;
  };

  SparseBenchArgs bench_args_;
  SparseCheckArgs check_args_;
  BsrTuneArgs tune_args_;
  SparseBenchPlan bench_;
  SparseCheckPlan check_;
  BsrTunePlan tune_;
  std::vector<Contender> contenders_;  // check: the kernels, then the configs
  double fp32_peak_ = 0;
  std::optional<Cublas> cublas_;  // created on the device, after the arguments are checked
  std::optional<Cusparse> cusparse_;
};

}  // namespace

std::unique_ptr<OperationProfiler> make_bsr_profiler() { return std::make_unique<BsrProfiler>(); }

}  // namespace tools
}  // namespace tilegemm
