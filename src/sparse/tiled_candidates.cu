// Extra schedules of the tiled BSR kernels (03 and, named "tf32x3_...", 04), measured side by side by `tilegemm bench --sparse
// --schedules` (BsrOptions::tiled_schedule). Compiled for the bench's main case only (xwt, 16-byte
// aligned X, C % 4 == 0) to keep the build short; the tuner will make this list a search space.
#include <string>
#include <vector>

#include "sparse/launch_tiled.cuh"
#include "tilegemm/bsr_gpu.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

namespace {

struct Candidate {
  std::string name;
  void (*launch)(const BsrProblem&, cudaStream_t);
};

template <int TI_, int TJ_, int ti, int tj, int kc, int stages>
Candidate make() {
  using S = kernels::BsrTiledSchedule<TI_, TJ_, ti, tj, kc, stages>;
  return {std::to_string(TI_) + "x" + std::to_string(TJ_) + "x" + std::to_string(kc) + "_t" +
              std::to_string(ti) + "x" + std::to_string(tj) + "_s" + std::to_string(stages),
          &launch_bsr_tiled_kernel<S, true, true>};
}
template <int TI_, int TJ_, int wi, int wj, int kc, int stages>
Candidate make_tf32x3() {
  using S = kernels::BsrMmaSchedule<TI_, TJ_, wi, wj, kc, stages>;
  return {"tf32x3_" + std::to_string(TI_) + "x" + std::to_string(TJ_) + "x" + std::to_string(kc) +
              "_w" + std::to_string(wi) + "x" + std::to_string(wj) + "_s" + std::to_string(stages),
          &launch_bsr_tiled_kernel<S, true, true>};
}

const std::vector<Candidate>& candidates() {
  static const std::vector<Candidate> list = {
      // The defaults (03_tiled.cuh) are not repeated here; these are the alternatives measured.
      make<16, 256, 4, 8, 16, 4>(),  // first R = 16 default: 4 stages, 2 blocks per SM
      make<16, 128, 2, 8, 16, 4>(),  // 4 blocks of 4 warps per SM
      make<32, 256, 4, 8, 16, 4>(),  // first R = 32 default
      make<32, 256, 4, 8, 16, 3>(),
      make<32, 128, 4, 8, 32, 3>(),  // longer K-chunks: half the barriers
      make<64, 64, 4, 8, 16, 4>(),   // 4 warps, 40 KB
      // Larger thread tiles (64 accumulators): +5 % only at 8192^3 64x64 s = 0.8, slower on the
      // smaller shapes (perf note B7); kept as the one to retry.
      make<64, 128, 8, 8, 32, 3>(),
      // Kernel 04 (3xTF32 tensor cores); its defaults are BsrMma16/32/64 in 04_tiled_tf32x3.cuh.
      // The 2026-11-23 sweep (perf note B10): R = 16 3 stages (+5-10 % over 4), R = 32 K-chunks of 32
      // (+10-15 %), R = 64 as is; these were slower.
      make_tf32x3<16, 256, 1, 4, 16, 4>(),  // first R = 16 default: 2 blocks per SM
      make_tf32x3<16, 128, 1, 2, 16, 4>(),  // 64 threads
      make_tf32x3<16, 256, 1, 8, 16, 4>(),  // 8 warps of 16 x 32
      make_tf32x3<32, 256, 2, 4, 16, 3>(),
      make_tf32x3<64, 256, 4, 4, 16, 3>(),
  };
  return list;
}

}  // namespace

std::vector<std::string> bsr_tiled_schedule_names_impl() {
  std::vector<std::string> names;
  for (const Candidate& c : candidates()) names.push_back(c.name);
  return names;
}

int bsr_tiled_schedule_count() { return static_cast<int>(candidates().size()); }

void launch_bsr_tiled_candidate(const BsrProblem& prob, int schedule, cudaStream_t stream) {
  if (!prob.xwt || !prob.p.x_vec4 || !prob.p.w_vec4)
    throw Error(ErrorCode::InvalidArgument,
                "options.tiled_schedule: the schedule candidates are compiled only for bsr_xwt "
                "with a 16-byte aligned x, ldx % 4 == 0 and block_cols % 4 == 0");
  candidates()[static_cast<size_t>(schedule - 1)].launch(prob, stream);
}

}  // namespace detail

std::vector<std::string> bsr_tiled_schedule_names() { return detail::bsr_tiled_schedule_names_impl(); }

}  // namespace tilegemm
