// Instantiates the split-K / stream-K kernel for compiled schedules 8 and 9 (config.hpp): level 7's
// smaller tensor-core tiles.
#include "dense/launch_split_tiled.cuh"

namespace tilegemm {
namespace detail {

template void launch_split_tiled_at<8>(const CanonicalGemm&, const kernels::SplitTileParams&, long long, cudaStream_t,
                                         bool);
template void launch_split_tiled_at<9>(const CanonicalGemm&, const kernels::SplitTileParams&, long long, cudaStream_t,
                                         bool);

}  // namespace detail
}  // namespace tilegemm
