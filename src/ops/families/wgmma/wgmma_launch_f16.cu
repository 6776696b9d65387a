#include "ops/families/wgmma/wgmma_launch.cuh"

namespace tilegemm {
namespace ops {

void launch_wgmma_f16(const WgmmaLaunch& l, cudaStream_t stream) { wgmma_launch_detail::launch_in<true, __half>(l, stream); }

}  // namespace ops
}  // namespace tilegemm
