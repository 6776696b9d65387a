#include "ops/families/gemv16/gemv16_launch.hpp"

#include "core/cuda_check.hpp"
#include "core/kernel_launch.hpp"
#include "kernels/gemm/gemv_16bit.cuh"

namespace tilegemm {
namespace ops {

namespace {

template <bool kF16, class OutT, int kRows>
void launch(const kernels::Gemv16Params& p, int sm_count, cudaStream_t stream) {
  // 8 warps per block, one line of W per warp at a time; at most 16 blocks per SM of grid.
  kernels::gemv_16bit<kF16, OutT, kRows><<<detail::grid_stride_blocks(p.lines, 8, 16, sm_count), 256, 0, stream>>>(p);
  TILEGEMM_CHECK_LAUNCH();
}

template <bool kF16, class OutT>
void launch_rows(const kernels::Gemv16Params& p, int sm_count, cudaStream_t stream) {
  if (p.rows <= 1) launch<kF16, OutT, 1>(p, sm_count, stream);
  else if (p.rows <= 2) launch<kF16, OutT, 2>(p, sm_count, stream);
  else launch<kF16, OutT, kGemv16MaxRows>(p, sm_count, stream);
}

}  // namespace

void launch_gemv16(const kernels::Gemv16Params& p, DType in, DType out, int sm_count, cudaStream_t stream) {
  if (in == DType::F16) {
    if (out == DType::F32) launch_rows<true, float>(p, sm_count, stream);
    else launch_rows<true, __half>(p, sm_count, stream);
  } else {
    if (out == DType::F32) launch_rows<false, float>(p, sm_count, stream);
    else launch_rows<false, __nv_bfloat16>(p, sm_count, stream);
  }
}

}  // namespace ops
}  // namespace tilegemm
