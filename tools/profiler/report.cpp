#include "report.hpp"

#include <cstdio>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "peaks.hpp"
#include "tilegemm/device.hpp"
#include "tilegemm/error.hpp"

// Set by CMake on this file's target (tilegemm_tools); the fallbacks keep other builds compiling.
#ifndef TILEGEMM_VERSION
#define TILEGEMM_VERSION "unknown"
#endif
#ifndef TILEGEMM_CXX_COMPILER
#define TILEGEMM_CXX_COMPILER "unknown"
#endif
#ifndef TILEGEMM_CUDA_COMPILER
#define TILEGEMM_CUDA_COMPILER "unknown"
#endif
#ifndef TILEGEMM_BUILD_TYPE
#define TILEGEMM_BUILD_TYPE "unknown"
#endif

namespace tilegemm {
namespace tools {

using nlohmann::json;

BuildInfo build_info() {
  BuildInfo b;
  b.version = TILEGEMM_VERSION;
  b.archs = compiled_archs();
  b.cxx_compiler = TILEGEMM_CXX_COMPILER;
  b.cuda_compiler = TILEGEMM_CUDA_COMPILER;
  b.build_type = TILEGEMM_BUILD_TYPE;
  return b;
}

std::string cuda_version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string utc_iso8601(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                         "0123456789_-+=:,./@%") == std::string::npos;
    if (plain) {
      out += a;
    } else {  // single quotes; an embedded ' becomes '\''
      out += '\'';
      for (char ch : a) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
      out += '\'';
    }
  }
  return out;
}

namespace {

// CSV text fields are always quoted (device names and error messages contain spaces and commas).
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + '"';
}

template <typename T>
json or_null(bool have, T v) {
  return have ? json(v) : json(nullptr);
}

}  // namespace

std::string ratio_text(const std::optional<double>& v) {
  char b[32];
  if (v) std::snprintf(b, sizeof b, "%.3fx", *v);
  else std::snprintf(b, sizeof b, "-");
  return b;
}

std::string number_if(bool have, double v) { return have ? csv_number(v) : std::string(); }
json number_or_null(bool have, double v) { return or_null(have, v); }

// The timing columns, the same for every operation.
std::vector<CsvColumn<Row>> measurement_columns() {
  return {
      {"median_ms", [](const Row& r) { return number_if(r.ok(), r.t.median_ms); }},
      {"min_ms", [](const Row& r) { return number_if(r.ok(), r.t.min_ms); }},
      {"max_ms", [](const Row& r) { return number_if(r.ok(), r.t.max_ms); }},
      {"reps", [](const Row& r) { return number_if(r.ok(), r.t.reps); }},
  };
}
// Peak share and verification, the same for every operation.
std::vector<CsvColumn<Row>> error_columns() {
  return {
      {"pct_fp32_peak", [](const Row& r) { return number_if(r.ok(), r.peak_pct); }},
      {"max_abs_err", [](const Row& r) { return number_if(r.max_err.has_value(), r.max_err.value_or(0)); }},
      {"tolerance", [](const Row& r) { return csv_number(r.tol); }},
  };
}
namespace {
std::string timing_cell(const Row& r) { return r.ok() ? timing_csv_text(r.t.graph_batch) : std::string(); }
}  // namespace

std::string csv_quoted(const std::string& s) { return quoted(s); }

void set_ratios(std::vector<Row>& rows) {
  double baseline_ms = 0, reference_ms = 0;
  for (const Row& r : rows) {
    if (!r.ok()) continue;
    if (r.baseline) baseline_ms = r.t.median_ms;
    if (r.reference) reference_ms = r.t.median_ms;
  }
  for (Row& r : rows) {
    r.ratio.reset();
    r.vs_reference.reset();
    if (!r.ok() || r.t.median_ms <= 0) continue;
    if (baseline_ms > 0) r.ratio = baseline_ms / r.t.median_ms;
    if (reference_ms > 0) r.vs_reference = reference_ms / r.t.median_ms;
  }
}

