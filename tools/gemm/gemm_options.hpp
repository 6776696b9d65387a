// Command-line arguments of `bench gemm`, `check gemm` and `tune gemm` as typed, and their validated
// form. Everything here runs without a GPU, so a bad argument is reported before any device work (and
// is testable in CI).
// Errors are tilegemm::Error(InvalidArgument) whose message starts with the option's name.
#pragma once
#include <string>
#include <vector>

#include "problem.hpp"
#include "profiler/run_options.hpp"
#include "tilegemm/tune.hpp"
#include "tilegemm/types.hpp"

namespace tilegemm {
namespace tools {

// "all" | "auto" | levels 1-7 or names (tilegemm::parse_kernel), comma separated; duplicates dropped.
// With `families`, an item may also name a registered GEMM kernel family ("simt-tiled", "gemv"; the
// item "families" names every one), collected there in registry order: the bench runs that family's
// best estimated config on each problem.
std::vector<Kernel> parse_kernel_list(const std::string& s, const char* what = "--kernels",
                                      std::vector<std::string>* families = nullptr);
std::vector<Raster> parse_raster_list(const std::vector<std::string>& names, const char* what = "--rasters");

// "--config TEXT" (repeatable): GEMM configs in their text form (any registered family's), each checked
// and put in its canonical form; duplicates dropped.
std::vector<std::string> parse_config_list(const std::vector<std::string>& texts, const char* what = "--config");

// --ld: "+N" pads every leading dimension by N elements; "N" makes N the leading dimension of every
// matrix (checked against each shape by plan_bench / plan_check). N <= kMaxLdPad.
inline constexpr int64_t kMaxLdPad = 1000000;
struct LdChoice {
  int64_t pad = 0, absolute = 0;
};
LdChoice parse_ld(const std::string& s, const char* what = "--ld");
// --offset: elements every matrix pointer is moved into its buffer (0 .. kMaxOffset).
inline constexpr int64_t kMaxOffset = 1000000;
int64_t parse_offset(const std::string& s, const char* what = "--offset");

// --batch: "" keeps each shape's batch (1, or the batched preset's); N (1 .. kMaxBatch) makes every
// shape N strided batches.
inline constexpr int64_t kMaxBatch = 1000000;
void apply_batch(std::vector<Problem>& problems, const std::string& batch, const char* what = "--batch");
// --epilogue: a comma list of epilogues, each "none" or parts joined by '+' ("bias" per column of C,
// "row-bias", and an activation: relu, gelu-tanh, gelu-erf, silu); every problem runs once with each.
// "" keeps the problems as they are (no epilogue).
void apply_epilogues(std::vector<Problem>& problems, const std::string& list, const char* what = "--epilogue");
// Applies --layout, --trans (to shapes whose ops the preset did not fix), --ld and --offset.
void apply_layout(std::vector<Problem>& problems, const std::string& layout, const std::string& trans,
                  const std::string& ld, const std::string& offset);
// Plots are .png or .svg (matplotlib picks the format from the extension); anything else throws.
void check_plot_path(const std::string& path, const char* what = "--plot");
// The CSV a plot is drawn from when no --csv was given: the plot's name with .csv, e.g. a.png -> a.csv.
std::string plot_csv_path(const std::string& plot_path);

struct BenchArgs {  // as typed
  std::vector<std::string> shapes;
  // kernels: Auto (the product the library runs) first, then the ladder (FP32); bf16/fp16: Auto.
  std::string sizes, preset, dtype = "fp32", kernels = "auto,all", layout = "row", trans = "NN";
  std::string ld = "+0", offset = "0", batch, epilogue;
  std::vector<std::string> configs;  // --config
  std::vector<std::string> rasters;
  bool schedules = false, warm = false, cold = false;
  bool ffma_auto = false;  // --ffma-auto
  bool cublas_tf32 = false;  // --cublas-tf32
  double min_time = 0.5;
  std::string graph_batch = "0";  // --graph-batch, as typed (validated by parse_graph_batch)
  std::string csv, json, plot;
};

struct BenchPlan {  // validated
  std::vector<Problem> problems;  // presets, then --shape, then --sizes; the ladder preset if none
  DTypeChoice dtype;
  std::vector<Kernel> kernels;
  std::vector<std::string> families;  // kernel families named in --kernels (their best config per problem)
  std::vector<std::string> configs;  // canonical text forms (--config)
  std::vector<Raster> rasters;  // empty: the library's default order
  bool schedules = false;  // --schedules: each compiled tiled schedule at its best split, and the GEMV kernel
  bool ffma_auto = false;  // --ffma-auto: Auto again with Math::FfmaOnly ("auto-ffma"), where auto is listed
  bool cublas_tf32 = false;  // --cublas-tf32: FP32 runs also time cuBLAS on TF32 tensor cores ("cublas-tf32")
  bool warm = false;  // false: flush L2 before every timed run (cold, the default)
  double min_time = 0.5;
  int graph_batch = 0;  // > 0: time CUDA graphs of this many launches (time_runs, harness.hpp)
  std::string csv;   // --csv, or plot_csv_path(plot) when only --plot was given; empty: none
  std::string json;  // empty: none
  std::string plot;  // empty: none
};
// Parses and checks every argument, then probes the output files (in that order). Touches no GPU.
BenchPlan plan_bench(const BenchArgs& args);

struct CheckArgs {
  std::vector<std::string> shapes;
  std::string preset = "small", dtype = "fp32", kernels = "all", layout = "row", trans = "NN";
  std::string ld = "+0", offset = "0", batch, epilogue;
  std::vector<std::string> configs;
};
struct CheckPlan {
  std::vector<Problem> problems;
  DTypeChoice dtype;
  std::vector<Kernel> kernels;
  std::vector<std::string> families;
  std::vector<std::string> configs;
};
CheckPlan plan_check(const CheckArgs& args);

// tune gemm's own options: the layout the tuned shapes are stored with (tuning keys include it).
struct GemmTuneArgs {
  std::string dtype = "fp32", layout = "row", trans = "NN", ld = "+0", offset = "0", batch, epilogue;
};
// The shapes of --preset, then each --shape, in the layout of `args`; throws naming the option (a shape
// with an empty dimension has nothing to tune).
std::vector<Problem> plan_gemm_tune(const std::vector<std::string>& shapes, const std::string& preset,
                                    const GemmTuneArgs& args);

// Device bytes one problem needs: A, B and `c_buffers` C-sized buffers of its dtype, and for 16-bit
// dtypes the FP64 reference (C, and A and B widened).
double problem_bytes(const Problem& p, int c_buffers);
// Throws naming the first problem that cannot fit (with `extra_bytes` also allocated) on a device
// with `device_bytes` of memory, so an impossible shape fails before anything is allocated.
void check_fits(const std::vector<Problem>& problems, int c_buffers, double extra_bytes, double device_bytes,
                const std::string& device_name);

}  // namespace tools
}  // namespace tilegemm
