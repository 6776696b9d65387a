// tilegemm bench --sparse: the BSR kernels against cuSPARSE (cusparseSpMM, CUSPARSE_SPMM_BSR_ALG1) and
// dense cuBLAS FP32 (W expanded to dense), on the same data, in one run. Dense cuBLAS's result is the
// reference: every other contender is verified against it before it is timed, and a wrong one gets no
// time. All arguments (and the output files) are checked before the device is touched.
#include <cmath>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <memory>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "harness.hpp"
#include "shapes.hpp"
#include "ops/bsr_call.hpp"
#include "sparse_command.hpp"
#include "sparse_harness.hpp"
#include "report.hpp"
#include "tilegemm/bsr_gpu.hpp"
#include "tilegemm/device.hpp"
#include "tilegemm/error.hpp"
#include "ref/reference.hpp"
#include "tune/search.hpp"

namespace tilegemm {
namespace tools {

namespace {

volatile std::sig_atomic_t g_sparse_interrupted = 0;

// Everything one contender's measurement needs besides the contender itself.
struct Bench {
  TimingPlan timing;
  double fp32_peak_tflops;
  float* y;
  const float* y_ref;
  int64_t y_count;
  double flops;  // useful FLOPs of the problem
};

// Verifies `run` against the reference (unless `verify` is false: the reference itself) and times it.
void measure(Row& r, const std::function<void()>& run, bool verify, const Bench& b) {
  std::function<Diff()> check;
  if (verify) check = [&] { return compare(b.y, b.y_ref, b.y_count); };
  verify_and_time(r, run, [&] { fill_value(b.y, b.y_count, std::nanf("")); }, check, b.flops, b.fp32_peak_tflops,
                  b.timing);
}

// All contenders on one problem: generates W and X, computes the reference, measures.
std::vector<Row> bench_problem(const SparseProblem& p, size_t index, const SparseBenchPlan& plan,
                                     const DeviceInfo& dev, size_t flush_bytes, Cublas& cublas,
                                     const Cusparse& cusparse) {
  auto progress = [&](const std::string& what) {
    std::fprintf(stderr, "[problem %zu/%zu %s] %s\n", index + 1, plan.problems.size(), p.str().c_str(),
                 what.c_str());
  };
  progress("generating W and X");
  // W on the host, then on the device twice: as BSR (our kernels, cuSPARSE) and dense (cuBLAS).
  const BsrMatrix w = generate_bsr(p.w_rows(), p.w_cols(), p.block_rows, p.block_cols, p.sparsity, p.rows,
                                   sparse_w_seed(plan.seed, p));
  const DeviceBsrMatrix dw(w);
  DeviceBuffer<float> w_dense(static_cast<size_t>(p.size_w_dense()));
  {
    std::vector<float> host(static_cast<size_t>(p.size_w_dense()));
    bsr_to_dense(w, host.data(), p.w_cols());
    w_dense.upload(host);
  }
  // Those copies ran on the legacy stream (cudaMemcpy from pageable memory may return before its DMA
  // is done); everything below runs on the bench stream, which is not ordered after it.
  TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
  DeviceBuffer<float> x(static_cast<size_t>(p.size_x())), y(static_cast<size_t>(p.size_y())),
      y_ref(static_cast<size_t>(p.size_y()));
  fill_uniform(x.get(), p.size_x(), sparse_x_seed(plan.seed, p));

  // Dense cuBLAS on the same shape, row-major: xwt is X (m x k) * Wd^T (Wd stored n x k), wx is
  // Wd (m x k) * X (k x n). Its result is the reference.
  Problem dp;
  dp.layout = Layout::RowMajor;
  dp.m = p.m;
  dp.n = p.n;
  dp.k = p.k;
  const bool xwt = p.op == SparseOp::Xwt;
  dp.op_a = Op::N;
  dp.op_b = xwt ? Op::T : Op::N;
  const float* a = xwt ? x.get() : w_dense.get();
  const float* bb = xwt ? w_dense.get() : x.get();
  fill_value(y_ref.get(), p.size_y(), std::nanf(""));
  cublas.sgemm(dp, 1.0f, a, bb, 0.0f, y_ref.get());
  TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());

  Row base;
  base.what = SparseCase{p, w.nnzb(), 1.0 - static_cast<double>(w.nnzb()) / static_cast<double>(p.total_blocks()),
                         dw.max_row_blocks()};
  base.dtype = plan.dtype.name;
  // |X|, |W| <= 1: the FP32 rounding bound of a K-term dot product, for both sides (as the dense bench).
  base.tol = 2.0 * ref::fp32_gemm_error_bound(p.k);
  const Bench b{TimingPlan{plan.min_time, flush_bytes, plan.graph_batch}, dev.fp32_peak_tflops(), y.get(), y_ref.get(), p.size_y(),
                useful_flops(p, w.nnzb())};
  const size_t contenders = 2 + plan.kernels.size();
  std::vector<Row> rows;

