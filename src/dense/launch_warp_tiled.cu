// Level 6 with the default schedule (docs/ladder.md says how it was chosen).
#include "dense/launch_warp_tiled.cuh"
#include "dense/warp_tiled_default.hpp"

namespace tilegemm {
namespace detail {

void launch_warp_tiled(const CanonicalGemm& g, cudaStream_t stream) {
  launch_warp_tiled_schedule<WarpTiledDefault>(g, stream);
}

}  // namespace detail
}  // namespace tilegemm