std::string csv_number(double v) {
  std::ostringstream o;
  o.precision(10);
  o << v;
  return o.str();
}

namespace {
// The device, the operation's columns, the timing method.
std::vector<CsvColumn<Row>> csv_columns_with_device(const ReportFormat& format, const std::string& device_name) {
  std::vector<CsvColumn<Row>> c = {{"device", [device_name](const Row&) { return quoted(device_name); }}};
  for (CsvColumn<Row>& col : format.csv_columns()) c.push_back(std::move(col));
  c.push_back({"timing", timing_cell});
  return c;
}
}  // namespace

std::string csv_header(const ReportFormat& format) {
  const std::string t = csv_table(csv_columns_with_device(format, ""), std::vector<Row>{});
  return t.substr(0, t.size() - 1);
}

void write_csv(const std::string& path, const std::vector<Row>& rows, const std::string& device_name,
               const ReportFormat& format, const char* what) {
  for (const Row& r : rows)
    if (!format.describes(r)) throw Error(ErrorCode::InvalidArgument, std::string(what) + ": a run measures one operation");
  write_text_file(path, csv_table(csv_columns_with_device(format, device_name), rows), what);
}

json bench_header_json(const RunInfo& run) {
  const DeviceInfo& d = run.device;
  const TensorRates rates = tensor_flop_per_clk_per_sm(d.cc_major, d.cc_minor);
  json device = {
      {"name", d.name},
      {"ordinal", d.ordinal},
      {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
      {"sm_count", d.sm_count},
      {"max_sm_clock_mhz", d.sm_clock_khz / 1e3},
      {"memory_clock_mhz", d.mem_clock_khz / 1e3},
      {"memory_bus_width_bits", d.mem_bus_width_bits},
      {"memory_bytes", d.global_mem_bytes},
      {"memory_bandwidth_gbs", d.mem_bandwidth_gbs()},
      {"l2_bytes", d.l2_bytes},
      {"fp32_peak_tflops", d.fp32_peak_tflops()},
      {"tf32_peak_tflops", or_null(rates.tf32 > 0, peak_tflops(d, rates.tf32))},
      {"bf16_peak_tflops", or_null(rates.bf16 > 0, peak_tflops(d, rates.bf16))},
      {"peaks_note", "at the maximum SM clock; tensor-core peaks dense"},
  };
  json header = {
      {"tool", "tilegemm bench"},
      {"date_utc", run.date_utc},
      {"command_line", shell_join(run.argv)},
      {"argv", run.argv},
      {"device", device},
      {"driver_version", cuda_version_text(d.driver_version)},
      {"runtime_version", cuda_version_text(d.runtime_version)},
      {"build",
       {{"version", run.build.version},
        {"archs", run.build.archs},
        {"cxx_compiler", run.build.cxx_compiler},
        {"cuda_compiler", run.build.cuda_compiler},
        {"build_type", run.build.build_type}}},
      {"method",
       {{"dtype", run.dtype},
        {"l2", run.warm ? "warm" : "cold"},
        {"l2_flush_bytes", run.flush_bytes},
        {"min_time_s", run.min_time_s},
        {"warmup_runs", kWarmupRuns},
        {"min_reps", kMinReps},
        {"max_reps", kMaxReps},
        {"timing", timing_method_text(run.graph_batch)},
        {"graph_batch", run.graph_batch},
        {"statistic", run.graph_batch > 0
                          ? "median of CUDA event times of whole-graph launches (" +
                                std::to_string(run.graph_batch) + " launches each) divided by " +
                                std::to_string(run.graph_batch) + "; min/max likewise; reps counts graph launches"
                          : std::string("median of per-run CUDA event times")}}},
      {"interrupted", run.interrupted},
  };
  if (run.format) run.format->describe_method(header);
  if (run.graph_batch > 0)
    header["method"]["l2_note"] =
        std::string(run.warm ? "warm: no flush" : "the L2 flush runs once before each graph launch") +
        "; within a graph only the first launch can start cold, the other " + std::to_string(run.graph_batch - 1) +
        " find their inputs in L2: graph mode measures warm-L2 back-to-back launches";
  return header;
}

// The measurement's JSON fields, the same for every operation.
void add_measurement_json(json& out, const Row& r) {
  out["dtype"] = r.dtype;
  out["kernel"] = r.kernel;
  out["status"] = r.status;
  out["median_ms"] = or_null(r.ok(), r.t.median_ms);
  out["min_ms"] = or_null(r.ok(), r.t.min_ms);
  out["max_ms"] = or_null(r.ok(), r.t.max_ms);
  out["reps"] = or_null(r.ok(), r.t.reps);
  out["pct_fp32_peak"] = or_null(r.ok(), r.peak_pct);
  out["max_abs_err"] = or_null(r.max_err.has_value(), r.max_err.value_or(0));
  out["tolerance"] = r.tol;
}

json bench_json(const RunInfo& run, const std::vector<Row>& rows) {
  const json header = bench_header_json(run);
  json out_rows = json::array();
  for (const Row& r : rows) {
    if (!run.format || !run.format->describes(r))
      throw Error(ErrorCode::InvalidArgument, "--json: a run measures one operation");
    out_rows.push_back(run.format->row_json(r));
  }
  return {{"header", header}, {"rows", out_rows}};
}

void write_text_file(const std::string& path, const std::string& text, const char* what) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw Error(ErrorCode::InvalidArgument, std::string(what) + ": cannot write '" + path + "'");
}

