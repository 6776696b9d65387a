#include "sparse/launch_tiled.cuh"

namespace tilegemm {
namespace detail {

namespace {

template <class S>
void launch_schedule(const BsrProblem& prob, cudaStream_t stream) {
  // 16-byte copies need both operands' rows 16-byte aligned: W rows when C % 4 == 0, X rows when
  // x and ldx are; otherwise every element is copied with 4-byte copies.
  const bool vec = prob.p.w_vec4 && prob.p.x_vec4;
  if (prob.xwt)
    vec ? launch_bsr_tiled_kernel<S, true, true>(prob, stream)
        : launch_bsr_tiled_kernel<S, true, false>(prob, stream);
  else
    vec ? launch_bsr_tiled_kernel<S, false, true>(prob, stream)
        : launch_bsr_tiled_kernel<S, false, false>(prob, stream);
}

}  // namespace

// The tile height follows the block height R: a tile never spans two block rows (their stored
// columns differ), and for R = 8, 16, 32, 64 no tile row is wasted.
void launch_bsr_tiled(const BsrProblem& prob, cudaStream_t stream) {
  const int r = prob.p.block_r;
  if (r >= 64 && prob.p.block_c % 32 == 0)  // K-chunks of 32 need blocks at least that wide
    launch_schedule<kernels::BsrTiled64K32>(prob, stream);
  else if (r >= 64)
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
