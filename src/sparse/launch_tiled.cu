#include "core/cuda_check.hpp"
#include "sparse/kernels/03_tiled.cuh"
#include "sparse/launch.hpp"

namespace tilegemm {
namespace detail {

namespace {

template <class S, bool kXwt, bool kVec>
void launch(const kernels::BsrParams& p, cudaStream_t stream) {
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

template <class S>
void launch_schedule(const BsrProblem& prob, cudaStream_t stream) {
  // 16-byte copies need both operands' rows 16-byte aligned: W rows when C % 4 == 0, X rows when
  // x and ldx are; otherwise every element is copied with 4-byte copies.
  const bool vec = prob.p.w_vec4 && prob.p.x_vec4;
  if (prob.xwt)
    vec ? launch<S, true, true>(prob.p, stream) : launch<S, true, false>(prob.p, stream);
  else
    vec ? launch<S, false, true>(prob.p, stream) : launch<S, false, false>(prob.p, stream);
}

}  // namespace

// The tile height follows the block height R: a tile never spans two block rows (their stored
// columns differ), and for R = 8, 16, 32, 64 no tile row is wasted.
void launch_bsr_tiled(const BsrProblem& prob, cudaStream_t stream) {
  const int r = prob.p.block_r;
  if (r >= 64)
    launch_schedule<kernels::BsrTiled64>(prob, stream);
  else if (r >= 32)
    launch_schedule<kernels::BsrTiled32>(prob, stream);
  else if (r >= 16)
    launch_schedule<kernels::BsrTiled16>(prob, stream);
  else
    launch_schedule<kernels::BsrTiled8>(prob, stream);
}

}  // namespace detail
}  // namespace tilegemm
