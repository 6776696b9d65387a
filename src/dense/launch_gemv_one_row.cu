// Launcher of the one-row GEMV kernel (gemv_cols_one.cuh: lanes per W row x the way W's rows are
// read), a module of its own (launch_gemv.cu).
#include "core/kernel_launch.hpp"
#include "dense/config.hpp"
#include "kernels/gemm/gemv_cols_one.cuh"
#include "dense/launch.hpp"
#include "dense/launch_gemv.cuh"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

static_assert(kernels::GemvColsOneShape<8>::kThreads == kGemvColsOneThreads &&
                  kernels::GemvColsOneShape<8>::kStep == 512 && kernels::GemvColsOneShape<32>::kStep == 128,
              "kGemvColsOneThreads / gemv_cols_one_step (config.hpp) mirror gemv_cols_one.cuh");

void launch_gemv_one_row(int lanes, const GemvForm& form, const kernels::GemvParams& p, long long units,
                         cudaStream_t stream, bool after_prologue) {
  with_cols_w(form, [&](auto w) {
    constexpr kernels::GemvColsW kW = decltype(w)::value;
    void (*kernel)(kernels::GemvParams) = lanes == 8 ? kernels::gemv_cols_one<8, kW>
                  : lanes == 16 ? kernels::gemv_cols_one<16, kW>
                  : lanes == 32 ? kernels::gemv_cols_one<32, kW>
                                : nullptr;
    if (!kernel) throw Error(ErrorCode::Internal, "launch_gemv: no one-row kernel for " + std::to_string(lanes) + " lanes");
    launch_kernel(kernel, dim3(static_cast<unsigned>(units)), dim3(kGemvColsOneThreads), 0, stream, after_prologue, p);
  });
}

}  // namespace detail
}  // namespace tilegemm
