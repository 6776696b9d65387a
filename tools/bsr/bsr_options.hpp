// Arguments of `tilegemm bench bsr` (or bench --sparse), `check bsr` and `tune bsr` as typed, and their validated form: the block-sparse problems
// (product, shape, block shape, sparsity, row distribution), the BSR kernels and the run's options.
// Everything here runs without a GPU, so a bad argument is reported before any device work (and is
// testable in CI). Errors are tilegemm::Error(InvalidArgument) whose message starts with the option's name.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gemm/shapes.hpp"
#include "profiler/run_options.hpp"
#include "tilegemm/bsr.hpp"
#include "tilegemm/bsr_gpu.hpp"

namespace tilegemm {
namespace tools {

// The two products (include/tilegemm/bsr_gpu.hpp). Every shape is MxNxK as in the dense bench: Y is
// M x N and K is the depth.
//   Xwt: Y = X * W^T, X dense M x K, W BSR N x K (a layer with a block-sparse weight; the default)
//   Wx:  Y = W * X,   W BSR M x K, X dense K x N (cuSPARSE's orientation)
enum class SparseOp { Xwt, Wx };
std::string op_name(SparseOp op);  // "xwt", "wx"
SparseOp parse_sparse_op(const std::string& s, const char* what = "--op");

std::string rows_name(RowDistribution d);  // "uniform", "skewed"
RowDistribution parse_rows(const std::string& s, const char* what = "--rows");

struct BlockShape {
  int rows = 0, cols = 0;  // R x C
};
// "R" (square) or "RxC", each in [1, kMaxDim].
BlockShape parse_block(const std::string& s, const char* what = "--block");
// A fraction of absent blocks in [0, 1], written as a plain decimal number ("0.95", "1", ".8").
double parse_sparsity(const std::string& s, const char* what = "--sparsity");
// A decimal seed in [0, 2^64 - 1].
uint64_t parse_seed(const std::string& s, const char* what = "--seed");

// "all" (01 .. 04) | "auto" | kernel numbers or names (tilegemm::parse_bsr_kernel: 1-4, reduction,
// small-m, tiled, 03-tiled, tiled-tf32x3, ...), comma separated; duplicates dropped.
std::vector<BsrKernel> parse_bsr_kernel_list(const std::string& s, const char* what = "--kernels");
inline constexpr const char* kDefaultSparseKernels = "auto,tiled,tiled-tf32x3";

struct SparseProblem {
  SparseOp op = SparseOp::Xwt;
  int64_t m = 0, n = 0, k = 0;         // Y is m x n, depth k
  int block_rows = 1, block_cols = 1;  // W's R x C blocks
  double sparsity = 0;                 // requested fraction of absent blocks
  RowDistribution rows = RowDistribution::Uniform;

