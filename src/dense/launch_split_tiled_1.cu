// Instantiates the split-K / stream-K kernel for compiled schedules 1, 2 (config.hpp).
#include "dense/launch_split_tiled.cuh"

namespace tilegemm {
namespace detail {

template void launch_split_tiled_at<1>(const CanonicalGemm&, const kernels::SplitTileParams&, long long, cudaStream_t,
                                         bool);
template void launch_split_tiled_at<2>(const CanonicalGemm&, const kernels::SplitTileParams&, long long, cudaStream_t,
                                         bool);

}  // namespace detail
}  // namespace tilegemm
