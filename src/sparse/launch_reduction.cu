#include "core/cuda_check.hpp"
#include "kernels/bsr/01_reduction.cuh"
#include "sparse/launch.hpp"

namespace tilegemm {
namespace detail {

void launch_bsr_reduction(const BsrProblem& prob, cudaStream_t stream) {
  const kernels::BsrParams& p = prob.p;
  constexpr int kWarpsPerBlock = kernels::kReductionThreads / 32;
  const long long outputs = static_cast<long long>(p.rows_i) * p.cols_j;  // one warp each
  const unsigned grid = static_cast<unsigned>((outputs + kWarpsPerBlock - 1) / kWarpsPerBlock);
  if (prob.xwt)
    kernels::bsr_reduction<true><<<grid, kernels::kReductionThreads, 0, stream>>>(p);
  else
    kernels::bsr_reduction<false><<<grid, kernels::kReductionThreads, 0, stream>>>(p);
  TILEGEMM_CHECK_LAUNCH();
}

}  // namespace detail
}  // namespace tilegemm
