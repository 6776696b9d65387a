// Host-side launch of one level-6 instantiation (shared by the library and the schedule candidates).
#pragma once
#include <atomic>

#include "core/cuda_check.hpp"
#include "dense/kernels/06_warp_tiled.cuh"
#include "dense/launch.hpp"

namespace tilegemm {
namespace detail {

// Thread blocks (one per output tile) a schedule launches for the problem.
template <class S>
long long warp_tiled_grid(const kernels::GemmParams& p) {
  return static_cast<long long>((p.m + S::kBlockM - 1) / S::kBlockM) * ((p.n + S::kBlockN - 1) / S::kBlockN);
}

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
  kernel<<<static_cast<unsigned>(warp_tiled_grid<S>(p)), S::kThreads, S::kSmemBytes, stream>>>(p);
  TILEGEMM_CHECK_LAUNCH();
}

}  // namespace detail
}  // namespace tilegemm
