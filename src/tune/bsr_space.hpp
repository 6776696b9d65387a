// The configs the BSR tuner measures for a product, in the order it measures them (tune_bsr.cpp;
// the space is described at tilegemm::tune in tilegemm/tune.hpp). Host code: the CPU tests check it.
#pragma once
#include <vector>

#include "sparse/config.hpp"
#include "sparse/launch.hpp"

namespace tilegemm {
namespace detail {

std::vector<BsrConfig> bsr_search_space(const BsrProblem& prob, bool run_time_configs);
// The tiled schedules one move away from `c` (same family): the tile height, tile width, outputs per
// thread or warps along either side halved or doubled, the other K-chunks (8, 16, 32), a pipeline stage
// more or fewer. Only those that compile and can run `prob`, marked ':jit' where not compiled ahead.
std::vector<BsrConfig> bsr_neighbours(const BsrProblem& prob, const BsrConfig& c);
// Whether running `c` on `prob` needs a run-time compiled kernel (no ahead-of-time one for the product).
bool bsr_needs_jit(const BsrProblem& prob, const BsrConfig& c);

}  // namespace detail
}  // namespace tilegemm
