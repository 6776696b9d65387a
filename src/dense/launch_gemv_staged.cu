// Launcher of the staged GEMV kernel (gemv_rows_staged.cuh at s = 16: how X is staged x 16-byte copies
// of W and X), a module of its own (launch_gemv.cu).
#include "core/device_context.hpp"
#include "core/kernel_launch.hpp"
#include "core/with_bool.hpp"
#include "dense/config.hpp"
#include "kernels/gemm/gemv_rows_staged.cuh"
#include "dense/launch.hpp"

namespace tilegemm {
namespace detail {

static_assert(kernels::GemvStagedShape<16>::kSmemBytes == kGemvStagedSmemBytes &&
                  kernels::GemvStagedShape<16>::kBlockRows == 32 && kGemvRowsChunk % kernels::GemvStagedShape<16>::kBK == 0 &&
                  kernels::GemvStagedShape<16>::kThreads == kGemvThreads && kernels::GemvStagedShape<16>::kPerLane == 2 &&
                  kernels::GemvStagedShape<16>::kLine * kernels::GemvStagedShape<16>::kBlockRows == kGemvStagedRowGroup,
              "gemv_rows_staged.cuh at s = 16 has gemv-rows:s16's blocks, slices and partial tiles (config.hpp)");

void launch_gemv_staged(const GemvForm& f, const kernels::GemvParams& p, long long units, cudaStream_t stream,
                   bool after_prologue) {
  using kernels::GemvXStage;
  with_bool(f.vec_w, [&](auto vec_w) {
    with_bool(f.vec_x, [&](auto vec_x) {
      constexpr bool kVecW = decltype(vec_w)::value, kVecX = decltype(vec_x)::value;
      void (*kernel)(kernels::GemvParams) = f.staging == GemvStaging::XRowsAlongK
                                                ? kernels::gemv_rows_staged<16, GemvXStage::KRows, kVecW, kVecX>
                                                : kernels::gemv_rows_staged<16, GemvXStage::SRows, kVecW, kVecX>;
      ensure_smem_opt_in(reinterpret_cast<const void*>(kernel), kGemvStagedSmemBytes);
      launch_kernel(kernel, dim3(static_cast<unsigned>(units)), dim3(kGemvThreads), kGemvStagedSmemBytes, stream,
                    after_prologue, p);
    });
  });
}

}  // namespace detail
}  // namespace tilegemm
