// Instantiates the split-K / stream-K kernel for compiled schedules 0 (config.hpp).
#include "dense/launch_split_tiled.cuh"

namespace tilegemm {
namespace detail {

template void launch_split_tiled_at<0>(const CanonicalGemm&, const kernels::SplitTileParams&, long long, cudaStream_t,
                                         bool);

}  // namespace detail
}  // namespace tilegemm
