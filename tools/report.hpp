// What a bench run reports, dense (`bench gemm`) or block-sparse (`bench bsr`): one Row per
// (problem, contender), printed as a table per problem and written as CSV (one header row, for
// spreadsheets, bench/plot_gflops.py and scripts/sparse-summary.py) and as JSON (the rows plus a
// header describing the device, the build, the command line, the date and the method). One row type
// and one writer for both operations; the CSV keeps one column set per operation.
#pragma once
#include <csignal>
#include <ctime>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "problem.hpp"
#include "sparse_options.hpp"
#include "tilegemm/device.hpp"

namespace tilegemm {
namespace tools {

// Contender labels of the two baselines of a BSR run.
inline constexpr const char* kDenseBaselineLabel = "cublas-dense";  // cuBLAS FP32 on W expanded to dense
inline constexpr const char* kSparseBaselineLabel = "cusparse-bsr";  // cusparseSpMM, CUSPARSE_SPMM_BSR_ALG1

// A BSR product as measured: the problem and the W generated for it.
struct SparseCase {
  SparseProblem problem;
  int64_t nnzb = 0;              // stored blocks of the generated W
  double achieved_sparsity = 0;  // 1 - nnzb / total blocks
  int64_t max_row_blocks = 0;    // the longest block row (skew)
};

struct Row {
  std::variant<Problem, SparseCase> what;  // a GEMM problem (gemm) or a BSR case (bsr)
  std::string dtype = "fp32";
  std::string kernel;
  std::string config;     // the config the contender ran (Auto's pick, a --config, a ladder level); "" for baselines
  std::string status;     // "ok", "FAILED: ...", "skipped: ..."
  std::string note;       // how the contender ran the product (cuSPARSE: its formulation), may be empty
  bool baseline = false;  // the vendor library `ratio` is taken against: cuBLAS (gemm), cuSPARSE (bsr)
  bool dense_baseline = false;  // bsr: dense cuBLAS on W expanded to dense, the run's reference
  Timing t;                     // meaningful when ok()
  double tflops = 0;            // bsr: useful TFLOP/s, 2 * M * nnzb * R * C / median
  double peak_pct = 0;          // tflops as % of the FP32 peak
  std::optional<double> ratio;     // baseline median / this median, same run; none without a baseline time
  std::optional<double> vs_dense;  // bsr: dense cuBLAS median / this median
  std::optional<double> max_err;   // max |out - reference|; none when not compared (reference, skipped)
  double tol = 0;
  bool ok() const { return status == "ok"; }
  bool sparse() const { return std::holds_alternative<SparseCase>(what); }
  const Problem& gemm() const { return std::get<Problem>(what); }
  const SparseCase& bsr() const { return std::get<SparseCase>(what); }
};

// Fills ratio (and, for bsr, vs_dense) of every ok row of one problem from its baselines' medians.
void set_ratios(std::vector<Row>& rows_of_one_problem);

// The table of one problem, as printed after it is measured.
std::string problem_table(const std::vector<Row>& rows_of_one_problem);

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
  bool sparse = false;       // the operation: bsr (true) or gemm
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

// The command's one CSV form (bench rows, tune results): a header row of column names, then one line
// per row. A column's cell is already CSV text (csv_quoted where it may hold commas); "" leaves the
// cell empty.
template <class T>
struct CsvColumn {
  const char* name;
  std::function<std::string(const T&)> cell;
};
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

// The CSV header row of an operation (column names, comma separated, no newline). The last column,
// `timing`, says how an ok row was timed: timing_csv_text() ("events" or "graph:N").
std::string csv_header(bool sparse = false);
// Rewrites `path` with the header and every row, in the columns of the rows' operation (a run measures
// one). `what` names the option in errors.
void write_csv(const std::string& path, const std::vector<Row>& rows, const std::string& device_name,
               const char* what = "--csv");

// The JSON header alone (tool, date, command line, device, versions, build, method, interrupted), with
// the method of the run's operation.
nlohmann::json bench_header_json(const RunInfo& run);
nlohmann::json bench_json(const RunInfo& run, const std::vector<Row>& rows);
void write_json(const std::string& path, const RunInfo& run, const std::vector<Row>& rows,
                const char* what = "--json");

// The files a bench run writes ("" = not written).
struct OutputFiles {
  std::string csv, json;
};

// The sweep of every bench run: measure(i) returns problem i's rows (ratios set). After each problem
// its table is printed and the files are rewritten, so a sweep stopped by Ctrl-C (`interrupted`,
// polled between problems) keeps the rows measured so far; the JSON header records the stop.
std::vector<Row> run_sweep(RunInfo& run, size_t problems, const std::function<std::vector<Row>(size_t)>& measure,
                           const OutputFiles& files, const volatile std::sig_atomic_t& interrupted);

}  // namespace tools
}  // namespace tilegemm