  // 1. Dense cuBLAS (the reference: not compared with itself).
  if (!g_sparse_interrupted) {
    progress(std::string(kDenseBaselineLabel) + " (1/" + std::to_string(contenders) + ")");
    Row r = base;
    r.kernel = kDenseBaselineLabel;
    r.dense_baseline = true;
    r.note = xwt ? "cublasGemmEx: X * Wd^T, Wd = W expanded to dense N x K" : "cublasGemmEx: Wd * X, Wd = W "
                                                                              "expanded to dense M x K";
    measure(r, [&] { cublas.sgemm(dp, 1.0f, a, bb, 0.0f, y.get()); }, false, b);
    rows.push_back(r);
  }
  // 2. cuSPARSE BSR_ALG1 on the same BSR arrays.
  if (!g_sparse_interrupted) {
    progress(std::string(kSparseBaselineLabel) + " (2/" + std::to_string(contenders) + ")");
    Row r = base;
    r.kernel = kSparseBaselineLabel;
    r.baseline = true;
    try {
      CusparseBsrProduct sp(cusparse, p.op, p.m, p.n, p.k, dw.view(), x.get(), y.get());
      if (!sp.unsupported().empty()) {
        r.status = "skipped: cuSPARSE: " + sp.unsupported();
      } else {
        r.note = sp.formulation();
        measure(r, [&] { sp.run(); }, true, b);
      }
    } catch (const Error& e) {
      if (e.code() == ErrorCode::OutOfMemory) throw;
      r.status = std::string("FAILED: ") + e.what();
    }
    rows.push_back(r);
  }
  // 3. Ours.
  for (size_t i = 0; i < plan.kernels.size() && !g_sparse_interrupted; ++i) {
    const BsrKernel kernel = plan.kernels[i];
    progress(to_string(kernel) + " (" + std::to_string(3 + i) + "/" + std::to_string(contenders) + ")");
    Row r = base;
    r.kernel = to_string(kernel);
    const std::string why = sparse_kernel_skip_reason(kernel, p, w.nnzb());
    if (!why.empty()) {
      r.status = "skipped: " + why;
      rows.push_back(r);
      continue;
    }
    BsrOptions opt;
    opt.kernel = kernel;
    const float* xp = x.get();
    float* yp = y.get();
    if (xwt)
      measure(r, [&] { bsr_xwt(p.m, p.n, p.k, 1.0f, xp, p.k, dw, 0.0f, yp, p.n, bench_stream(), opt); }, true, b);
    else
      measure(r, [&] { bsr_wx(p.m, p.n, p.k, 1.0f, dw, xp, p.n, 0.0f, yp, p.n, bench_stream(), opt); }, true, b);
    rows.push_back(r);
  }
  // 4. Each --config, then with --schedules every compiled config of the tuner's space but Auto's pick.
  std::vector<std::string> configs = plan.configs;
  if (plan.schedules) {
    const ops::Problem prob = ops::bsr_call(xwt ? ops::OpKind::BsrXwt : ops::OpKind::BsrWx, p.m, p.n, p.k, 1.0f,
                                            x.get(), xwt ? p.k : p.n, dw, 0.0f, y.get(), p.n)
                                  .problem;
    size_t compiled_count = 0;
    const std::vector<ops::Ranked> space =
        detail::tuning_candidates(prob, detail::current_device_facts(), false, &compiled_count);
    for (size_t i = 1; i < space.size(); ++i) configs.push_back(space[i].config.text());
  }
  for (size_t i = 0; i < configs.size() && !g_sparse_interrupted; ++i) {
    progress(configs[i]);
    Row r = base;
    r.kernel = configs[i];
    BsrOptions opt;
    opt.config = configs[i];
    const float* xp = x.get();
    float* yp = y.get();
    if (xwt)
      measure(r, [&] { bsr_xwt(p.m, p.n, p.k, 1.0f, xp, p.k, dw, 0.0f, yp, p.n, bench_stream(), opt); }, true, b);
    else
      measure(r, [&] { bsr_wx(p.m, p.n, p.k, 1.0f, dw, xp, p.n, 0.0f, yp, p.n, bench_stream(), opt); }, true, b);
    rows.push_back(r);
  }
  set_ratios(rows);
  return rows;
}

std::string kernel_list_text(const std::vector<BsrKernel>& kernels) {
  std::string s;
  for (BsrKernel k : kernels) s += (s.empty() ? "" : ",") + to_string(k);
  return s;
}

}  // namespace

void run_sparse_bench(const SparseBenchArgs& args, const std::vector<std::string>& argv) {
  // 1. Everything that needs no GPU: arguments and output files.
  const SparseBenchPlan plan = plan_sparse_bench(args);

  // 2. The device, and whether the largest problem fits before anything is allocated.
  RunInfo run = start_run(argv, plan.dtype.name, plan.warm, plan.min_time, plan.graph_batch);
  const DeviceInfo& dev = run.device;
  const size_t flush_bytes = static_cast<size_t>(run.flush_bytes);
  check_sparse_fits(plan.problems, run.flush_bytes, static_cast<double>(dev.global_mem_bytes), dev.name);

  Cublas cublas;
  Cusparse cusparse;
  std::printf("device: %s, %d SMs, FP32 peak %.1f TFLOP/s at max clock; sparse %s, %zu problems, kernels %s + %s "
              "+ %s; timing %s L2, min %.2f s per kernel; timing: %s\n",
              dev.name.c_str(), dev.sm_count, dev.fp32_peak_tflops(), plan.dtype.name.c_str(), plan.problems.size(),
              kernel_list_text(plan.kernels).c_str(), kSparseBaselineLabel, kDenseBaselineLabel,
              l2_text(plan.warm, plan.graph_batch), plan.min_time, timing_method_text(plan.graph_batch).c_str());
  std::printf("TFLOP/s counts useful work only, 2*M*nnz (nnz = stored blocks x R x C; M = m for xwt, n for wx); "
              "vs = baseline median / this median\n");
  std::fflush(stdout);
  std::signal(SIGINT, [](int) { g_sparse_interrupted = 1; });

  // 3. The sweep (run_sweep rewrites the files after every problem).
  run.sparse = true;
  run_sweep(run, plan.problems.size(),
            [&](size_t pi) { return bench_problem(plan.problems[pi], pi, plan, dev, flush_bytes, cublas, cusparse); },
            OutputFiles{plan.csv, plan.json}, g_sparse_interrupted);
}

SparseDispatch add_sparse_bench_options(CLI::App* cmd) {
  struct SparseCli {
    bool sparse = false;
    std::string operation = "gemm";  // the positional operation: bsr is --sparse
    std::vector<std::string> blocks, sparsities, rows;
    std::string op = "xwt", seed = "1";
  };
  auto cli = std::make_shared<SparseCli>();
  cmd->add_option("operation", cli->operation, "gemm (default) or bsr (the same as --sparse)");
  cmd->add_flag("--sparse", cli->sparse,
                "block-sparse bench: BSR kernels vs cuSPARSE BSR_ALG1 and dense cuBLAS (--preset " +
                    join_alternatives(sparse_preset_names()) +
                    ", or --shape with --block/--sparsity/--rows; --kernels: auto, all, reduction, small-m, "
                    "tiled, tiled-tf32x3; default " + kDefaultSparseKernels + ")");
  cmd->add_option("--block", cli->blocks, "with --sparse and --shape: W's blocks R or RxC, comma list (default 32)")
      ->delimiter(',');
  cmd->add_option("--sparsity", cli->sparsities,
                  "with --sparse and --shape: fraction of absent blocks in [0, 1], comma list (default 0.9)")
      ->delimiter(',');
  cmd->add_option("--rows", cli->rows, "with --sparse and --shape: uniform and/or skewed block rows (default uniform)")
      ->delimiter(',');
  cmd->add_option("--op", cli->op, "with --sparse: xwt (Y = X W^T, W is N x K) or wx (Y = W X, W is M x K)")
      ->capture_default_str();
  cmd->add_option("--seed", cli->seed, "with --sparse: seed of W and X")->capture_default_str();
  return [cli, cmd](const BenchArgs& shared, const std::vector<std::string>& argv) {
    if (cli->operation != "gemm" && cli->operation != "bsr")
      throw Error(ErrorCode::InvalidArgument, "operation '" + cli->operation + "': unknown (expected gemm or bsr)");
    if (cli->operation == "bsr") cli->sparse = true;
    if (!cli->sparse) {
      std::vector<std::string> given;
      for (const char* name : {"--block", "--sparsity", "--rows", "--op", "--seed"})
        if (cmd->count(name) > 0) given.push_back(name);
      reject_sparse_only_options(given);
      return false;
    }
    SparseBenchArgs a;
    a.shapes = shared.shapes;
    a.preset = shared.preset;
    a.blocks = cli->blocks;
    a.sparsities = cli->sparsities;
    a.rows = cli->rows;
    a.op = cli->op;
    a.kernels = cmd->count("--kernels") > 0 ? shared.kernels : "";  // the dense default "all" is not ours
    a.dtype = shared.dtype;
    a.seed = cli->seed;
    a.warm = shared.warm;
    a.cold = shared.cold;
    a.min_time = shared.min_time;
    a.graph_batch = shared.graph_batch;
    a.csv = shared.csv;
    a.json = shared.json;
    a.schedules = shared.schedules;
    a.configs = shared.configs;
    for (const char* name : {"--sizes", "--layout", "--trans", "--rasters", "--plot"})
      if (cmd->count(name) > 0) a.dense_only.push_back(name);
    run_sparse_bench(a, argv);
    return true;
  };
}

}  // namespace tools
}  // namespace tilegemm
