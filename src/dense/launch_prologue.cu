// Launcher of a call's prologue kernel (prologue.cuh): one block per packed tile, at least one.
#include "core/kernel_launch.hpp"
#include "kernels/gemm/prologue.cuh"
#include "dense/launch.hpp"

namespace tilegemm {
namespace detail {

void launch_prologue(const kernels::PrologueParams& p, cudaStream_t stream) {
  const long long tiles = static_cast<long long>(p.a_tiles) + p.b_tiles;
  const dim3 block(kernels::kPackTile, kernels::kPackRowsPerPass);
  launch_kernel(kernels::gemm_prologue, dim3(static_cast<unsigned>(tiles > 0 ? tiles : 1)), block, 0, stream,
                /*after_prologue*/ false, p);
}

}  // namespace detail
}  // namespace tilegemm
