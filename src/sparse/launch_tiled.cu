#include "sparse/launch_tiled.cuh"

namespace tilegemm {
namespace detail {

// The tile height follows the block height R: a tile never spans two block rows (their stored
// columns differ), and for R = 8, 16, 32, 64 no tile row is wasted.
void launch_bsr_tiled(const BsrProblem& prob, cudaStream_t stream) {
  const int r = prob.p.block_r;
  if (r >= 64 && prob.p.block_c % 32 == 0)  // K-chunks of 32 need blocks at least that wide
    launch_tiled_schedule<kernels::BsrTiled64K32>(prob, stream);
  else if (r >= 64)
    launch_tiled_schedule<kernels::BsrTiled64>(prob, stream);
  else if (r >= 32)
    launch_tiled_schedule<kernels::BsrTiled32>(prob, stream);
  else if (r >= 16)
    launch_tiled_schedule<kernels::BsrTiled16>(prob, stream);
  else
    launch_tiled_schedule<kernels::BsrTiled8>(prob, stream);
}

}  // namespace detail
}  // namespace tilegemm
