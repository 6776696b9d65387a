// Extra level-6 schedules compiled ahead of time for the bench to compare (`tilegemm bench
// --schedules`), until the NVRTC tuner instantiates schedules on demand. Each is compiled only for the
// row-major NN case (both copy widths of B); other calls are refused.
#pragma once
#include <string>
#include <vector>

#include "dense/launch.hpp"

namespace tilegemm {
namespace detail {

struct WarpTiledCandidate {
  std::string name;  // "BMxBNxBK_wWMxWN_tTMxTN_sSTAGES_bMINBLOCKS"
  int threads;
  int smem_bytes;
  void (*launch)(const CanonicalGemm& g, cudaStream_t stream);  // throws unless row-major NN
};

const std::vector<WarpTiledCandidate>& warp_tiled_candidates();

}  // namespace detail
}  // namespace tilegemm
