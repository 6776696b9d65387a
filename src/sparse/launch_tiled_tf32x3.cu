#include "sparse/launch_tiled.cuh"

namespace tilegemm {
namespace detail {

// As kernel 03, the tile height follows the block height R (a tile never spans two block rows);
// R < 16 runs in 16-row tiles with the rows past R zero-filled. K-chunks of 32 when the block
// width is a multiple of 32 (fewer barriers), else 16 (a chunk wider than the block is padding).
void launch_bsr_tiled_tf32x3(const BsrProblem& prob, cudaStream_t stream) {
  const int r = prob.p.block_r;
  const bool k32 = prob.p.block_c % 32 == 0;
  if (r >= 64)
    k32 ? launch_tiled_schedule<kernels::BsrMma64K32>(prob, stream)
        : launch_tiled_schedule<kernels::BsrMma64>(prob, stream);
  else if (r >= 32)
    k32 ? launch_tiled_schedule<kernels::BsrMma32K32>(prob, stream)
        : launch_tiled_schedule<kernels::BsrMma32>(prob, stream);
  else
    launch_tiled_schedule<kernels::BsrMma16>(prob, stream);
}

}  // namespace detail
}  // namespace tilegemm
