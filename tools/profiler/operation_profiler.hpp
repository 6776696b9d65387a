// The operation profiler: what `tilegemm bench|check|tune <operation>` asks of an operation. The
// commands (tools/cmd_bench.cpp, cmd_check.cpp, cmd_tune.cpp) own everything operations share: the
// device, the run's header line and JSON header, the sweep with its progress, Ctrl-C and files
// rewritten after every problem (report.hpp), verification before timing (harness.hpp), the check
// table and its verdict, the tuning table, summary and database actions. A profiler owns its
// options, its problems, their data and reference, its contenders and its report format.
//
// Operations are listed in tools/profilers.cpp, one line each; a new operation is a folder
// tools/<name>/ with its profiler and that line. The first listed is the default operation
// (`tilegemm bench` = `tilegemm bench gemm`).
#pragma once
#include <CLI/CLI.hpp>

#include <csignal>
#include <memory>
#include <string>
#include <vector>

#include "harness.hpp"
#include "report.hpp"
#include "run_options.hpp"
#include "tilegemm/device.hpp"
#include "tilegemm/tune.hpp"
#include "tune_options.hpp"

namespace tilegemm {
namespace tools {

// A validated bench run of one operation.
struct BenchRunPlan {
  size_t problems = 0;
  TimingChoice timing;
  OutputFiles files;
};

// The run plan of an operation's validated bench plan (fields problems, dtype, warm, min_time,
// graph_batch, csv, json: BenchPlan, SparseBenchPlan, ...).
template <class Plan>
BenchRunPlan bench_run_plan(const Plan& p) {
  BenchRunPlan r;
  r.problems = p.problems.size();
  r.timing = TimingChoice{p.dtype, p.warm, p.min_time, p.graph_batch};
  r.files = OutputFiles{p.csv, p.json};
  return r;
}

// The columns of `check`'s table: the widths of the problem and contender names.
struct CheckColumns {
  int problem_width = 36, label_width = 48;
};
// Prints check lines in the command's one format; counts the failures.
class CheckTable {
 public:
  explicit CheckTable(CheckColumns c) : c_(c) {}
  void print_header() const;
  // A verified result: finite and within `tol` passes. `reference` names what it was compared with.
  void result(const std::string& problem, const std::string& label, const char* reference, const Diff& d, double tol);
  void skipped(const std::string& problem, const std::string& label, const std::string& why) const;
  int failures() const { return failures_; }

 private:
  CheckColumns c_;
  int failures_ = 0;
};

// One tuned problem, as the tune command prints and writes it.
struct TuneRow {
  std::string shape;  // the problem's name
  TuneResult result;
  std::string baseline;    // the vendor library, timed like the tuner times a config
  double baseline_us = 0;  // 0: not measured (the vendor library rejects the problem)
};

class OperationProfiler {
 public:
  virtual ~OperationProfiler() = default;
  virtual std::string name() const = 0;     // the operation word: "gemm", "bsr"
  virtual std::string summary() const = 0;  // one line of --help
  // A flag of bench/check/tune that selects this operation ("" for none; bsr: --sparse, the form the
  // command had before operations were words).
  virtual std::string flag_alias() const { return ""; }
  virtual const ReportFormat& report() const = 0;

  // bench <name>. The options (add_timing_options adds the shared ones), then the plan (no GPU),
  // then on the device: start (memory check, vendor handles, the header line), one problem's rows
  // (its data, reference and every contender verified and timed; stop early when `stop` is set),
  // and finish (e.g. the plot).
  virtual void add_bench_options(CLI::App* cmd) = 0;
  virtual BenchRunPlan plan_bench(const std::vector<std::string>& argv) = 0;
  virtual void start_bench(const RunInfo& run) = 0;
  virtual std::vector<Row> bench_problem(size_t i, const TimingPlan& timing, const volatile std::sig_atomic_t& stop) = 0;
  virtual void finish_bench() {}

  // check <name>: every contender of every problem against an independent reference.
  virtual void add_check_options(CLI::App* cmd) = 0;
  virtual size_t plan_check() = 0;  // validates; the number of problems
  virtual CheckColumns check_columns() const = 0;
  virtual void start_check(const DeviceInfo& dev) = 0;
  virtual void check_problem(size_t i, CheckTable& table) = 0;

  // tune <name>: --shape and --preset are the command's (shared.shapes, shared.preset), the profiler
  // adds its problem options, plans its problems and tunes one, timing its vendor baseline alike.
  virtual void add_tune_options(CLI::App* cmd) = 0;
  virtual size_t plan_tune(const TuneArgs& shared) = 0;  // validates; the number of problems
  virtual std::string tune_problem_name(size_t i) const = 0;
  virtual std::string tune_baseline() const = 0;  // "cuBLAS", "cuSPARSE"
  virtual int tune_name_width() const = 0;        // the table's problem column
  virtual TuneRow tune_problem(size_t i, const TuneOptions& options, size_t flush_bytes) = 0;
};

// Every operation, in the order of tools/profilers.cpp (the first is the default).
const std::vector<std::unique_ptr<OperationProfiler>>& profilers();

// The shared options of bench runs, bound to an operation's argument record (BenchArgs,
// SparseBenchArgs, ...: fields dtype, min_time, graph_batch, cold, warm, csv, json).
template <class Args>
void add_timing_options(CLI::App* cmd, Args& a) {
  cmd->add_option("--dtype", a.dtype, "element type: " + join_alternatives([] {
                    std::vector<std::string> names;
                    for (const DTypeChoice& d : supported_dtypes()) names.push_back(d.name);
                    return names;
                  }()))
      ->capture_default_str();
  cmd->add_option("--min-time", a.min_time, "seconds of kernel time per measurement")->capture_default_str();
  cmd->add_option("--graph-batch", a.graph_batch,
                  "time CUDA graphs of N back-to-back launches and report graph time / N (0 = events around "
                  "each launch; at most " + std::to_string(kMaxGraphBatch) +
                      "; warm L2 after each graph's first launch)")
      ->type_name("N")
      ->capture_default_str();
  CLI::Option* cold = cmd->add_flag("--cold", a.cold, "flush L2 before every timed run (the default)");
  CLI::Option* warm = cmd->add_flag("--warm", a.warm, "do not flush L2 between runs");
  warm->excludes(cold);
  cmd->add_option("--csv", a.csv, "write every row to this CSV file");
  cmd->add_option("--json", a.json, "write every row and a header (device, build, method) to this JSON file");
}

// The command line with its operation made explicit, for commands that take one (bench, check, tune):
// `tilegemm bench ...` becomes `tilegemm bench gemm ...` (the first profiler), and a profiler's
// flag_alias() anywhere after the command becomes its operation (`bench --sparse` = `bench bsr`). Throws, naming the word or the option, for an unknown
// operation and for an option only another operation has (`app` holds every operation's subcommand).
std::vector<std::string> with_operation(const std::vector<std::string>& args, const CLI::App& app);

}  // namespace tools
}  // namespace tilegemm
