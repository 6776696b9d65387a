// `tilegemm bench --sparse`: the block-sparse bench, a mode of the bench command (cmd_bench_sparse.cpp).
#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "options.hpp"
#include "sparse_options.hpp"

namespace tilegemm {
namespace tools {

// Called first by the bench command's callback with the shared (dense) arguments: with --sparse it runs
// the sparse bench and returns true; without, it rejects the sparse-only options that were given and
// returns false (the dense bench runs).
using SparseDispatch = std::function<bool(const BenchArgs& shared, const std::vector<std::string>& argv)>;

// Adds --sparse and the sparse-only options (--block, --sparsity, --rows, --op, --seed) to `bench`.
// --shape, --preset, --kernels, --dtype, --min-time, --graph-batch, --warm/--cold, --csv and --json are
// shared with the dense bench; the dense-only ones (--sizes, --layout, --trans, --rasters, --schedules, --plot) are
// rejected with --sparse.
SparseDispatch add_sparse_bench_options(CLI::App* bench);

// The sparse bench itself: validates everything (plan_sparse_bench), then measures on the GPU.
void run_sparse_bench(const SparseBenchArgs& args, const std::vector<std::string>& argv);

}  // namespace tools
}  // namespace tilegemm
