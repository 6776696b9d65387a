#include <string>

#include "core/cuda_check.hpp"
#include "core/kernel_launch.hpp"
#include "kernels/gemm/pack_16bit.cuh"
#include "ops/families/wgmma/wgmma_launch.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace ops {

void pack_16bit(const void* src, int64_t ld, int64_t lines, int64_t inner, void* dst, int sm_count,
                cudaStream_t stream, int64_t batches, int64_t src_stride) {
  const int64_t ld_out = packed_ld(inner), chunks = batches * lines * (ld_out / 8);
  if (chunks == 0) return;
  if (chunks >= (int64_t(1) << 31))
    throw Error(ErrorCode::Internal, "an operand of " + std::to_string(batches) + " x " + std::to_string(lines) +
                                         " x " + std::to_string(inner) +
                                                " elements that is not 16-byte aligned is too large to pack (2^35 bytes "
                                                "at most)");
  // 8 blocks of 256 threads per SM keep enough loads in flight for the memory bandwidth.
  kernels::pack_16bit<<<detail::grid_stride_blocks(chunks, 256, 8, sm_count), 256, 0, stream>>>(
      static_cast<const unsigned short*>(src), ld, static_cast<int>(lines), static_cast<int>(inner),
      static_cast<uint4*>(dst), static_cast<unsigned>(ld_out / 8), static_cast<int>(batches), src_stride);
  TILEGEMM_CHECK_LAUNCH();
}

}  // namespace ops
}  // namespace tilegemm
