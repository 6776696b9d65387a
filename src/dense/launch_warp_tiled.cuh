// Host-side launch of one level-6 instantiation (shared by the library and the schedule candidates).
#pragma once
#include <atomic>

#include "core/cuda_check.hpp"
#include "dense/kernels/06_warp_tiled.cuh"
#include "dense/launch.hpp"

namespace tilegemm {
namespace detail {

template <class S, bool kTransA, bool kTransB, bool kVecA, bool kVecB>
void launch_warp_tiled_kernel(const kernels::GemmParams& p, cudaStream_t stream) {
  auto kernel = kernels::gemm_warp_tiled<S, kTransA, kTransB, kVecA, kVecB>;
  // Shared memory beyond 48 KB must be opted into, once per kernel and device.
  static std::atomic<unsigned long long> configured_devices{0};
  int device = 0;
  TILEGEMM_CUDA_CHECK(cudaGetDevice(&device));
  const unsigned long long bit = 1ull << (device & 63);
  if (!(configured_devices.load() & bit)) {
    TILEGEMM_CUDA_CHECK(cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, S::kSmemBytes));
    configured_devices.fetch_or(bit);
  }
  const long long tiles = static_cast<long long>((p.m + S::kBlockM - 1) / S::kBlockM) *
                          ((p.n + S::kBlockN - 1) / S::kBlockN);
  kernel<<<static_cast<unsigned>(tiles), S::kThreads, S::kSmemBytes, stream>>>(p);
  TILEGEMM_CHECK_LAUNCH();
}

// Picks the instantiation for the canonical problem's transposes and copy widths. 16-byte copies
// exist only for operands contiguous along m (A^T) or n (B), so 9 instantiations per schedule.
template <class S>
void launch_warp_tiled_schedule(const CanonicalGemm& g, cudaStream_t stream) {
  with_bool(g.trans_a, [&](auto ta) {
    with_bool(g.trans_b, [&](auto tb) {
      constexpr bool kTA = decltype(ta)::value, kTB = decltype(tb)::value;
      with_bool(kTA && g.vec_a, [&](auto va) {
        with_bool(!kTB && g.vec_b, [&](auto vb) {
          constexpr bool kVA = kTA && decltype(va)::value, kVB = !kTB && decltype(vb)::value;
          launch_warp_tiled_kernel<S, kTA, kTB, kVA, kVB>(g.p, stream);
        });
      });
    });
  });
}

}  // namespace detail
}  // namespace tilegemm
