// The split-K / stream-K kernel (split_tiled.cuh), or level 6's kernel when nothing is split, for
// compiled schedule kTiledSchedules[I]: each
// launch_split_tiled_*.cu instantiates some of the indices (split over files so they compile in
// parallel); launch_split_tiled.cu dispatches an index to them.
#pragma once
#include "core/pick_type.hpp"
#include "dense/config.hpp"
#include "dense/kernels/split_tiled.cuh"
#include "tilegemm/error.hpp"
#include "dense/launch_warp_tiled.cuh"

namespace tilegemm {
namespace detail {

template <int I>
using FfmaScheduleAt =
    kernels::WarpTiledSchedule<kTiledSchedules[I].bm, kTiledSchedules[I].bn, kTiledSchedules[I].bk,
                               kTiledSchedules[I].wm, kTiledSchedules[I].wn, kTiledSchedules[I].tm,
                               kTiledSchedules[I].tn, kTiledSchedules[I].stages, kTiledSchedules[I].blocks,
                               /*FMA order*/ 3, /*transpose k-contiguous operands*/ true>;
template <int I>
using MmaScheduleAt =
    kernels::MmaTf32x3Schedule<kTiledSchedules[I].bm, kTiledSchedules[I].bn, kTiledSchedules[I].bk,
                               kTiledSchedules[I].wm, kTiledSchedules[I].wn, kTiledSchedules[I].stages,
                               kTiledSchedules[I].blocks, (kTiledSchedules[I].mma > 0 ? kTiledSchedules[I].mma : 1)>;
template <int I>
using TiledScheduleAt = typename PickType<(kTiledSchedules[I].mma > 0), MmaScheduleAt<I>, FfmaScheduleAt<I>>::type;

// Level 7's schedules copy both operands as-is (tiles keep the operands' orientation): 16-byte copies
// where an operand is aligned, 4-byte copies where not. 16 instantiations per schedule.
template <class Launch>
void with_mma_variant(const CanonicalGemm& g, const Launch& launch) {
  with_bool(g.trans_a, [&](auto ta) {
    with_bool(g.trans_b, [&](auto tb) {
      with_bool(g.vec_a, [&](auto va) {
        with_bool(g.vec_b, [&](auto vb) {
          launch.template run<decltype(ta)::value, decltype(tb)::value, decltype(va)::value, decltype(vb)::value>();
        });
      });
    });
  });
}

template <class S>
struct SplitTiledLaunch {
  const CanonicalGemm& g;
  const kernels::SplitTileParams& sp;
  long long units;
  cudaStream_t stream;
  bool after_prologue;
  template <bool kTA, bool kTB, bool kVA, bool kVB>
  void run() const {
    auto kernel = kernels::gemm_split_tiled<S, kTA, kTB, kVA, kVB>;
    ensure_smem_opt_in(kernel, S::kSmemBytes);
    launch_kernel(kernel, dim3(static_cast<unsigned>(units)), dim3(S::kThreads), S::kSmemBytes, stream, after_prologue,
                  g.p, sp);
  }
};

template <int I>
void launch_split_tiled_at(const CanonicalGemm& g, const kernels::SplitTileParams& sp, long long units,
                           cudaStream_t stream, bool after_prologue) {
  using S = TiledScheduleAt<I>;
  static_assert(S::kSmemBytes == kTiledSchedules[I].smem_bytes() && S::kThreads == kTiledSchedules[I].threads(),
                "config.hpp's TileShape helpers must agree with the schedule");
  const bool whole = sp.dp_tiles == units;  // no tile split: level 6's (7's) kernel, no split epilogue
  if constexpr (S::kMma) {
    if (whole) with_mma_variant(g, WarpTiledLaunch<S>{g, stream, after_prologue});
    else with_mma_variant(g, SplitTiledLaunch<S>{g, sp, units, stream, after_prologue});
  } else {
    if (whole) with_warp_tiled_variant(g, WarpTiledLaunch<S>{g, stream, after_prologue});
    else with_warp_tiled_variant(g, SplitTiledLaunch<S>{g, sp, units, stream, after_prologue});
  }
}

}  // namespace detail
}  // namespace tilegemm
