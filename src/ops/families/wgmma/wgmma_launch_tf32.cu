#include "ops/families/wgmma/wgmma_launch.cuh"

namespace tilegemm {
namespace ops {

// FP32 operands as TF32: C in f32, A and B K-major (the launch converts others first).
const void* compiled_wgmma_kernel_tf32(const WgmmaLaunch& l) {
  constexpr auto kAll = std::make_index_sequence<std::size(kWgmmaTf32Schedules)>();
  return wgmma_launch_detail::compiled_schedule<WgmmaIn::TF32, float, kWgmmaTf32Schedules>(l, kAll);
}

}  // namespace ops
}  // namespace tilegemm
