#include "dense/kernels/05_vectorized.cuh"
#include "dense/launch_warp_tiled.cuh"
#include "dense/warp_tiled_candidates.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

namespace {

// kAllOps: compiled for every transpose combination (the library's schedules, for comparing them
// on NT/TN/TT); the rest only for row-major NN, which keeps this file's build time bounded.
template <class S, bool kAllOps>
void launch_candidate(const CanonicalGemm& g, cudaStream_t stream) {
  if (!kAllOps && (g.trans_a || g.trans_b))
    throw Error(ErrorCode::InvalidArgument, "this schedule candidate is compiled only for row-major NN");
  with_bool(kAllOps && g.trans_a, [&](auto ta) {
    with_bool(kAllOps && g.trans_b, [&](auto tb) {
      constexpr bool kTA = decltype(ta)::value, kTB = decltype(tb)::value;
      with_bool(g.vec_a, [&](auto va) {
        constexpr bool kVA = decltype(va)::value;
        with_bool(g.vec_b, [&](auto vb) {
          constexpr bool kVB = decltype(vb)::value;
          if constexpr (kAllOps || (!kTA && !kTB))
            launch_warp_tiled_kernel<S, kTA, kTB, kVA, kVB>(g.p, stream);
        });
      });
    });
  });
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int ST, int MB = 1, int ORDER = 2,
          bool TRANSPOSE_K = false, bool ALL_OPS = false>
WarpTiledCandidate make() {
  using S = kernels::WarpTiledSchedule<BM, BN, BK, WM, WN, TM, TN, ST, MB, ORDER, TRANSPOSE_K>;
  const std::string name = std::to_string(BM) + "x" + std::to_string(BN) + "x" + std::to_string(BK) +
                           "_w" + std::to_string(WM) + "x" + std::to_string(WN) + "_t" +
                           std::to_string(TM) + "x" + std::to_string(TN) + "_s" + std::to_string(ST) + "_b" + std::to_string(MB) +
                           "_o" + std::to_string(ORDER) + (TRANSPOSE_K ? "_T" : "");
  return {name, S::kThreads, S::kSmemBytes, &launch_candidate<S, ALL_OPS>};
}

template <class S>
void launch_vectorized_nn(const CanonicalGemm& g, cudaStream_t stream) {
  if (g.trans_a || g.trans_b)
    throw Error(ErrorCode::InvalidArgument, "schedule candidates are compiled only for row-major NN");
  const unsigned blocks = static_cast<unsigned>(((g.p.m + S::kBlockM - 1) / S::kBlockM) *
                                                ((g.p.n + S::kBlockN - 1) / S::kBlockN));
  with_bool(g.vec_a, [&](auto va) {
    with_bool(g.vec_b, [&](auto vb) {
      kernels::gemm_vectorized<S, false, false, decltype(va)::value, decltype(vb)::value>
          <<<blocks, S::kThreads, 0, stream>>>(g.p);
    });
  });
  TILEGEMM_CHECK_LAUNCH();
}

// Level-5 (register-staged, double-buffered) schedules, for comparison with level 6.
template <int BM, int BN, int BK, int TM, int TN>
WarpTiledCandidate make_vectorized() {
  using S = kernels::VectorizedSchedule<BM, BN, BK, TM, TN>;
  const std::string name = "05:" + std::to_string(BM) + "x" + std::to_string(BN) + "x" + std::to_string(BK) +
                           "_t" + std::to_string(TM) + "x" + std::to_string(TN);
  return {name, S::kThreads, S::kSmemBytes, &launch_vectorized_nn<S>};
}

}  // namespace

const std::vector<WarpTiledCandidate>& warp_tiled_candidates() {
  static const std::vector<WarpTiledCandidate> list = {
      make<256, 128, 8, 64, 64, 8, 16, 4, 1, 0>(),                  // seed 004's schedule
      // The library's two (src/dense/warp_tiled_default.hpp; k-contiguous operands transposed into
      // [k][col] tiles), compiled for every op combination; then the former defaults, which kept
      // them as [col][k] tiles (perf note #16).
      make<128, 256, 32, 64, 64, 16, 8, 4, 1, 3, true, true>(),     // Large
      make<128, 128, 16, 64, 32, 8, 8, 4, 2, 3, true, true>(),      // Small (2 blocks per SM)
      make<256, 128, 16, 64, 64, 16, 8, 4, 1, 3, true>(),           // session 3's first unaligned pick
      make<128, 256, 32, 64, 64, 16, 8, 3, 1, 3>(),
      make<256, 128, 16, 64, 64, 16, 8, 4, 1, 2>(),
      // Around the transposing schedules.
      make<128, 256, 32, 64, 64, 16, 8, 3, 1, 3, true>(),
      make<128, 256, 32, 64, 64, 16, 8, 4, 1, 4, true>(),
      make<128, 128, 32, 64, 32, 8, 8, 3, 2, 3, true>(),
      make<128, 128, 16, 64, 32, 8, 8, 5, 2, 3, true>(),
      make_vectorized<128, 128, 8, 8, 8>(),                         // level 5's default
  };
  return list;
}

}  // namespace detail
}  // namespace tilegemm
