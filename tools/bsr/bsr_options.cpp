// Parsing and validation of `tilegemm bench|check|tune bsr`, its presets, seeds and memory check.
#include "bsr_options.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "gemm/shapes.hpp"
#include "sparse/config.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace tools {

namespace {

[[noreturn]] void invalid(const std::string& message) { throw Error(ErrorCode::InvalidArgument, message); }

bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// A decimal count in [1, kMaxDim] (digits only), checked on the digit string before conversion.
int64_t parse_dim(const std::string& tok, const char* what, const std::string& whole, const char* expected) {
  if (!all_digits(tok))
    invalid(std::string(what) + ": malformed value '" + whole + "' (expected " + expected + ")");
  const size_t first = tok.find_first_not_of('0');
  const std::string digits = first == std::string::npos ? "0" : tok.substr(first);
  if (digits.size() > 10 || std::stoll(digits) > kMaxDim || std::stoll(digits) < 1)
    invalid(std::string(what) + ": value '" + whole + "' out of range (each number must be in [1, " +
            std::to_string(kMaxDim) + "])");
  return std::stoll(digits);
}

std::string fmt(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

struct PresetGrid {
  std::vector<std::array<int64_t, 3>> mkn;  // (m, k, n), as the issue writes them
  std::vector<int> blocks;                  // square R = C
  std::vector<double> sparsities;
  std::vector<RowDistribution> rows;
};

std::vector<SparseProblem> expand(const PresetGrid& g, SparseOp op) {
  std::vector<SparseProblem> out;
  for (const auto& s : g.mkn)
    for (int b : g.blocks)
      for (double sp : g.sparsities)
        for (RowDistribution r : g.rows) {
          // The grid's (m, k, n) is a layer: batch m, k inputs, n outputs, weight W n x k. xwt computes
          // it as the issue writes it (Y = X W^T, Y m x n); wx computes the same layer in cuSPARSE's
          // orientation, Y^T = W X^T (Y n x m): M = n, K = k, N = m. Same W (n x k), same useful work,
          // and every block shape that divides W for one divides it for the other.
          SparseProblem p;
          p.op = op;
          p.m = op == SparseOp::Xwt ? s[0] : s[2];
          p.k = s[1];
          p.n = op == SparseOp::Xwt ? s[2] : s[0];
          p.block_rows = p.block_cols = b;
          p.sparsity = sp;
          p.rows = r;
          out.push_back(p);
        }
  return out;
}

// The shape and block checks every problem from --shape passes (the presets pass them by construction).
void check_problem(const SparseProblem& p, const std::string& shape_text) {
  const std::string where = "--shape: " + shape_text + " with --block " + std::to_string(p.block_rows) + "x" +
                            std::to_string(p.block_cols) + ": ";
  const char* w_is = p.op == SparseOp::Xwt ? "(xwt: W is N x K)" : "(wx: W is M x K)";
  const char* dim_name = p.op == SparseOp::Xwt ? "N" : "M";
  if (p.m < 1 || p.n < 1 || p.k < 1)
    invalid("--shape: '" + shape_text + "' has a zero dimension (sparse problems need M, N, K >= 1)");
  if (p.w_rows() % p.block_rows != 0)
    invalid(where + dim_name + " = " + std::to_string(p.w_rows()) + " is not divisible by the block rows R = " +
            std::to_string(p.block_rows) + " " + w_is);
  if (p.w_cols() % p.block_cols != 0)
    invalid(where + "K = " + std::to_string(p.w_cols()) + " is not divisible by the block columns C = " +
            std::to_string(p.block_cols) + " " + w_is);
  if (p.total_blocks() > INT_MAX)
    invalid(where + std::to_string(p.total_blocks()) +
            " blocks in W, more than BSR's 32-bit indices can hold (at most 2147483647)");
}

uint64_t fnv1a(uint64_t h, const std::string& s) {
  for (unsigned char ch : s) {
    h ^= ch;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace

std::string op_name(SparseOp op) { return op == SparseOp::Xwt ? "xwt" : "wx"; }

SparseOp parse_sparse_op(const std::string& s, const char* what) {
  const std::string v = to_lower(s);
  if (v == "xwt") return SparseOp::Xwt;
  if (v == "wx") return SparseOp::Wx;
  invalid(std::string(what) + ": unknown value '" + s + "' (expected xwt for Y = X * W^T or wx for Y = W * X)");
}

std::string rows_name(RowDistribution d) { return d == RowDistribution::Uniform ? "uniform" : "skewed"; }

RowDistribution parse_rows(const std::string& s, const char* what) {
  const std::string v = to_lower(s);
  if (v == "uniform") return RowDistribution::Uniform;
  if (v == "skewed") return RowDistribution::Skewed;
  invalid(std::string(what) + ": unknown value '" + s + "' (expected uniform or skewed)");
}

BlockShape parse_block(const std::string& s, const char* what) {
  const char* expected = "R or RxC with integers >= 1, e.g. 32 or 16x32";
  const size_t x = s.find('x');
  BlockShape b;
  if (x == std::string::npos) {
    b.rows = b.cols = static_cast<int>(parse_dim(s, what, s, expected));
  } else {
    if (s.find('x', x + 1) != std::string::npos)
      invalid(std::string(what) + ": malformed value '" + s + "' (expected " + expected + ")");
    b.rows = static_cast<int>(parse_dim(s.substr(0, x), what, s, expected));
    b.cols = static_cast<int>(parse_dim(s.substr(x + 1), what, s, expected));
  }
  return b;
}

double parse_sparsity(const std::string& s, const char* what) {
  const std::string expected = " (expected the fraction of absent blocks, a number in [0, 1], e.g. 0.95)";
  // A plain decimal: digits with at most one point (strtod alone would take "nan", "1e-1", " 0.5", hex).
  const bool plain = !s.empty() && s.find_first_not_of("0123456789.") == std::string::npos &&
                     std::count(s.begin(), s.end(), '.') <= 1 && s != ".";
  if (!plain) {
    if (!s.empty() && s[0] == '-' && s.size() > 1)
      invalid(std::string(what) + ": value '" + s + "' out of range" + expected);
    invalid(std::string(what) + ": malformed value '" + s + "'" + expected);
  }
  const double v = std::strtod(s.c_str(), nullptr);
  if (!(v >= 0.0 && v <= 1.0)) invalid(std::string(what) + ": value '" + s + "' out of range" + expected);
  return v;
}

uint64_t parse_seed(const std::string& s, const char* what) {
  const std::string expected = " (expected a non-negative integer below 2^64)";
  if (!all_digits(s)) invalid(std::string(what) + ": malformed value '" + s + "'" + expected);
  const size_t first = s.find_first_not_of('0');
  const std::string digits = first == std::string::npos ? "0" : s.substr(first);
  if (digits.size() > 20 || (digits.size() == 20 && digits > "18446744073709551615"))
    invalid(std::string(what) + ": value '" + s + "' out of range" + expected);
  return std::strtoull(digits.c_str(), nullptr, 10);
}

std::vector<BsrKernel> parse_bsr_kernel_list(const std::string& s, const char* what) {
  std::vector<BsrKernel> out;
  auto add = [&](BsrKernel k) {
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  };
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    if (to_lower(item) == "all") {
      for (int i = 1; i <= kNumBsrKernels; ++i) add(static_cast<BsrKernel>(i));
      continue;
    }
    try {
      add(parse_bsr_kernel(item, what));
    } catch (const Error&) {
      invalid(std::string(what) + ": unknown value '" + item +
              "' (expected all, auto, 1-4 or reduction, small-m, tiled, tiled-tf32x3, comma separated)");
    }
  }
  if (out.empty())
    invalid(std::string(what) + ": empty list '" + s + "' (expected all, auto or kernels such as reduction,tiled)");
  return out;
}

int64_t SparseProblem::expected_nnzb() const {
  const int64_t total = total_blocks();
  const int64_t n = std::llround((1.0 - sparsity) * static_cast<double>(total));
  return std::clamp<int64_t>(n, 0, total);
}

std::string SparseProblem::str() const {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s m=%lld k=%lld n=%lld block %dx%d sparsity %s %s", op_name(op).c_str(),
                static_cast<long long>(m), static_cast<long long>(k), static_cast<long long>(n), block_rows,
                block_cols, fmt(sparsity).c_str(), rows_name(rows).c_str());
  return buf;
}

double useful_flops(const SparseProblem& p, int64_t nnzb) {
  return 2.0 * static_cast<double>(p.batch()) * static_cast<double>(nnzb) * p.block_rows * p.block_cols;
}

const std::vector<std::string>& sparse_preset_names() {
  static const std::vector<std::string> names = {"seed-sparse", "transformer-sparse"};
  return names;
}

std::vector<SparseProblem> sparse_preset_problems(const std::string& name, SparseOp op) {
  if (name == "seed-sparse")  // the block-sparse report's shapes
    return expand({{{1, 128, 768}, {8, 128, 768}, {1, 1024, 1024}, {8, 1024, 1024}},
                   {8, 16, 32},
                   {0.80, 0.85, 0.95},
                   {RowDistribution::Uniform}},
                  op);
  if (name == "transformer-sparse")  // transformer layers with block-sparse weights
    return expand({{{4096, 768, 3072}, {4096, 4096, 4096}, {8192, 8192, 8192}},
                   {16, 32, 64},
                   {0.80, 0.90, 0.95, 0.99},
                   {RowDistribution::Uniform, RowDistribution::Skewed}},
                  op);
  const std::vector<std::string>& dense = preset_names();
  if (std::find(dense.begin(), dense.end(), name) != dense.end())
    invalid("--preset: '" + name + "' is a dense preset (with --sparse: " + join_alternatives(sparse_preset_names()) +
            ")");
  invalid("--preset: unknown sparse preset '" + name + "' (expected " + join_alternatives(sparse_preset_names()) +
          ")");
}

std::string sparse_kernel_skip_reason(BsrKernel kernel, const SparseProblem& p, int64_t nnzb) {
  if (kernel != BsrKernel::Reduction) return "";
  const double flops = useful_flops(p, nnzb);
  if (flops <= kReductionMaxFlops) return "";
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "%s is the reference kernel (one warp per output), not timed above 2*M*nnz = %.3g flops "
                "(this problem: %.3g)",
                to_string(BsrKernel::Reduction).c_str(), kReductionMaxFlops, flops);
  return buf;
}

std::vector<SparseProblem> parse_sparse_problems(const std::string& preset, const std::vector<std::string>& shapes,
                                                const std::vector<std::string>& block_list,
                                                const std::vector<std::string>& sparsity_list,
                                                const std::vector<std::string>& row_list, const std::string& op_text) {
  std::vector<SparseProblem> problems;
  const SparseOp op = parse_sparse_op(op_text, "--op");
  if (!preset.empty()) problems = sparse_preset_problems(preset, op);
  std::vector<BlockShape> blocks;
  for (const std::string& b : block_list) blocks.push_back(parse_block(b, "--block"));
  std::vector<double> sparsities;
  for (const std::string& s : sparsity_list) sparsities.push_back(parse_sparsity(s, "--sparsity"));
  std::vector<RowDistribution> rows;
  for (const std::string& r : row_list) {
    const RowDistribution d = parse_rows(r, "--rows");
    if (std::find(rows.begin(), rows.end(), d) == rows.end()) rows.push_back(d);
  }
  if (shapes.empty()) {
    if (!block_list.empty()) invalid("--block: applies to --shape problems (a preset fixes its own blocks)");
    if (!sparsity_list.empty())
      invalid("--sparsity: applies to --shape problems (a preset fixes its own sparsities)");
    if (!row_list.empty()) invalid("--rows: applies to --shape problems (a preset fixes its own row distributions)");
  }
  if (blocks.empty()) blocks.push_back({32, 32});
  if (sparsities.empty()) sparsities.push_back(0.9);
  if (rows.empty()) rows.push_back(RowDistribution::Uniform);
  for (const std::string& s : shapes) {
    const Problem shape = parse_shape(s, "--shape");
    for (const BlockShape& b : blocks)
      for (double sp : sparsities)
        for (RowDistribution r : rows) {
          SparseProblem p;
          p.op = op;
          p.m = shape.m;
          p.n = shape.n;
          p.k = shape.k;
          p.block_rows = b.rows;
          p.block_cols = b.cols;
          p.sparsity = sp;
          p.rows = r;
          check_problem(p, s);
          problems.push_back(p);
        }
  }
  if (problems.empty()) problems = sparse_preset_problems("seed-sparse", op);
  return problems;
}

SparseCheckPlan plan_sparse_check(const SparseCheckArgs& args) {
  SparseCheckPlan plan;
  plan.problems = parse_sparse_problems(args.preset, args.shapes, args.blocks, args.sparsities, args.rows, args.op);
  plan.kernels = parse_bsr_kernel_list(args.kernels, "--kernels");
  for (const std::string& text : args.configs)
    plan.configs.push_back(detail::to_string(detail::parse_bsr_config(text, "--config")));
  plan.seed = parse_seed(args.seed, "--seed");
  return plan;
}

SparseBenchPlan plan_sparse_bench(const SparseBenchArgs& args) {
  SparseBenchPlan plan;
  // 1. Pure parsing, in the order the options are listed in --help.
  plan.problems = parse_sparse_problems(args.preset, args.shapes, args.blocks, args.sparsities, args.rows, args.op);
  const TimingChoice timing = parse_timing(args.dtype, args.warm, args.cold, args.min_time, args.graph_batch);
  if (timing.dtype.dtype != DType::F32 || timing.dtype.math != Math::Fp32)
    invalid("--dtype: bench bsr computes fp32 only ('" + timing.dtype.name + "' is a dtype of bench gemm)");
  plan.dtype = timing.dtype;
  plan.kernels = parse_bsr_kernel_list(args.kernels.empty() ? kDefaultSparseKernels : args.kernels, "--kernels");
  plan.seed = parse_seed(args.seed, "--seed");
  plan.warm = timing.warm;
  plan.min_time = timing.min_time;
  plan.graph_batch = timing.graph_batch;
  plan.schedules = args.schedules;
  for (const std::string& text : args.configs)
    plan.configs.push_back(detail::to_string(detail::parse_bsr_config(text, "--config")));
  plan.csv = args.csv;
  plan.json = args.json;
  // The file system: every output must be writable before the measuring starts.
  check_output_files(plan.csv, plan.json);
  return plan;
}

BsrTunePlan plan_bsr_tune(const std::vector<std::string>& shapes, const std::string& preset, const BsrTuneArgs& args) {
  if (shapes.empty() && preset.empty()) invalid("--shape: no shapes to tune (give --shape or --preset)");
  BsrTunePlan plan;
  plan.problems = parse_sparse_problems(preset, shapes, args.blocks, args.sparsities, args.rows, args.op);
  for (const SparseProblem& p : plan.problems)
    if (p.m < 1 || p.n < 1 || p.k < 1 || p.expected_nnzb() == 0)
      invalid("--shape: " + p.str() + " has no stored blocks or an empty dimension: nothing to tune");
  plan.seed = parse_seed(args.seed, "--seed");
  return plan;
}

uint64_t sparse_w_seed(uint64_t seed, const SparseProblem& p) {
  return fnv1a(0xcbf29ce484222325ull ^ (seed * 0x9E3779B97F4A7C15ull), "W " + p.str());
}
uint64_t sparse_x_seed(uint64_t seed, const SparseProblem& p) {
  return fnv1a(0xcbf29ce484222325ull ^ (seed * 0x9E3779B97F4A7C15ull), "X " + p.str());
}

double sparse_problem_bytes(const SparseProblem& p) {
  // In double: products of sizes near kMaxDim overflow int64.
  const double nnzb = static_cast<double>(p.expected_nnzb());
  const double brows = static_cast<double>(p.w_rows() / p.block_rows);
  const double elems = static_cast<double>(p.size_x()) + static_cast<double>(p.w_rows()) * p.w_cols() +
                       2.0 * static_cast<double>(p.m) * p.n;
  return 4.0 * elems + nnzb * (4.0 * p.block_rows * p.block_cols + 4.0) + 4.0 * (2.0 * brows + 1.0);
}

void check_sparse_fits(const std::vector<SparseProblem>& problems, double extra_bytes, double device_bytes,
                       const std::string& device_name) {
  for (const SparseProblem& p : problems) {
    const double need = sparse_problem_bytes(p) + extra_bytes;
    if (need > device_bytes) {
      char msg[400];
      std::snprintf(msg, sizeof msg, "problem %s needs %.1f GiB of device memory; %s has %.1f GiB", p.str().c_str(),
                    need / 1073741824.0, device_name.c_str(), device_bytes / 1073741824.0);
      invalid(msg);
    }
  }
}

}  // namespace tools
}  // namespace tilegemm
