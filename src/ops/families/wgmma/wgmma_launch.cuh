// The compiled kernels of ladder level 8 (wgmma_launch.hpp): one instantiation per entry of a
// schedule table, output type and operand orientation, found by the launch's fields. Included by
// wgmma_launch_bf16.cu, wgmma_launch_f16.cu, wgmma_launch_tf32x3.cu and wgmma_launch_tf32.cu so the
// input types compile in parallel.
#pragma once
#include <iterator>
#include <string>
#include <utility>

#include "core/with_bool.hpp"
#include "kernels/gemm/08_wgmma_tma.cuh"
#include "ops/families/wgmma/wgmma_launch.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace ops {
namespace wgmma_launch_detail {

template <WgmmaIn kIn, class OutT, int BN, int kStages, int kCluster, bool kPingPong, int BM>
const void* kernel_of_layout(const WgmmaLaunch& l) {
  static_assert(kernels::wgmma_smem_bytes<BN, kStages, wgmma_b_planes(kIn), BM>() ==
                    wgmma_smem_bytes({BN, kCluster, kPingPong, kStages, BM}, kIn),
                "wgmma_smem_bytes (wgmma_launch.hpp) must match the kernel's shared memory");
  static_assert(kernels::kSumsPitch<BN> == BN + 4, "wgmma_sums_fit_stages (wgmma_launch.hpp) must match the kernel");
  const void* kernel = nullptr;
  detail::with_bool(wgmma_kernel_a_mn(l), [&](auto a_mn) {
    detail::with_bool(wgmma_kernel_b_mn(l), [&](auto b_mn) {
      // TF32 reads B's tile K-major only: an MN-major B is never instantiated for it; nor an MN-major B
      // whose cluster's blocks would load part of a 64-column box (the family refuses those).
      if constexpr ((kIn != WgmmaIn::TF32 || !b_mn()) &&
                    (!b_mn() || kernels::wgmma_fp32_in(kIn) || kernels::wgmma_mn_major_b_fits(BN, kCluster)))
        kernel = reinterpret_cast<const void*>(
            kernels::gemm_wgmma_tma<kIn, OutT, BN, kStages, a_mn(), b_mn(), kCluster, kPingPong, BM>);
    });
  });
  return kernel;
}
// The kernel of l's schedule among kSchedules (a table of wgmma_launch.hpp).
template <WgmmaIn kIn, class OutT, const auto& kSchedules, size_t... kIndex>
const void* compiled_schedule(const WgmmaLaunch& l, std::index_sequence<kIndex...>) {
  const void* kernel = nullptr;
  ((l.schedule == kSchedules[kIndex] &&
    (kernel = kernel_of_layout<kIn, OutT, kSchedules[kIndex].bn, kSchedules[kIndex].stages, kSchedules[kIndex].cluster,
                               kSchedules[kIndex].pingpong, kSchedules[kIndex].bm>(l),
     true)) ||
   ...);
  if (!kernel)
    throw Error(ErrorCode::Internal, "level 8 has no compiled schedule " + std::to_string(l.schedule.bm) + "x" +
                                         std::to_string(l.schedule.bn) + "x" +
                                         std::to_string(kernels::wgmma_bk(kIn)) + ":s" +
                                         std::to_string(l.schedule.stages) + (l.schedule.pingpong ? ":pp" : "") +
                                         ":c" + std::to_string(l.schedule.cluster));
  return kernel;
}
// 16-bit operands: C in the input type or f32.
template <WgmmaIn kIn, class In>
const void* compiled_kernel(const WgmmaLaunch& l) {
  constexpr auto kAll = std::make_index_sequence<std::size(kWgmmaSchedules)>();
  return l.out == DType::F32 ? compiled_schedule<kIn, float, kWgmmaSchedules>(l, kAll)
                             : compiled_schedule<kIn, In, kWgmmaSchedules>(l, kAll);
}

}  // namespace wgmma_launch_detail
}  // namespace ops
}  // namespace tilegemm
