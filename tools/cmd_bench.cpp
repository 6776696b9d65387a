// tilegemm bench: every selected kernel against cuBLAS on the same data, in one run.
// Each kernel's result is verified against cuBLAS before it is timed; a wrong kernel gets no time.
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <memory>

#include "commands.hpp"
#include "contenders.hpp"
#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "tilegemm/device.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace tools {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

struct BenchArgs {
  std::vector<std::string> shapes;
  std::string sizes, preset, kernels = "all", layout = "row", trans = "NN", csv;
  std::vector<std::string> rasters;
  bool schedules = false, warm = false;
  double min_time = 0.5;
};

struct Row {
  Problem problem;
  std::string kernel, status;  // status: "ok", "FAILED: ...", "skipped: ..."
  Timing t;
  double tflops = 0, ratio = 0, peak_pct = 0, max_err = 0, tol = 0;
};

std::vector<Problem> problems_from(const BenchArgs& args) {
  std::vector<Problem> list;
  if (!args.preset.empty()) list = preset_shapes(args.preset);
  for (const auto& s : args.shapes) list.push_back(parse_shape(s));
  if (!args.sizes.empty())
    for (int64_t v : parse_sizes(args.sizes)) {
      Problem p;
      p.m = p.n = p.k = v;
      list.push_back(p);
    }
  if (list.empty()) list = preset_shapes("ladder");
  const Layout layout = parse_layout(args.layout, "--layout");
  if (args.trans.size() != 2)
    throw Error(ErrorCode::InvalidArgument, "--trans: unknown value '" + args.trans + "' (expected NN, NT, TN or TT)");
  const Op oa = parse_op(args.trans.substr(0, 1), "--trans"), ob = parse_op(args.trans.substr(1, 1), "--trans");
  for (auto& p : list) {
    p.layout = layout;
    p.op_a = oa;
    p.op_b = ob;
  }
  return list;
}

void write_csv(const std::string& path, const std::vector<Row>& rows, const DeviceInfo& dev) {
  std::ofstream f(path);
  if (!f) throw Error(ErrorCode::InvalidArgument, "--csv: cannot write '" + path + "'");
  f << "device,m,n,k,layout,trans,kernel,status,median_ms,min_ms,max_ms,reps,tflops,ratio_vs_cublas,"
       "pct_fp32_peak,max_abs_err,tolerance\n";
  for (const Row& r : rows) {
    const Problem& p = r.problem;
    f << '"' << dev.name << "\"," << p.m << ',' << p.n << ',' << p.k << ',' << to_string(p.layout) << ','
      << to_string(p.op_a) << to_string(p.op_b) << ',' << r.kernel << ",\"" << r.status << "\"," << r.t.median_ms
      << ',' << r.t.min_ms << ',' << r.t.max_ms << ',' << r.t.reps << ',' << r.tflops << ',' << r.ratio << ','
      << r.peak_pct << ',' << r.max_err << ',' << r.tol << '\n';
  }
}

void print_table(const Problem& p, const std::vector<Row>& rows) {
  std::printf("\n%s\n", p.str().c_str());
  std::printf("  %-34s %10s %10s %10s %8s %8s %7s\n", "kernel", "median ms", "min ms", "max ms", "TFLOP/s",
              "vs cuBLAS", "% peak");
  for (const Row& r : rows) {
    if (r.status != "ok") {
      std::printf("  %-34s %s\n", r.kernel.c_str(), r.status.c_str());
      continue;
    }
    std::printf("  %-34s %10.4f %10.4f %10.4f %8.2f %8.3fx %6.1f%%\n", r.kernel.c_str(), r.t.median_ms, r.t.min_ms,
                r.t.max_ms, r.tflops, r.ratio, r.peak_pct);
  }
  std::fflush(stdout);
}