  int64_t w_rows() const { return op == SparseOp::Xwt ? n : m; }  // W is w_rows() x k
  int64_t w_cols() const { return k; }
  // The dense batch dimension M of the useful FLOP count 2 * M * nnz: m for xwt, n for wx.
  int64_t batch() const { return op == SparseOp::Xwt ? m : n; }
  int64_t total_blocks() const { return (w_rows() / block_rows) * (w_cols() / block_cols); }
  // The number of stored blocks generate_bsr() makes: llround((1 - sparsity) * total_blocks()).
  int64_t expected_nnzb() const;
  int64_t size_x() const { return op == SparseOp::Xwt ? m * k : k * n; }  // elements
  int64_t size_y() const { return m * n; }
  int64_t size_w_dense() const { return w_rows() * w_cols(); }
  // "xwt m=8 k=1024 n=1024 block 16x16 sparsity 0.95 uniform": the problem, unambiguously.
  std::string str() const;
};

// 2 * batch() * nnzb * R * C: the multiply-adds with a stored element of W.
double useful_flops(const SparseProblem& p, int64_t nnzb);

// Named sparse problem grids (sparse_preset_names() lists them), all for one product `op`.
//   seed-sparse:        (m, k, n) in {(1,128,768), (8,128,768), (1,1024,1024), (8,1024,1024)} x square
//                       blocks 8, 16, 32 x sparsity 0.80, 0.85, 0.95 x uniform rows (36 problems)
//   transformer-sparse: (m, k, n) in {(4096,768,3072), (4096,4096,4096), (8192,8192,8192)} x square
//                       blocks 16, 32, 64 x sparsity 0.80, 0.90, 0.95, 0.99 x uniform, skewed (72)
// Each (m, k, n) is a layer with batch m, k inputs and n outputs (W is n x k). For xwt that is
// Y = X W^T with Y m x n; for wx the same layer in cuSPARSE's orientation, Y^T = W X^T: M = n, K = k,
// N = m (same W, same useful work). Unknown names throw naming --preset.
std::vector<SparseProblem> sparse_preset_problems(const std::string& name, SparseOp op = SparseOp::Xwt);
const std::vector<std::string>& sparse_preset_names();

// The reduction kernel (01) is the report's per-element kernel, kept for reference: one warp per output
// element. Problems with more useful work than this are not timed with it (the row says why).
inline constexpr double kReductionMaxFlops = 2e9;
// Empty when `kernel` runs on `p` with `nnzb` stored blocks, else why it is skipped (no "skipped: ").
std::string sparse_kernel_skip_reason(BsrKernel kernel, const SparseProblem& p, int64_t nnzb);

struct SparseBenchArgs {  // as typed
  std::vector<std::string> shapes;  // MxNxK, crossed with blocks x sparsities x rows
  std::string preset;               // empty: seed-sparse when no --shape is given
  std::vector<std::string> blocks, sparsities, rows;  // for --shape; defaults 32, 0.9, uniform
  std::string op = "xwt";
  std::string kernels;  // empty: kDefaultSparseKernels
  std::string dtype = "fp32";
  std::string seed = "1";
  bool warm = false, cold = false;
  double min_time = 0.5;
  std::string graph_batch = "0";  // --graph-batch, as typed
  bool schedules = false;  // also every config the tuner would measure (tuning_candidates, compiled ones)
  std::vector<std::string> configs;  // --config: BSR configs in text form
  std::string csv, json;
};

struct SparseBenchPlan {  // validated
  std::vector<SparseProblem> problems;  // the preset's, then the --shape grid
  DTypeChoice dtype;
  std::vector<BsrKernel> kernels;
  uint64_t seed = 1;
  bool warm = false;  // false: flush L2 before every timed run (cold, the default)
  double min_time = 0.5;
  int graph_batch = 0;     // > 0: time CUDA graphs of this many launches (time_runs, harness.hpp)
  bool schedules = false;  // also time every compiled config of the tuner's space (tuning_candidates)
  std::vector<std::string> configs;  // canonical text forms (--config)
  std::string csv, json;  // empty: none
};
// The problems of --preset (or seed-sparse without it and without --shape) and the --shape x --block x
// --sparsity x --rows grid, for --op xwt|wx; throws naming the option.
std::vector<SparseProblem> parse_sparse_problems(const std::string& preset, const std::vector<std::string>& shapes,
                                                const std::vector<std::string>& blocks,
                                                const std::vector<std::string>& sparsities,
                                                const std::vector<std::string>& rows, const std::string& op);
// Parses and checks every argument, then probes the output files (in that order). Touches no GPU.
SparseBenchPlan plan_sparse_bench(const SparseBenchArgs& args);

// tilegemm check bsr: the BSR kernels and configs over sparse problems against the CPU reference
// (problems of at most kCheckCpuMaxFlops useful FLOPs) or dense cuBLAS on W expanded.
struct SparseCheckArgs {  // as typed
  std::vector<std::string> shapes;
  std::string preset;  // empty: seed-sparse when no --shape is given
  std::vector<std::string> blocks, sparsities, rows;
  std::string op = "xwt", seed = "1", kernels = "auto,all";
  std::vector<std::string> configs;
};
struct SparseCheckPlan {
  std::vector<SparseProblem> problems;
  std::vector<BsrKernel> kernels;
  std::vector<std::string> configs;  // canonical text forms
  uint64_t seed = 1;
};
SparseCheckPlan plan_sparse_check(const SparseCheckArgs& args);
inline constexpr double kCheckCpuMaxFlops = 2e9;

// tune bsr's own options: W's blocks, sparsities and row distributions for --shape, the product, and
// the seed of W and X (the bench's: the same problem gets the same W in both commands).
struct BsrTuneArgs {
  std::vector<std::string> blocks, sparsities, rows;
  std::string op = "xwt", seed = "1";
};
struct BsrTunePlan {
  std::vector<SparseProblem> problems;
  uint64_t seed = 1;
};
// The problems of --preset and the --shape grid; throws naming the option (a problem without stored
// blocks or with an empty dimension has nothing to tune).
BsrTunePlan plan_bsr_tune(const std::vector<std::string>& shapes, const std::string& preset, const BsrTuneArgs& args);

// Seeds of one problem's W (generate_bsr) and X (fill_uniform): a hash of the run's seed and the
// problem, so a problem gets the same data whichever preset or position it comes from.
uint64_t sparse_w_seed(uint64_t seed, const SparseProblem& p);
uint64_t sparse_x_seed(uint64_t seed, const SparseProblem& p);

// Device bytes one problem needs: X, W expanded to dense (the cuBLAS baseline), W in BSR (blocks,
// indices, index pointer, block-row order), and two Y-sized buffers (result and cuBLAS reference).
double sparse_problem_bytes(const SparseProblem& p);
// Throws naming the first problem that cannot fit (with `extra_bytes` also allocated) on a device
// with `device_bytes` of memory, before anything is allocated.
void check_sparse_fits(const std::vector<SparseProblem>& problems, double extra_bytes, double device_bytes,
                       const std::string& device_name);

}  // namespace tools
}  // namespace tilegemm
