// Launcher of the operand packing kernel (pack.cuh).
#include "core/cuda_check.hpp"
#include "dense/kernels/pack.cuh"
#include "dense/launch.hpp"

namespace tilegemm {
namespace detail {

void launch_pack(const kernels::PackParams& p, bool transposed, cudaStream_t stream) {
  const long long tiles = static_cast<long long>(p.col_tiles) * ((p.rows + kernels::kPackTile - 1) / kernels::kPackTile);
  const dim3 block(kernels::kPackTile, kernels::kPackRowsPerPass);
  if (transposed) kernels::pack_operand<true><<<static_cast<unsigned>(tiles), block, 0, stream>>>(p);
  else kernels::pack_operand<false><<<static_cast<unsigned>(tiles), block, 0, stream>>>(p);
  TILEGEMM_CHECK_LAUNCH();
}

}  // namespace detail
}  // namespace tilegemm
