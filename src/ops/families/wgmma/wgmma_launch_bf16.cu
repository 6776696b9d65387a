#include "ops/families/wgmma/wgmma_launch.cuh"

namespace tilegemm {
namespace ops {

const void* compiled_wgmma_kernel_bf16(const WgmmaLaunch& l) {
  return wgmma_launch_detail::compiled_kernel<WgmmaIn::BF16, kernels::bf16_t>(l);
}

}  // namespace ops
}  // namespace tilegemm
