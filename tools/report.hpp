// What a bench run reports: one Row per (shape, kernel), written as CSV (one header row, for
// spreadsheets and bench/plot_gflops.py) and as JSON (the rows plus a header describing the device,
// the build, the command line, the date and the method).
#pragma once
#include <ctime>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "problem.hpp"
#include "tilegemm/device.hpp"

namespace tilegemm {
namespace tools {

struct Row {
  Problem problem;
  std::string dtype = "fp32";
  std::string kernel;
  std::string config;     // the config the contender ran (Auto's pick, a --config, a ladder level); "" for cuBLAS
  std::string status;     // "ok", "FAILED: ...", "skipped: ..."
  bool baseline = false;  // the vendor library every ratio is taken against
  Timing t;               // meaningful when ok()
  double tflops = 0, peak_pct = 0;
  std::optional<double> ratio;    // baseline median / this median, same run; none without a baseline time
  std::optional<double> max_err;  // max |C - baseline|; none when not compared (baseline, skipped)
  double tol = 0;
  bool ok() const { return status == "ok"; }
};

struct BuildInfo {
  std::string version;             // CMake PROJECT_VERSION
  std::vector<std::string> archs;  // tilegemm::compiled_archs()
  std::string cxx_compiler, cuda_compiler, build_type;
};
BuildInfo build_info();

// Everything the JSON header says about one run.
struct RunInfo {
  DeviceInfo device;
  BuildInfo build;
  std::vector<std::string> argv;
  std::string date_utc;  // utc_iso8601() at the start of the run
  std::string dtype = "fp32";
  bool warm = false;
  double min_time_s = 0.5;
  double flush_bytes = 0;
  int graph_batch = 0;  // --graph-batch: 0 = events around each launch, N = CUDA graphs of N launches
  bool interrupted = false;  // Ctrl-C: the rows are those measured before it
};

// The start of a measuring run (dense or sparse bench): date, device (throws unless it is supported),
// build, command line and method. flush_bytes is 2 x L2 for cold runs, 0 for --warm.
RunInfo start_run(const std::vector<std::string>& argv, const std::string& dtype, bool warm,
                  double min_time_s, int graph_batch = 0);

// The L2 words of the run's header line: "warm", "cold (flushed)", or with graphs (--graph-batch)
// "cold (flushed before each graph)": only a graph's first launch starts cold.
const char* l2_text(bool warm, int graph_batch);

// Writes `text` to `path` (truncating); `what` names the option in the error if it cannot.
void write_text_file(const std::string& path, const std::string& text, const char* what);

// CUDA's version numbers (1000*major + 10*minor, e.g. 13000) as "13.0".
std::string cuda_version_text(int v);
// 1970-01-01T00:00:00Z form.
std::string utc_iso8601(std::time_t t);
// The argument vector as one line a shell would split back into the same words.
std::string shell_join(const std::vector<std::string>& argv);

// A CSV text field: always quoted, embedded quotes doubled.
std::string csv_quoted(const std::string& s);

// The CSV header row (column names, comma separated, no newline). The last column, `timing`, says how
// an ok row was timed: timing_csv_text() ("events" or "graph:N").
std::string csv_header();
// Rewrites `path` with the header and every row. `what` names the option in errors.
void write_csv(const std::string& path, const std::vector<Row>& rows, const std::string& device_name,
               const char* what = "--csv");

// The JSON header alone (tool, date, command line, device, versions, build, method, interrupted); the
// sparse bench (sparse_report.hpp) adjusts its tool and method entries.
nlohmann::json bench_header_json(const RunInfo& run);
nlohmann::json bench_json(const RunInfo& run, const std::vector<Row>& rows);
void write_json(const std::string& path, const RunInfo& run, const std::vector<Row>& rows,
                const char* what = "--json");

}  // namespace tools
}  // namespace tilegemm
