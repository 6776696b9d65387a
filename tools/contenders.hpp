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
  // Runs C = A*B (alpha 1, beta 0) for the problem on the default stream.
  std::function<void(const Problem&, const float* a, const float* b, float* c)> run;
  // Empty when the contender supports the problem, else why not (shown instead of a time).
  std::function<std::string(const Problem&)> unsupported = [](const Problem&) { return std::string(); };
};

// kernels: "all" | "auto" | level numbers/names, comma separated. rasters: empty = library default.
std::vector<Contender> make_contenders(const std::string& kernels, const std::vector<std::string>& rasters,
                                       bool schedules, Cublas& cublas);

}  // namespace tools
}  // namespace tilegemm
