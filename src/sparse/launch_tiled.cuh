// Launches one instantiation of the tiled BSR kernel (shared by the library's launcher and the
// schedule candidates the bench measures).
#pragma once
#include "core/cuda_check.hpp"
#include "sparse/kernels/03_tiled.cuh"
#include "sparse/launch.hpp"

namespace tilegemm {
namespace detail {

template <class S, bool kXwt, bool kVec>
void launch_bsr_tiled_kernel(const kernels::BsrParams& p, cudaStream_t stream) {
  constexpr int kSmem = S::template smem_bytes<kXwt>();
  auto kernel = kernels::bsr_tiled<S, kXwt, kVec>;
  static const bool configured = [&] {  // above 48 KB needs an opt-in, once per kernel
    TILEGEMM_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
    return true;
  }();
  (void)configured;
  const long long subtiles = (p.block_r + S::kTileI - 1) / S::kTileI;
  const long long j_tiles = (p.cols_j + S::kTileJ - 1) / S::kTileJ;
  const unsigned grid = static_cast<unsigned>(j_tiles * p.block_row_count * subtiles);
  kernel<<<grid, S::kThreads, kSmem, stream>>>(p);
  TILEGEMM_CHECK_LAUNCH();
}

}  // namespace detail
}  // namespace tilegemm
