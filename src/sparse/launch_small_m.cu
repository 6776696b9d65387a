#include "core/cuda_check.hpp"
#include "sparse/kernels/02_small_m.cuh"
#include "sparse/launch.hpp"

namespace tilegemm {
namespace detail {

void launch_bsr_small_m(const BsrProblem& prob, cudaStream_t stream) {
  const kernels::BsrParams& p = prob.p;
  constexpr int kRowsPerBlock = kernels::kSmallMThreads / 32;  // one warp per W row
  const unsigned grid = static_cast<unsigned>((p.rows_i + kRowsPerBlock - 1) / kRowsPerBlock);
  constexpr int kThreads = kernels::kSmallMThreads;
  // 16-byte reads of W rows need C % 4 == 0; for xwt the same reads of X rows need x_vec4.
  const bool vec = p.w_vec4 && (!prob.xwt || p.x_vec4);
  if (prob.xwt && vec)
    kernels::bsr_small_m<true, true><<<grid, kThreads, 0, stream>>>(p);
  else if (prob.xwt)
    kernels::bsr_small_m<true, false><<<grid, kThreads, 0, stream>>>(p);
  else if (vec)
    kernels::bsr_small_m<false, true><<<grid, kThreads, 0, stream>>>(p);
  else
    kernels::bsr_small_m<false, false><<<grid, kThreads, 0, stream>>>(p);
  TILEGEMM_CHECK_LAUNCH();
}

}  // namespace detail
}  // namespace tilegemm
