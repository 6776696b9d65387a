#include "core/cuda_check.hpp"
#include "core/with_bool.hpp"
#include "kernels/bsr/02_small_m.cuh"
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
  // Columns per pass: no wasted accumulators and shuffles for a batch of 1 (the latency case).
  const int cols = p.cols_j == 1 ? 1 : (p.cols_j <= 8 ? 8 : 16);
  with_bool(prob.xwt, [&](auto xwt) {
    with_bool(vec, [&](auto v) {
      constexpr bool kXwt = decltype(xwt)::value, kVec = decltype(v)::value;
      if (cols == 1)
        kernels::bsr_small_m<kXwt, kVec, 1><<<grid, kThreads, 0, stream>>>(p);
      else if (cols == 8)
        kernels::bsr_small_m<kXwt, kVec, 8><<<grid, kThreads, 0, stream>>>(p);
      else
        kernels::bsr_small_m<kXwt, kVec, 16><<<grid, kThreads, 0, stream>>>(p);
    });
  });
  TILEGEMM_CHECK_LAUNCH();
}

}  // namespace detail
}  // namespace tilegemm
