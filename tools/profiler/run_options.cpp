#include "run_options.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tilegemm/error.hpp"
#include "tune/timing.hpp"

namespace tilegemm {
namespace tools {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void invalid(const std::string& message) { throw Error(ErrorCode::InvalidArgument, message); }

}  // namespace

std::string to_lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return s;
}

// Two options naming one file would overwrite each other's output.
void check_distinct(const std::string& a, const char* what_a, const std::string& b, const char* what_b) {
  if (a.empty() || b.empty()) return;
  std::error_code ec1, ec2;
  const fs::path pa = fs::weakly_canonical(a, ec1), pb = fs::weakly_canonical(b, ec2);
  if (ec1 || ec2 ? a == b : pa == pb)
    invalid(std::string(what_b) + ": '" + b + "' is the same file as " + what_a + " '" + a + "'");
}


const std::vector<DTypeChoice>& supported_dtypes() {
  // "fp32" is FP32-accurate math (FFMA or 3xTF32: Math::Fp32); "fp32-accurate" names it the way
  // cuBLAS users know it, "tf32" allows one TF32 product (Math::Tf32).
  static const std::vector<DTypeChoice> list = {{"fp32", DType::F32},
                                                {"fp32-accurate", DType::F32},
                                                {"tf32", DType::F32, Math::Tf32},
                                                {"bf16", DType::BF16},
                                                {"fp16", DType::F16}};
  return list;
}

DTypeChoice parse_dtype(const std::string& s, const char* what) {
  std::vector<std::string> names;
  for (const DTypeChoice& d : supported_dtypes()) {
    if (to_lower(s) == d.name) return d;
    names.push_back(d.name);
  }
  invalid(std::string(what) + ": unsupported value '" + s + "' (accepted: " + join_alternatives(names) + ")");
}

int parse_graph_batch(const std::string& s, const char* what) {
  const std::string expected = " (expected a whole number of launches per CUDA graph, 0 to " +
                               std::to_string(kMaxGraphBatch) + "; 0 = events around each launch)";
  const bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
  if (!digits) {
    // "-1": a number, but out of range; "abc", "1.5", "", " 3": not a count at all.
    const bool negative = s.size() > 1 && s[0] == '-' && s.find_first_not_of("0123456789", 1) == std::string::npos;
    invalid(std::string(what) + ": " + (negative ? "value '" + s + "' out of range" : "malformed value '" + s + "'") +
            expected);
  }
  const size_t first = s.find_first_not_of('0');
  const std::string v = first == std::string::npos ? "0" : s.substr(first);
  if (v.size() > 6 || std::stoi(v) > kMaxGraphBatch)
    invalid(std::string(what) + ": value '" + s + "' out of range" + expected);
  return std::stoi(v);
}

void probe_writable(const std::string& path, const char* what) {
  if (path.empty()) invalid(std::string(what) + ": empty file name");
  std::error_code ec;
  if (fs::is_directory(path, ec)) invalid(std::string(what) + ": '" + path + "' is a directory");
  const bool existed = fs::exists(path, ec);
  errno = 0;
  std::ofstream f(path, std::ios::app);  // append: probing must not truncate an existing file
  if (!f) {
    const std::string why = errno ? std::strerror(errno) : "cannot open for writing";
    invalid(std::string(what) + ": cannot write '" + path + "': " + why);
  }
  f.close();
  if (!existed) fs::remove(path, ec);
}


std::string join_alternatives(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

std::string timing_method_text(int graph_batch) {
  if (graph_batch <= 0) return "events per launch";
  return "CUDA graph of " + std::to_string(graph_batch) + " launches (per-launch time, warm L2 after the first)";
}

std::string timing_csv_text(int graph_batch) {
  return graph_batch <= 0 ? "events" : "graph:" + std::to_string(graph_batch);
}

void check_output_files(const std::string& csv, const std::string& json) {
  check_distinct(csv, "--csv", json, "--json");
  if (!csv.empty()) probe_writable(csv, "--csv");
  if (!json.empty()) probe_writable(json, "--json");
}

TimingChoice parse_timing(const std::string& dtype, bool warm, bool cold, double min_time,
                          const std::string& graph_batch) {
  TimingChoice t;
  t.dtype = parse_dtype(dtype, "--dtype");
  if (warm && cold) invalid("--warm: cannot be combined with --cold");
  t.warm = warm;
  if (!std::isfinite(min_time) || min_time < 0) {
    std::ostringstream v;
    v << min_time;
    invalid("--min-time: invalid value '" + v.str() + "' (expected seconds >= 0)");
  }
  t.min_time = min_time;
  t.graph_batch = parse_graph_batch(graph_batch, "--graph-batch");
  return t;
}

}  // namespace tools
}  // namespace tilegemm
