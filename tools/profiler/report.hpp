// What a bench run reports, for any operation (`bench gemm`, `bench bsr`): one Row per (problem,
// contender), printed as a table per problem and written as CSV (one header row, for spreadsheets,
// bench/plot_gflops.py and scripts/sparse-summary.py) and as JSON (the rows plus a header describing
// the device, the build, the command line, the date and the method). The rows, the files, the sweep
// and the header are the same for every operation; what an operation's problem is, and how its table
// and columns look, comes from its ReportFormat (tools/<operation>/<operation>_report.cpp).
#pragma once
#include <any>
#include <csignal>
#include <ctime>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "run_options.hpp"
#include "tilegemm/device.hpp"

namespace tilegemm {
namespace tools {

struct Row {
  std::any what;  // the problem as measured, in its operation's type (the ReportFormat reads it)
  std::string dtype = "fp32";
  std::string kernel;
  std::string config;     // the config the contender ran (Auto's pick, a --config, a ladder level); "" for baselines
  std::string status;     // "ok", "FAILED: ...", "skipped: ..."
  std::string note;       // how the contender ran the product (cuSPARSE: its formulation), may be empty
  bool baseline = false;  // the vendor library `ratio` is taken against: cuBLAS (gemm), cuSPARSE (bsr)
  // The contender whose result the others are verified against (not compared with itself); `vs_reference`
  // is taken against its time. gemm: cuBLAS, also the baseline; bsr: dense cuBLAS on W expanded.
  bool reference = false;
  Timing t;                     // meaningful when ok()
  double tflops = 0;            // useful TFLOP/s (bsr: 2 * M * nnzb * R * C / median)
  double peak_pct = 0;          // tflops as % of the FP32 peak
  std::optional<double> ratio;         // baseline median / this median, same run; none without a baseline time
  std::optional<double> vs_reference;  // reference median / this median
  std::optional<double> max_err;       // max |out - reference|; none when not compared (reference, skipped)
  double tol = 0;
  bool ok() const { return status == "ok"; }
};

// A CSV column of a row type: its name and its cell, already CSV text (csv_quoted where it may hold
// commas); "" leaves the cell empty.
template <class T>
struct CsvColumn {
  const char* name;
  std::function<std::string(const T&)> cell;
};

// How an operation's rows are reported. Its CSV columns follow `device` and are fixed per operation
// (docs/results and the scripts read them).
class ReportFormat {
 public:
  virtual ~ReportFormat() = default;
  // True when the row's problem is this operation's (a run measures one operation).
  virtual bool describes(const Row& r) const = 0;
  // The table of one problem, as printed after it is measured.
  virtual std::string table(const std::vector<Row>& rows_of_one_problem) const = 0;
  virtual std::vector<CsvColumn<Row>> csv_columns() const = 0;
  virtual nlohmann::json row_json(const Row& r) const = 0;
  // The JSON header's tool name and method entries that differ from a dense cuBLAS-verified run.
  virtual void describe_method(nlohmann::json& header) const = 0;
};

// Fills ratio and vs_reference of every ok row of one problem from the baseline's and the reference's medians.
void set_ratios(std::vector<Row>& rows_of_one_problem);

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
  const ReportFormat* format = nullptr;  // the operation's rows (set by the bench command)
  bool interrupted = false;  // Ctrl-C: the rows are those measured before it
};

// The start of a measuring run (any operation's bench): date, device (throws unless it is supported),
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

// The command's one CSV form (bench rows, tune results): a header row of column names, then one line
// per row.
template <class T>
std::string csv_table(const std::vector<CsvColumn<T>>& columns, const std::vector<T>& rows) {
  std::string out;
  for (size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + std::string(columns[c].name);
  out += '\n';
  for (const T& r : rows) {
    for (size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + columns[c].cell(r);
    out += '\n';
  }
  return out;
}
// A number as CSV text (10 significant digits).
std::string csv_number(double v);

// The CSV header row of an operation (column names, comma separated, no newline): `device`, the
// format's columns, then `timing`, how an ok row was timed: timing_csv_text() ("events" or "graph:N").
std::string csv_header(const ReportFormat& format);
// Rewrites `path` with the header and every row, in the format's columns; every row must be the
// format's (a run measures one operation). `what` names the option in errors.
void write_csv(const std::string& path, const std::vector<Row>& rows, const std::string& device_name,
               const ReportFormat& format, const char* what = "--csv");

// Building blocks of the formats: the cells and JSON fields every operation reports alike.
std::string number_if(bool have, double v);  // csv_number(v), or "" when not `have`
nlohmann::json number_or_null(bool have, double v);  // v, or null when not `have`
std::string ratio_text(const std::optional<double>& v);  // "1.234x" or "-"
std::vector<CsvColumn<Row>> measurement_columns();  // median_ms, min_ms, max_ms, reps
std::vector<CsvColumn<Row>> error_columns();  // pct_fp32_peak, max_abs_err, tolerance
void add_measurement_json(nlohmann::json& out, const Row& r);  // dtype, kernel, status, times, peak, error

// The JSON header alone (tool, date, command line, device, versions, build, method, interrupted), with
// the method of the run's operation (run.format).
nlohmann::json bench_header_json(const RunInfo& run);
nlohmann::json bench_json(const RunInfo& run, const std::vector<Row>& rows);
void write_json(const std::string& path, const RunInfo& run, const std::vector<Row>& rows,
                const char* what = "--json");

// The files a bench run writes ("" = not written).
struct OutputFiles {
  std::string csv, json;
};

// The sweep of every bench run, in run.format: measure(i) returns problem i's rows (ratios set). After
// each problem its table is printed and the files are rewritten, so a sweep stopped by Ctrl-C (`interrupted`,
// polled between problems) keeps the rows measured so far; the JSON header records the stop.
std::vector<Row> run_sweep(RunInfo& run, size_t problems, const std::function<std::vector<Row>(size_t)>& measure,
                           const OutputFiles& files, const volatile std::sig_atomic_t& interrupted);

}  // namespace tools
}  // namespace tilegemm
