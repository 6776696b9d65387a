// tilegemm check [gemm|bsr]: every kernel over a shape set against an independent reference: the CPU
// reference (double accumulation) for small problems, cuBLAS FP32 for large ones (for bsr, on W
// expanded to dense). Exits non-zero on any failure. All arguments are checked before the device is
// touched (options.hpp, sparse_options.hpp).
#include <cmath>
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "choice_log.hpp"
#include "contenders.hpp"
#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "options.hpp"
#include "ref/reference.hpp"
#include "shapes.hpp"
#include "sparse_options.hpp"
#include "tilegemm/bsr_gpu.hpp"
#include "ref/bsr_reference.hpp"
#include "tilegemm/device.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace tools {

namespace {

// Prints one check line (problem, contender, reference, max |err| or NaN, tolerance, PASS/FAIL) in
// columns of the given widths; true when the result is finite and within the tolerance.
bool report_check(int problem_width, const std::string& problem, int label_width, const std::string& label, bool cpu,
                  const Diff& d, double tol) {
  const bool ok = !d.non_finite && d.max_abs <= tol;
  std::printf("%-*s %-*s %-10s %12.3g %12.3g %s\n", problem_width, problem.c_str(), label_width, label.c_str(),
              cpu ? "cpu" : "cublas", d.non_finite ? NAN : d.max_abs, tol, ok ? "PASS" : "FAIL");
  return ok;
}

void run_check(const CheckArgs& args) {
  const CheckPlan plan = plan_check(args);  // every argument, before the device is touched
  require_supported_device();
  const DeviceInfo dev = current_device_info();
  // A, B, C and the expected C (cuBLAS's C, for large problems, is freed before that is allocated).
  check_fits(plan.problems, 2, 0.0, static_cast<double>(dev.global_mem_bytes), dev.name);
  Cublas cublas;
  const bool log_choice = log_choice_requested();
  int failures = 0;
  std::printf("%-36s %-48s %-10s %12s %12s\n", "shape", "kernel", "reference", "max error", "tolerance");
  for (const Problem& p : plan.problems) {
    DeviceBuffer<float> a(p.size_a()), b(p.size_b()), c(p.size_c());
    fill_uniform(a.get(), p.size_a(), 7);
    fill_uniform(b.get(), p.size_b(), 8);
    // The fills ran on the bench stream; download() copies on the legacy stream, not ordered after it.
    TILEGEMM_CUDA_CHECK(cudaStreamSynchronize(bench_stream()));
    const int64_t off = p.offset;
    const bool cpu = p.flops() <= 2.0 * 1024 * 1024 * 1024;
    std::vector<float> expect(p.size_c(), 0.0f);
    if (cpu) {
      const std::vector<float> ha = a.download(), hb = b.download();
      ref::sgemm(p.layout, p.op_a, p.op_b, p.m, p.n, p.k, 1.0f, ha.data() + off, p.lda(), hb.data() + off, p.ldb(),
                 0.0f, expect.data() + off, p.ldc());
    } else {
      DeviceBuffer<float> c_ref(p.size_c());
      cublas.sgemm(p, 1.0f, a.get() + off, b.get() + off, 0.0f, c_ref.get() + off);
      TILEGEMM_CUDA_CHECK(cudaStreamSynchronize(bench_stream()));
      expect = c_ref.download();
    }
    DeviceBuffer<float> d_expect(p.size_c());
    d_expect.upload(expect);
    // A pageable cudaMemcpy may return before its DMA is done; the comparisons run on the bench stream.
    TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
    if (log_choice) log_choice_for(p, a.get() + off, b.get() + off, c.get() + off);
    const double tol = (cpu ? 1.0 : 2.0) * ref::fp32_gemm_error_bound(p.k);
    for (const Contender& ct : make_contenders(p, plan.kernels, plan.families, plan.configs, {}, false, false, cublas)) {
      if (ct.is_baseline) continue;
      const std::string why = ct.unsupported(p, a.get() + off, b.get() + off, c.get() + off);
      if (!why.empty()) {
        std::printf("%-36s %-48s skipped: %s\n", p.str().c_str(), ct.label.c_str(), why.c_str());
        continue;
      }
      fill_value(c.get(), p.size_c(), std::nanf(""));
      ct.run(p, a.get() + off, b.get() + off, c.get() + off);
      TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
      failures += !report_check(36, p.str(), 48, ct.label, cpu, compare_c(p, c.get(), d_expect.get()), tol);
    }
  }
  if (failures) throw Error(ErrorCode::Internal, std::to_string(failures) + " kernel/shape combinations failed");
  std::printf("all checks passed\n");
}

// One BSR problem's contenders: the kernels, then the configs.
struct SparseContender {
  std::string label;
  BsrOptions options;
};

void run_check_bsr(const SparseCheckArgs& args) {
  const SparseCheckPlan plan = plan_sparse_check(args);  // every argument, before the device is touched
  require_supported_device();
  std::vector<SparseContender> contenders;
  for (BsrKernel k : plan.kernels) {
    SparseContender c{to_string(k), {}};
    c.options.kernel = k;
    contenders.push_back(c);
  }
  for (const std::string& text : plan.configs) {
    SparseContender c{text, {}};
    c.options.config = text;
    contenders.push_back(c);
  }
  Cublas cublas;
  int failures = 0;
  std::printf("%-66s %-34s %-10s %12s %12s\n", "problem", "kernel", "reference", "max error", "tolerance");
  for (const SparseProblem& p : plan.problems) {
    const bool xwt = p.op == SparseOp::Xwt;
    const BsrMatrix w = generate_bsr(p.w_rows(), p.w_cols(), p.block_rows, p.block_cols, p.sparsity, p.rows,
                                     sparse_w_seed(plan.seed, p));
    const DeviceBsrMatrix dw(w);
    DeviceBuffer<float> x(static_cast<size_t>(p.size_x())), y(static_cast<size_t>(p.size_y()));
    fill_uniform(x.get(), p.size_x(), sparse_x_seed(plan.seed, p));
    TILEGEMM_CUDA_CHECK(cudaStreamSynchronize(bench_stream()));
    const int64_t ldx = xwt ? p.k : p.n;
    const bool cpu = useful_flops(p, w.nnzb()) <= kCheckCpuMaxFlops;
    std::vector<float> expect(static_cast<size_t>(p.size_y()), 0.0f);
    if (cpu) {
      const std::vector<float> hx = x.download();
      if (xwt) ref::bsr_xwt(p.m, p.n, p.k, 1.0f, hx.data(), ldx, w, 0.0f, expect.data(), p.n);
      else ref::bsr_wx(p.m, p.n, p.k, 1.0f, w, hx.data(), ldx, 0.0f, expect.data(), p.n);
    } else {  // dense cuBLAS on W expanded: X (m x k) * Wd^T, or Wd (m x k) * X
      std::vector<float> dense(static_cast<size_t>(p.size_w_dense()));
      bsr_to_dense(w, dense.data(), p.w_cols());
      DeviceBuffer<float> wd(dense.size()), y_ref(static_cast<size_t>(p.size_y()));
      wd.upload(dense);
      TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
      Problem dp;
      dp.m = p.m, dp.n = p.n, dp.k = p.k;
      dp.op_b = xwt ? Op::T : Op::N;
      cublas.sgemm(dp, 1.0f, xwt ? x.get() : wd.get(), xwt ? wd.get() : x.get(), 0.0f, y_ref.get());
      TILEGEMM_CUDA_CHECK(cudaStreamSynchronize(bench_stream()));
      expect = y_ref.download();
    }
    DeviceBuffer<float> d_expect(expect.size());
    d_expect.upload(expect);
    TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
    const double tol = (cpu ? 1.0 : 2.0) * ref::fp32_gemm_error_bound(p.k);
    for (const SparseContender& c : contenders) {
      const std::string why = sparse_kernel_skip_reason(c.options.kernel, p, w.nnzb());  // "" for configs (Auto)
      if (!why.empty()) {
        std::printf("%-66s %-34s skipped: %s\n", p.str().c_str(), c.label.c_str(), why.c_str());
        continue;
      }
      fill_value(y.get(), p.size_y(), std::nanf(""));
      try {
        if (xwt) bsr_xwt(p.m, p.n, p.k, 1.0f, x.get(), ldx, dw, 0.0f, y.get(), p.n, bench_stream(), c.options);
        else bsr_wx(p.m, p.n, p.k, 1.0f, dw, x.get(), ldx, 0.0f, y.get(), p.n, bench_stream(), c.options);
        TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
      } catch (const Error& e) {
        if (e.code() != ErrorCode::InvalidArgument) throw;
        std::printf("%-66s %-34s skipped: %s\n", p.str().c_str(), c.label.c_str(), e.what());
        continue;
      }
      failures += !report_check(66, p.str(), 34, c.label, cpu, compare(y.get(), d_expect.get(), p.size_y()), tol);
    }
  }
  if (failures) throw Error(ErrorCode::Internal, std::to_string(failures) + " kernel/problem combinations failed");
  std::printf("all checks passed\n");
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  auto sparse = std::make_shared<SparseCheckArgs>();
  auto operation = std::make_shared<std::string>("gemm");
  CLI::App* cmd = app.add_subcommand("check", "Verify every kernel against the CPU reference or cuBLAS");
  cmd->add_option("operation", *operation, "gemm (default) or bsr (block-sparse: --shape with --block/--sparsity/"
                                           "--rows/--op, or --preset " + join_alternatives(sparse_preset_names()) +
                                           "; default seed-sparse)");
  cmd->add_option("--preset", args->preset, join_alternatives(preset_names()) + ", or '' for none")
      ->capture_default_str();
  cmd->add_option("--shape", args->shapes, "MxNxK (repeatable)");
  cmd->add_option("--dtype", args->dtype, "element type: fp32")->capture_default_str();
  cmd->add_option("--kernels", args->kernels, "comma list of levels, auto, all")->capture_default_str();
  cmd->add_option("--layout", args->layout, "row | col")->capture_default_str();
  cmd->add_option("--trans", args->trans, "NN | NT | TN | TT (presets may fix some shapes' ops)")->capture_default_str();
  cmd->add_option("--ld", args->ld, "+N: pad every leading dimension by N elements; N: every leading dimension is N")
      ->capture_default_str();
  cmd->add_option("--offset", args->offset, "start every matrix N elements into its buffer (unaligned pointers)")
      ->capture_default_str();
  cmd->add_option("--config", args->configs, "also check this config (text form, repeatable; bsr: a BSR config)");
  cmd->add_option("--block", sparse->blocks, "bsr --shape: W's blocks R or RxC, comma list (default 32)")->delimiter(',');
  cmd->add_option("--sparsity", sparse->sparsities, "bsr --shape: fraction of absent blocks, comma list (default 0.9)")
      ->delimiter(',');
  cmd->add_option("--rows", sparse->rows, "bsr --shape: uniform and/or skewed block rows (default uniform)")
      ->delimiter(',');
  cmd->add_option("--op", sparse->op, "bsr: xwt (Y = X W^T) or wx (Y = W X)")->capture_default_str();
  cmd->add_option("--seed", sparse->seed, "bsr: seed of W and X (the bench's)")->capture_default_str();
  cmd->callback([args, sparse, operation, cmd] {
    const char* const dense_only[] = {"--layout", "--trans", "--ld", "--offset", "--dtype"};
    const char* const sparse_only[] = {"--block", "--sparsity", "--rows", "--op", "--seed"};
    if (*operation == "bsr") {
      for (const char* name : dense_only)
        if (cmd->count(name) > 0) throw Error(ErrorCode::InvalidArgument, std::string(name) + ": not available with check bsr");
      sparse->shapes = args->shapes;
      sparse->preset = cmd->count("--preset") > 0 ? args->preset : "";
      if (cmd->count("--kernels") > 0) sparse->kernels = args->kernels;
      sparse->configs = args->configs;
      run_check_bsr(*sparse);
    } else if (*operation == "gemm") {
      for (const char* name : sparse_only)
        if (cmd->count(name) > 0) throw Error(ErrorCode::InvalidArgument, std::string(name) + ": not available with check gemm");
      run_check(*args);
    } else {
      throw Error(ErrorCode::InvalidArgument, "operation '" + *operation + "': unknown (expected gemm or bsr)");
    }
  });
}

}  // namespace tools
}  // namespace tilegemm