void write_json(const std::string& path, const RunInfo& run, const std::vector<Row>& rows, const char* what) {
  write_text_file(path, bench_json(run, rows).dump(2) + "\n", what);
}

const char* l2_text(bool warm, int graph_batch) {
  if (warm) return "warm";
  return graph_batch > 0 ? "cold (flushed before each graph)" : "cold (flushed)";
}

RunInfo start_run(const std::vector<std::string>& argv, const std::string& dtype, bool warm, double min_time_s,
                  int graph_batch) {
  RunInfo run;
  run.date_utc = utc_iso8601(std::time(nullptr));
  run.device = current_device_info();
  require_supported_device();
  run.build = build_info();
  run.argv = argv;
  run.dtype = dtype;
  run.warm = warm;
  run.min_time_s = min_time_s;
  run.graph_batch = graph_batch;
  run.flush_bytes = warm ? 0.0 : 2.0 * static_cast<double>(run.device.l2_bytes);
  return run;
}

std::vector<Row> run_sweep(RunInfo& run, size_t problems, const std::function<std::vector<Row>(size_t)>& measure,
                           const OutputFiles& files, const volatile std::sig_atomic_t& interrupted) {
  auto write_files = [&](const std::vector<Row>& rows) {
    if (!files.csv.empty()) write_csv(files.csv, rows, run.device.name, *run.format, "--csv");
    if (!files.json.empty()) write_json(files.json, run, rows, "--json");
  };
  std::vector<Row> all_rows;
  for (size_t i = 0; i < problems && !interrupted; ++i) {
    const std::vector<Row> rows = measure(i);
    if (!rows.empty()) std::printf("%s", run.format->table(rows).c_str());
    std::fflush(stdout);
    all_rows.insert(all_rows.end(), rows.begin(), rows.end());
    write_files(all_rows);
  }
  run.interrupted = interrupted != 0;
  write_files(all_rows);  // again: the JSON records whether the sweep was interrupted
  if (run.interrupted) std::fprintf(stderr, "interrupted: kept the rows measured so far\n");
  if (!files.csv.empty()) std::printf("\nwrote %s\n", files.csv.c_str());
  if (!files.json.empty()) std::printf("wrote %s\n", files.json.c_str());
  return all_rows;
}

}  // namespace tools
}  // namespace tilegemm
