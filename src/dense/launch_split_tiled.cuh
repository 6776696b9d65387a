// The split-K / stream-K kernel (split_tiled.cuh), or level 6's kernel when nothing is split, for
// compiled schedule kTiledSchedules[I]: each
// launch_split_tiled_*.cu instantiates some of the indices (split over files so they compile in
// parallel); launch_split_tiled.cu dispatches an index to them.
#pragma once
#include "dense/config.hpp"
#include "dense/kernels/split_tiled.cuh"
#include "dense/launch_warp_tiled.cuh"

namespace tilegemm {
namespace detail {

template <int I>
using TiledScheduleAt =
    kernels::WarpTiledSchedule<kTiledSchedules[I].bm, kTiledSchedules[I].bn, kTiledSchedules[I].bk,
                               kTiledSchedules[I].wm, kTiledSchedules[I].wn, kTiledSchedules[I].tm,
                               kTiledSchedules[I].tn, kTiledSchedules[I].stages, kTiledSchedules[I].blocks,
                               /*FMA order*/ 3, /*transpose k-contiguous operands*/ true>;

template <class S>
struct SplitTiledLaunch {
  const CanonicalGemm& g;
  const kernels::SplitTileParams& sp;
  long long units;
  cudaStream_t stream;
  template <bool kTA, bool kTB, bool kVA, bool kVB>
  void run() const {
    auto kernel = kernels::gemm_split_tiled<S, kTA, kTB, kVA, kVB>;
    ensure_smem_opt_in(kernel, S::kSmemBytes);
    kernel<<<static_cast<unsigned>(units), S::kThreads, S::kSmemBytes, stream>>>(g.p, sp);
    TILEGEMM_CHECK_LAUNCH();
  }
};

template <int I>
void launch_split_tiled_at(const CanonicalGemm& g, const kernels::SplitTileParams& sp, long long units,
                           cudaStream_t stream) {
  using S = TiledScheduleAt<I>;
  static_assert(S::kSmemBytes == kTiledSchedules[I].smem_bytes() && S::kThreads == kTiledSchedules[I].threads(),
                "config.hpp's TileShape helpers must agree with the schedule");
  if (sp.dp_tiles == units) {  // no tile split: level 6's kernel (launch bounds as the split kernel's, no split epilogue)
    with_warp_tiled_variant(g, WarpTiledLaunch<S>{g, stream});
    return;
  }
  with_warp_tiled_variant(g, SplitTiledLaunch<S>{g, sp, units, stream});
}

}  // namespace detail
}  // namespace tilegemm
