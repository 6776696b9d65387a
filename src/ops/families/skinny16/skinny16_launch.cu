#include "ops/families/skinny16/skinny16_launch.hpp"

#include "core/device_context.hpp"
#include "core/kernel_launch.hpp"
#include "kernels/gemm/skinny_16bit.cuh"

namespace tilegemm {
namespace ops {

namespace {

template <bool kF16, class OutT, bool kWKMajor, int kRowTiles>
void launch(const kernels::Skinny16Params& p, cudaStream_t stream) {
  auto* kernel = kernels::skinny_16bit<kF16, OutT, kWKMajor, kRowTiles>;
  constexpr int kSmem = kernels::skinny16_smem_bytes(kRowTiles);
  if (kSmem > 48 * 1024) detail::ensure_smem_opt_in(kernel, kSmem);
  const long long tiles = (p.lines + kernels::kSkinny16Lines - 1) / kernels::kSkinny16Lines;
  const dim3 grid(static_cast<unsigned>(tiles * p.splits)), block(kernels::kSkinny16Threads);
  // A tile's k slices are one cluster: consecutive blocks along x.
  if (p.splits > 1) detail::launch_kernel_in_clusters(kernel, grid, block, kSmem, stream, p.splits, p);
  else detail::launch_kernel(kernel, grid, block, kSmem, stream, false, p);
}

template <bool kF16, class OutT, bool kWKMajor>
void launch_rows(const kernels::Skinny16Params& p, cudaStream_t stream) {
  switch (skinny16_row_slots(p.rows)) {
    case 8: return launch<kF16, OutT, kWKMajor, 1>(p, stream);
    default: return launch<kF16, OutT, kWKMajor, 2>(p, stream);
  }
}

template <bool kF16, class OutT>
void launch_w(const kernels::Skinny16Params& p, cudaStream_t stream) {
  if (p.w_k == 1) launch_rows<kF16, OutT, true>(p, stream);
  else launch_rows<kF16, OutT, false>(p, stream);
}

}  // namespace

void launch_skinny16(const kernels::Skinny16Params& p, DType in, DType out, cudaStream_t stream) {
  if (in == DType::F16) {
    if (out == DType::F32) launch_w<true, float>(p, stream);
    else launch_w<true, __half>(p, stream);
  } else {
    if (out == DType::F32) launch_w<false, float>(p, stream);
    else launch_w<false, __nv_bfloat16>(p, stream);
  }
}

}  // namespace ops
}  // namespace tilegemm
