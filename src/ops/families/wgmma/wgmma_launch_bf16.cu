#include "ops/families/wgmma/wgmma_launch.cuh"

namespace tilegemm {
namespace ops {

void launch_wgmma_bf16(const WgmmaLaunch& l, cudaStream_t stream) {
  wgmma_launch_detail::launch_in<false, __nv_bfloat16>(l, stream);
}

}  // namespace ops
}  // namespace tilegemm
