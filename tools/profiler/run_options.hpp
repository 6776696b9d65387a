// The options every operation's commands share, parsed and checked without a GPU: the element type,
// how a run times (--warm/--cold, --min-time, --graph-batch) and its output files. Errors are
// tilegemm::Error(InvalidArgument) whose message starts with the option's name.
#pragma once
#include <string>
#include <vector>

#include "tilegemm/types.hpp"
#include "tune/timing.hpp"

namespace tilegemm {
namespace tools {

// Element types the command accepts, and for FP32 data the math: a new dtype is a new row in
// supported_dtypes() (plus its contenders), and the error message lists it automatically.
struct DTypeChoice {
  std::string name;  // as typed on the command line and written to CSV/JSON, e.g. "fp32"
  DType dtype = DType::F32;
  Math math = Math::Fp32;  // "tf32": FP32 data on TF32 tensor cores (GemmOptions::math)
};
const std::vector<DTypeChoice>& supported_dtypes();
DTypeChoice parse_dtype(const std::string& s, const char* what = "--dtype");

// --graph-batch: a decimal count of launches per CUDA graph in [0, kMaxGraphBatch] (digits only; 0 =
// events around each launch). Anything else throws naming `what`.
int parse_graph_batch(const std::string& s, const char* what = "--graph-batch");

// How a bench run times its contenders, validated.
struct TimingChoice {
  DTypeChoice dtype;
  bool warm = false;  // false: flush L2 before every timed run (cold, the default)
  double min_time = 0.5;
  int graph_batch = 0;  // > 0: time CUDA graphs of this many launches
};
// --dtype, --warm/--cold (not both), --min-time (seconds >= 0) and --graph-batch.
TimingChoice parse_timing(const std::string& dtype, bool warm, bool cold, double min_time,
                          const std::string& graph_batch);

// Throws unless `path` can be opened for writing. Leaves the file system as it found it: an existing
// file is opened for appending (not truncated), a new one is created and removed again.
void probe_writable(const std::string& path, const char* what);
// Throws when two output files given as `a` and `b` are the same file.
void check_distinct(const std::string& a, const char* what_a, const std::string& b, const char* what_b);
// --csv and --json ("" = not written): distinct, and each writable, before any measuring starts.
void check_output_files(const std::string& csv, const std::string& json);

// The timing method (src/tune/timing.hpp, shared with the tuner).
using detail::kMaxGraphBatch;
using detail::kMaxReps;
using detail::kMinReps;
using detail::kWarmupRuns;
using detail::Timing;

// How a run times its contenders, for the header line, the JSON header and the CSV column:
// "events per launch" or "CUDA graph of N launches (per-launch time, warm L2 after the first)".
std::string timing_method_text(int graph_batch);
// The CSV `timing` cell: "events" or "graph:N".
std::string timing_csv_text(int graph_batch);

// `s` in lower case (ASCII): option values are case-insensitive.
std::string to_lower(std::string s);
// "a, b or c" for error messages and help texts.
std::string join_alternatives(const std::vector<std::string>& names);

}  // namespace tools
}  // namespace tilegemm
