// tilegemm check: every kernel over a shape set against an independent reference: the CPU reference
// (double accumulation) for small problems, cuBLAS FP32 for large ones. Exits non-zero on any failure.
// All arguments are checked before the device is touched (options.hpp).
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
#include "tilegemm/device.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace tools {

namespace {

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
    for (const Contender& ct : make_contenders(p, plan.kernels, plan.configs, {}, false, cublas)) {
      if (ct.is_baseline) continue;
      const std::string why = ct.unsupported(p, a.get() + off, b.get() + off, c.get() + off);
      if (!why.empty()) {
        std::printf("%-36s %-48s skipped: %s\n", p.str().c_str(), ct.label.c_str(), why.c_str());
        continue;
      }
      fill_value(c.get(), p.size_c(), std::nanf(""));
      ct.run(p, a.get() + off, b.get() + off, c.get() + off);
      TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
      const Diff d = compare_c(p, c.get(), d_expect.get());
      const bool ok = !d.non_finite && d.max_abs <= tol;
      failures += !ok;
      std::printf("%-36s %-48s %-10s %12.3g %12.3g %s\n", p.str().c_str(), ct.label.c_str(), cpu ? "cpu" : "cublas",
                  d.non_finite ? NAN : d.max_abs, tol, ok ? "PASS" : "FAIL");
    }
  }
  if (failures) throw Error(ErrorCode::Internal, std::to_string(failures) + " kernel/shape combinations failed");
  std::printf("all checks passed\n");
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand("check", "Verify every kernel against the CPU reference or cuBLAS");
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
  cmd->add_option("--config", args->configs, "also check this GEMM config (text form, repeatable)");
  cmd->callback([args] { run_check(*args); });
}

}  // namespace tools
}  // namespace tilegemm
