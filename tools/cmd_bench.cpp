// tilegemm bench <operation>: every selected contender against the vendor libraries on the same data,
// in one run. Each contender's result is verified against the run's reference before it is timed; a
// wrong one gets no time. All arguments (and the output files) are checked before the device is
// touched; the operation's profiler (profiler/operation_profiler.hpp) supplies problems and contenders.
#include <csignal>
#include <cstdio>

#include "commands.hpp"
#include "profiler/operation_profiler.hpp"

namespace tilegemm {
namespace tools {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

void run_bench(OperationProfiler& op, const std::vector<std::string>& argv) {
  // 1. Everything that needs no GPU: arguments, output files.
  const BenchRunPlan plan = op.plan_bench(argv);
  const TimingChoice& t = plan.timing;

  // 2. The device, the operation's setup and the run's header line.
  RunInfo run = start_run(argv, t.dtype.name, t.warm, t.min_time, t.graph_batch);
  run.format = &op.report();
  const DeviceInfo& dev = run.device;
  std::printf("device: %s, %d SMs, FP32 peak %.1f TFLOP/s at max clock; %s %s, %zu problems, timing %s L2, min "
              "%.2f s per kernel; timing: %s\n",
              dev.name.c_str(), dev.sm_count, dev.fp32_peak_tflops(), op.name().c_str(), t.dtype.name.c_str(),
              plan.problems, l2_text(t.warm, t.graph_batch), t.min_time, timing_method_text(t.graph_batch).c_str());
  op.start_bench(run);
  std::fflush(stdout);
  std::signal(SIGINT, [](int) { g_interrupted = 1; });

  // 3. The sweep (run_sweep rewrites the files after every problem), then the operation's last step.
  const TimingPlan timing{t.min_time, static_cast<size_t>(run.flush_bytes), t.graph_batch};
  run_sweep(run, plan.problems, [&](size_t i) { return op.bench_problem(i, timing, g_interrupted); }, plan.files,
            g_interrupted);
  op.finish_bench();
}

}  // namespace

void add_bench_command(CLI::App& app, const std::vector<std::string>& argv) {
  CLI::App* cmd = app.add_subcommand(
      "bench", "Time kernels against the vendor libraries (verified first) and print tables; gemm unless an "
               "operation is named");
  cmd->require_subcommand(1);
  for (const auto& p : profilers()) {
    CLI::App* sub = cmd->add_subcommand(p->name(), p->summary());
    p->add_bench_options(sub);
    OperationProfiler* op = p.get();
    sub->callback([op, argv] { run_bench(*op, argv); });
  }
}

}  // namespace tools
}  // namespace tilegemm
