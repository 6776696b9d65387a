// Instantiates the split-K / stream-K kernel for compiled schedules 6 and 7 (config.hpp): level 7's
// tensor-core schedules (8 and 9 in launch_split_tiled_4.cu, so the two files compile in parallel).
#include "dense/launch_split_tiled.cuh"

namespace tilegemm {
namespace detail {

template void launch_split_tiled_at<6>(const CanonicalGemm&, const kernels::SplitTileParams&, long long, cudaStream_t,
                                         bool);
template void launch_split_tiled_at<7>(const CanonicalGemm&, const kernels::SplitTileParams&, long long, cudaStream_t,
                                         bool);

}  // namespace detail
}  // namespace tilegemm
