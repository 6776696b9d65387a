#include "ops/families/wgmma/wgmma_launch.cuh"

namespace tilegemm {
namespace ops {

const void* compiled_wgmma_kernel_f16(const WgmmaLaunch& l) {
  return wgmma_launch_detail::compiled_kernel<WgmmaIn::F16, kernels::f16_t>(l);
}

}  // namespace ops
}  // namespace tilegemm
