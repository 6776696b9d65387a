// tilegemm bench: every selected kernel against cuBLAS on the same data, in one run.
// Each kernel's result is verified against cuBLAS before it is timed; a wrong kernel gets no time.
// All arguments (and the output files) are checked before the device is touched (options.hpp).
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>

#include "commands.hpp"
#include "choice_log.hpp"
#include "contenders.hpp"
#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "options.hpp"
#include "plot.hpp"
#include "report.hpp"
#include "shapes.hpp"
#include "sparse_command.hpp"
#include "tilegemm/device.hpp"
#include "tilegemm/error.hpp"
#include "ref/reference.hpp"

namespace tilegemm {
namespace tools {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

// Verifies (unless it is the baseline) and times one contender on one problem. a, b, c, c_ref: the
// buffers (the matrices start p.offset elements in).
Row measure(const Contender& ct, const Problem& p, const BenchPlan& plan, const DeviceInfo& dev,
            const TimingPlan& timing, const float* a_buf, const float* b_buf, float* c_buf, const float* c_ref) {
  const float* a = a_buf + p.offset;
  const float* b = b_buf + p.offset;
  float* c = c_buf + p.offset;
  Row r;
  r.what = p;
  r.dtype = plan.dtype.name;
  r.kernel = ct.label;
  r.baseline = ct.is_baseline;
  // |A|,|B| <= 1: the FP32 rounding bound of a K-term dot product, for both sides of the comparison.
  r.tol = 2.0 * ref::fp32_gemm_error_bound(p.k);
  const std::string why = ct.unsupported(p, a, b, c);
  if (!why.empty()) {
    r.status = "skipped: " + why;
    return r;
  }
  std::function<Diff()> compare;
  if (!ct.is_baseline) compare = [&] { return compare_c(p, c_buf, c_ref); };
  verify_and_time(
      r, [&] { ct.run(p, a, b, c); }, [&] { fill_value(c_buf, p.size_c(), std::nanf("")); }, compare, p.flops(),
      dev.fp32_peak_tflops(), timing);
  if (r.ok()) r.config = ct.config(p, a, b, c);
  return r;
}

void run_bench(const BenchArgs& args, const std::vector<std::string>& argv) {
  // 1. Everything that needs no GPU: arguments, output files, the plotting script.
  const BenchPlan plan = plan_bench(args);
  std::string plot_script;
  if (!plan.plot.empty())
    plot_script = find_plot_script(current_executable(argv.empty() ? nullptr : argv[0].c_str()),
                                   std::getenv("TILEGEMM_PLOT_SCRIPT"));

  // 2. The device.
  RunInfo run = start_run(argv, plan.dtype.name, plan.warm, plan.min_time, plan.graph_batch);
  const DeviceInfo& dev = run.device;
  const size_t flush_bytes = static_cast<size_t>(run.flush_bytes);
  check_fits(plan.problems, 2, run.flush_bytes, static_cast<double>(dev.global_mem_bytes), dev.name);

  Cublas cublas;
  const bool log_choice = log_choice_requested();
  std::printf("device: %s, %d SMs, FP32 peak %.1f TFLOP/s at max clock; %s, timing %s L2, min %.2f s per kernel; "
              "timing: %s\n",
              dev.name.c_str(), dev.sm_count, dev.fp32_peak_tflops(), plan.dtype.name.c_str(),
              l2_text(plan.warm, plan.graph_batch), plan.min_time, timing_method_text(plan.graph_batch).c_str());
  std::signal(SIGINT, [](int) { g_interrupted = 1; });

  // 3. The sweep (run_sweep rewrites the files after every shape).
  const TimingPlan timing{plan.min_time, flush_bytes, plan.graph_batch};
  run_sweep(run, plan.problems.size(), [&](size_t pi) {
    const Problem& p = plan.problems[pi];
    DeviceBuffer<float> a(p.size_a()), b(p.size_b()), c(p.size_c()), c_ref(p.size_c());
    fill_uniform(a.get(), p.size_a(), 1 + pi);
    fill_uniform(b.get(), p.size_b(), 1000 + pi);
    fill_value(c_ref.get(), p.size_c(), std::nanf(""));
    cublas.sgemm(p, 1.0f, a.get() + p.offset, b.get() + p.offset, 0.0f, c_ref.get() + p.offset);
    TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
    if (log_choice) log_choice_for(p, a.get() + p.offset, b.get() + p.offset, c.get() + p.offset);
    const std::vector<Contender> contenders =
        make_contenders(p, plan.kernels, plan.families, plan.configs, plan.rasters, plan.schedules, plan.ffma_auto, cublas);
    std::vector<Row> rows;
    for (size_t ci = 0; ci < contenders.size() && !g_interrupted; ++ci) {
      const Contender& ct = contenders[ci];
      std::fprintf(stderr, "[shape %zu/%zu %s] %s (%zu/%zu)\n", pi + 1, plan.problems.size(), p.str().c_str(),
                   ct.label.c_str(), ci + 1, contenders.size());
      rows.push_back(measure(ct, p, plan, dev, timing, a.get(), b.get(), c.get(), c_ref.get()));
    }
    set_ratios(rows);
    return rows;
  }, OutputFiles{plan.csv, plan.json}, g_interrupted);

  // 4. The plot, drawn from the CSV just written. Failing here leaves the result files in place.
  if (!plan.plot.empty()) {
    const std::string said = run_plot_script(plot_script, plan.csv, plan.plot);
    std::printf("%s", said.c_str());
    if (!said.empty() && said.back() != '\n') std::printf("\n");
  }
}

}  // namespace

void add_bench_command(CLI::App& app, const std::vector<std::string>& argv) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand("bench", "Time kernels against cuBLAS (verified first) and print tables");
  cmd->add_option("--shape", args->shapes, "MxNxK (repeatable)");
  cmd->add_option("--sizes", args->sizes, "square sweep LO:HI:xF or LO:HI:+S, e.g. 256:16384:x2");
  cmd->add_option("--preset", args->preset, join_alternatives(preset_names()) + " (default: ladder)");
  cmd->add_option("--dtype", args->dtype, "element type: fp32")->capture_default_str();
  cmd->add_option("--kernels", args->kernels, "comma list of levels (1-7 or names), auto, all")->capture_default_str();
  cmd->add_option("--layout", args->layout, "row | col")->capture_default_str();
  cmd->add_option("--trans", args->trans, "NN | NT | TN | TT (presets may fix some shapes' ops)")->capture_default_str();
  cmd->add_option("--ld", args->ld, "+N: pad every leading dimension by N elements; N: every leading dimension is N")
      ->capture_default_str();
  cmd->add_option("--offset", args->offset, "start every matrix N elements into its buffer (unaligned pointers)")
      ->capture_default_str();
  cmd->add_option("--config", args->configs,
                  "also run this config (text form, repeatable), e.g. tiled:64x64x16:w32x32:t8x4:s3:b6:k8:hilbert; with "
                  "--sparse a BSR config, e.g. bsr-tiled:32x128x16:t4x8:s4");
  cmd->add_option("--rasters", args->rasters, "time levels 4-6 with each tile order: rowmajor,grouped,hilbert")
      ->delimiter(',');
  cmd->add_flag("--ffma-auto", args->ffma_auto,
                "also time Auto kept to CUDA-core FFMA (GemmOptions::math = FfmaOnly), as auto-ffma");
  cmd->add_flag("--schedules", args->schedules,
                "also time every compiled tiled schedule at the split the model predicts best for it, and the GEMV "
                "kernel where it applies; with --sparse, every compiled config the BSR tuner measures");
  cmd->add_option("--min-time", args->min_time, "seconds of kernel time per measurement")->capture_default_str();
  cmd->add_option("--graph-batch", args->graph_batch,
                  "time CUDA graphs of N back-to-back launches and report graph time / N (0 = events around "
                  "each launch; at most " + std::to_string(kMaxGraphBatch) +
                      "; warm L2 after each graph's first launch)")
      ->type_name("N")
      ->capture_default_str();
  CLI::Option* cold = cmd->add_flag("--cold", args->cold, "flush L2 before every timed run (the default)");
  CLI::Option* warm = cmd->add_flag("--warm", args->warm, "do not flush L2 between runs");
  warm->excludes(cold);
  cmd->add_option("--csv", args->csv, "write every row to this CSV file");
  cmd->add_option("--json", args->json, "write every row and a header (device, build, method) to this JSON file");
  cmd->add_option("--plot", args->plot,
                  "draw TFLOP/s vs size into this .png or .svg (bench/plot_gflops.py; its CSV is FILE.csv "
                  "unless --csv is given)");
  const SparseDispatch sparse = add_sparse_bench_options(cmd);  // --sparse: cmd_bench_sparse.cpp
  cmd->callback([args, argv, sparse] {
    if (!sparse(*args, argv)) run_bench(*args, argv);
  });
}

}  // namespace tools
}  // namespace tilegemm
