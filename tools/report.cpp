#include "report.hpp"

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

std::string trans_of(const Problem& p) { return to_string(p.op_a) + to_string(p.op_b); }
// The --ld choice: "+P" (padding, "+0" when tight) or the absolute leading dimension.
std::string ld_of(const Problem& p) {
  return p.ld_abs > 0 ? std::to_string(p.ld_abs) : "+" + std::to_string(p.ld_pad);
}

template <typename T>
json or_null(bool have, T v) {
  return have ? json(v) : json(nullptr);
}

}  // namespace

std::string csv_quoted(const std::string& s) { return quoted(s); }

std::string csv_header() {
  return "device,m,n,k,layout,trans,ld,offset,dtype,kernel,config,status,median_ms,min_ms,max_ms,reps,tflops,"
         "ratio_vs_cublas,pct_fp32_peak,max_abs_err,tolerance,timing";
}

void write_csv(const std::string& path, const std::vector<Row>& rows, const std::string& device_name,
               const char* what) {
  std::ostringstream f;
  f << csv_header() << '\n';
  // Cells without a meaning for the row (a skipped kernel's time, cuBLAS's error) are left empty.
  auto cell = [&f](bool have, double v) {
    f << ',';
    if (have) f << v;
  };
  for (const Row& r : rows) {
    const Problem& p = r.problem;
    f << quoted(device_name) << ',' << p.m << ',' << p.n << ',' << p.k << ',' << to_string(p.layout) << ','
      << trans_of(p) << ',' << quoted(ld_of(p)) << ',' << p.offset << ',' << r.dtype << ',' << quoted(r.kernel)
      << ',' << quoted(r.config) << ',' << quoted(r.status);
    cell(r.ok(), r.t.median_ms);
    cell(r.ok(), r.t.min_ms);
    cell(r.ok(), r.t.max_ms);
    cell(r.ok(), r.t.reps);
    cell(r.ok(), r.tflops);
    cell(r.ok() && r.ratio.has_value(), r.ratio.value_or(0));
    cell(r.ok(), r.peak_pct);
    cell(r.max_err.has_value(), r.max_err.value_or(0));
    cell(true, r.tol);
    f << ',' << (r.ok() ? timing_csv_text(r.t.graph_batch) : std::string()) << '\n';
  }
  write_text_file(path, f.str(), what);
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
                          : std::string("median of per-run CUDA event times")},
        {"baseline", "cuBLAS cublasGemmEx, CUBLAS_COMPUTE_32F_PEDANTIC"},
        {"verification", "max |C - cuBLAS| <= tolerance before timing"}}},
      {"interrupted", run.interrupted},
  };
  if (run.graph_batch > 0)
    header["method"]["l2_note"] =
        std::string(run.warm ? "warm: no flush" : "the L2 flush runs once before each graph launch") +
        "; within a graph only the first launch can start cold, the other " + std::to_string(run.graph_batch - 1) +
        " find their inputs in L2: graph mode measures warm-L2 back-to-back launches";
  return header;
}

json bench_json(const RunInfo& run, const std::vector<Row>& rows) {
  const json header = bench_header_json(run);
  json out_rows = json::array();
  for (const Row& r : rows) {
    const Problem& p = r.problem;
    out_rows.push_back({
        {"m", p.m},
        {"n", p.n},
        {"k", p.k},
        {"layout", to_string(p.layout)},
        {"trans", trans_of(p)},
        {"ld", ld_of(p)},
        {"offset", p.offset},
        {"dtype", r.dtype},
        {"kernel", r.kernel},
        {"config", r.config},
        {"baseline", r.baseline},
        {"status", r.status},
        {"median_ms", or_null(r.ok(), r.t.median_ms)},
        {"min_ms", or_null(r.ok(), r.t.min_ms)},
        {"max_ms", or_null(r.ok(), r.t.max_ms)},
        {"reps", or_null(r.ok(), r.t.reps)},
        {"tflops", or_null(r.ok(), r.tflops)},
        {"ratio_vs_cublas", or_null(r.ok() && r.ratio.has_value(), r.ratio.value_or(0))},
        {"pct_fp32_peak", or_null(r.ok(), r.peak_pct)},
        {"max_abs_err", or_null(r.max_err.has_value(), r.max_err.value_or(0))},
        {"tolerance", r.tol},
    });
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

}  // namespace tools
}  // namespace tilegemm
