#include "ops/families/wgmma/wgmma_launch.cuh"

namespace tilegemm {
namespace ops {

// FP32 operands at FP32 accuracy: C in f32.
const void* compiled_wgmma_kernel_tf32x3(const WgmmaLaunch& l) {
  constexpr auto kAll = std::make_index_sequence<std::size(kWgmmaTf32x3Schedules)>();
  return wgmma_launch_detail::compiled_schedule<WgmmaIn::TF32x3, float, kWgmmaTf32x3Schedules>(l, kAll);
}

}  // namespace ops
}  // namespace tilegemm