void run_bench(const BenchArgs& args) {
  const std::vector<Problem> problems = problems_from(args);
  const DeviceInfo dev = current_device_info();
  require_supported_device();
  Cublas cublas;
  const std::vector<Contender> contenders = make_contenders(args.kernels, args.rasters, args.schedules, cublas);
  const size_t flush_bytes = args.warm ? 0 : static_cast<size_t>(dev.l2_bytes) * 2;
  std::printf("device: %s, %d SMs, FP32 peak %.1f TFLOP/s at max clock; timing %s L2, min %.2f s per kernel\n",
              dev.name.c_str(), dev.sm_count, dev.fp32_peak_tflops(), args.warm ? "warm" : "cold (flushed)",
              args.min_time);
  std::signal(SIGINT, [](int) { g_interrupted = 1; });

  std::vector<Row> all_rows;
  for (size_t pi = 0; pi < problems.size() && !g_interrupted; ++pi) {
    const Problem& p = problems[pi];
    DeviceBuffer<float> a(p.size_a()), b(p.size_b()), c(p.size_c()), c_ref(p.size_c());
    fill_uniform(a.get(), p.size_a(), 1 + pi);
    fill_uniform(b.get(), p.size_b(), 1000 + pi);
    fill_value(c_ref.get(), p.size_c(), std::nanf(""));
    cublas.sgemm(p, 1.0f, a.get(), b.get(), 0.0f, c_ref.get());
    TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
    // |A|,|B| <= 1: the FP32 rounding bound of a K-term dot product, for both sides of the comparison.
    const double tol = 2.0 * 4.0 * 1.2e-7 * static_cast<double>(p.k + 2);
    std::vector<Row> rows;
    double base_ms = 0;
    for (size_t ci = 0; ci < contenders.size() && !g_interrupted; ++ci) {
      const Contender& ct = contenders[ci];
      std::fprintf(stderr, "[shape %zu/%zu %s] %s (%zu/%zu)\n", pi + 1, problems.size(), p.str().c_str(),
                   ct.label.c_str(), ci + 1, contenders.size());
      Row r;
      r.problem = p;
      r.kernel = ct.label;
      r.tol = tol;
      const std::string why = ct.unsupported(p);
      if (!why.empty()) {
        r.status = "skipped: " + why;
        rows.push_back(r);
        continue;
      }
      try {
        if (!ct.is_baseline) {
          fill_value(c.get(), p.size_c(), std::nanf(""));  // poison: unwritten elements show up
          ct.run(p, a.get(), b.get(), c.get());
          TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
          const Diff d = compare(c.get(), c_ref.get(), p.size_c());
          r.max_err = d.max_abs;
          if (d.non_finite || d.max_abs > tol) {
            char msg[160];
            std::snprintf(msg, sizeof msg, "FAILED: %s max |C - cuBLAS| = %.3g > tolerance %.3g",
                          d.non_finite ? "non-finite output," : "", d.max_abs, tol);
            r.status = msg;
            rows.push_back(r);
            continue;
          }
        }
        r.t = time_runs([&] { ct.run(p, a.get(), b.get(), c.get()); }, args.min_time, flush_bytes);
        r.status = "ok";
        r.tflops = p.flops() / (r.t.median_ms * 1e-3) / 1e12;
        if (ct.is_baseline) base_ms = r.t.median_ms;
        r.ratio = base_ms > 0 ? base_ms / r.t.median_ms : 0;
        r.peak_pct = 100.0 * r.tflops / dev.fp32_peak_tflops();
      } catch (const Error& e) {
        if (e.code() == ErrorCode::OutOfMemory) throw;
        r.status = std::string("FAILED: ") + e.what();
      }
      rows.push_back(r);
    }
    print_table(p, rows);
    all_rows.insert(all_rows.end(), rows.begin(), rows.end());
    if (!args.csv.empty()) write_csv(args.csv, all_rows, dev);  // rewrite as we go: Ctrl-C keeps rows
  }
  if (g_interrupted) std::fprintf(stderr, "interrupted: kept the rows measured so far\n");
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand("bench", "Time kernels against cuBLAS (verified first) and print tables");
  cmd->add_option("--shape", args->shapes, "MxNxK (repeatable)");
  cmd->add_option("--sizes", args->sizes, "square sweep LO:HI:xF or LO:HI:+S, e.g. 256:16384:x2");
  cmd->add_option("--preset", args->preset, "textbook | tvm-post | odd | ladder | small");
  cmd->add_option("--kernels", args->kernels, "comma list of levels (1-6 or names), auto, all")->capture_default_str();
  cmd->add_option("--layout", args->layout, "row | col")->capture_default_str();
  cmd->add_option("--trans", args->trans, "NN | NT | TN | TT")->capture_default_str();
  cmd->add_option("--rasters", args->rasters, "time levels 4-6 with each tile order: rowmajor,grouped,hilbert")
      ->delimiter(',');
  cmd->add_flag("--schedules", args->schedules, "also time the extra level-6 schedules (row-major NN)");
  cmd->add_option("--min-time", args->min_time, "seconds of kernel time per measurement")->capture_default_str();
  cmd->add_flag("--warm", args->warm, "do not flush L2 between runs (default: flush, cold)");
  cmd->add_option("--csv", args->csv, "write every row to this CSV file");
  cmd->callback([args] { run_bench(*args); });
}

}  // namespace tools
}  // namespace tilegemm
