// What bench and check run: cuBLAS, ladder levels (optionally per rasterization), Auto, and the extra
// level-6 schedules.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "harness.hpp"

namespace tilegemm {
namespace tools {

struct Contender {
  std::string label;
  bool is_baseline = false;
  // Runs C = A*B (alpha 1, beta 0) for the problem on bench_stream(), asynchronously: launches only (no
  // allocation, copy or synchronization), so --graph-batch can capture it into a CUDA graph.
  std::function<void(const Problem&, const float* a, const float* b, float* c)> run;
  // Empty when the contender supports the problem, else why not (shown instead of a time).
  std::function<std::string(const Problem&)> unsupported = [](const Problem&) { return std::string(); };
};

// cuBLAS first (the baseline), then each kernel, levels 4-6 once per raster order (empty: the library's
// default order), then with `schedules` the extra level-6 schedules. Lists come from options.hpp.
std::vector<Contender> make_contenders(const std::vector<Kernel>& kernels, const std::vector<Raster>& rasters,
                                       bool schedules, Cublas& cublas);

}  // namespace tools
}  // namespace tilegemm
