#include "dense/launch_warp_tiled.cuh"
#include "dense/warp_tiled_candidates.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

namespace {

template <class S>
void launch_nn(const CanonicalGemm& g, cudaStream_t stream) {
  if (g.trans_a || g.trans_b || !g.vec_b)
    throw Error(ErrorCode::InvalidArgument,
                "schedule candidates are compiled only for row-major NN with 16-byte aligned B");
  launch_warp_tiled_kernel<S, false, false, false, true>(g.p, stream);
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST>
WarpTiledCandidate make() {
  using S = kernels::WarpTiledSchedule<BM, BN, BK, WM, WN, TM, TN, ST>;
  const std::string name = std::to_string(BM) + "x" + std::to_string(BN) + "x" + std::to_string(BK) +
                           "_w" + std::to_string(WM) + "x" + std::to_string(WN) + "_t" +
                           std::to_string(TM) + "x" + std::to_string(TN) + "_s" + std::to_string(ST);
  return {name, S::kThreads, S::kSmemBytes, &launch_nn<S>};
}

}  // namespace

const std::vector<WarpTiledCandidate>& warp_tiled_candidates() {
  static const std::vector<WarpTiledCandidate> list = {
      make<256, 128, 8, 64, 64, 8, 16, 4>(),   // seed 004's schedule
      make<256, 128, 16, 64, 64, 8, 16, 3>(),  // half the barriers per FMA
      make<128, 256, 8, 64, 64, 8, 16, 4>(),
      make<128, 128, 8, 64, 32, 8, 8, 4>(),    // 64 accumulators: room for 2 blocks per SM
      make<128, 128, 16, 32, 64, 8, 8, 3>(),
      make<128, 64, 16, 64, 32, 8, 8, 3>(),    // 4 warps: more blocks for small problems
  };
  return list;
}

}  // namespace detail
}  // namespace tilegemm
