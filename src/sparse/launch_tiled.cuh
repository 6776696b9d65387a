// The ahead-of-time instantiations of the tiled BSR kernels: 03 (CUDA cores, BsrTiledSchedule) and
// 04 (tensor cores, BsrMmaSchedule), one per entry of kBsrSchedules (sparse/config.hpp) and product.
// Included by the files that instantiate a range of the table (launch_tiled.cu,
// launch_tiled_tf32x3.cu, tiled_candidates.cu), so the ranges compile in parallel.
#pragma once
#include <utility>

#include "sparse/config.hpp"
#include "sparse/kernels/03_tiled.cuh"
#include "sparse/kernels/04_tiled_tf32x3.cuh"
#include "sparse/launch.hpp"

namespace tilegemm {
namespace detail {

// The schedule type and kernel of kBsrSchedules[I].
template <int I>
struct CompiledSchedule {
  static constexpr CompiledBsrSchedule entry = kBsrSchedules[I];
  static constexpr BsrTile t = entry.tile;
  template <BsrFamily F, int = 0>
  struct Pick {
    using type = kernels::BsrTiledSchedule<t.ti, t.tj, t.a, t.b, t.kc, t.stages>;
    template <bool kXwt, bool kVec>
    static constexpr auto kernel = kernels::bsr_tiled<type, kXwt, kVec>;
  };
  template <int Dummy>
  struct Pick<BsrFamily::TiledTf32x3, Dummy> {
    using type = kernels::BsrMmaSchedule<t.ti, t.tj, t.a, t.b, t.kc, t.stages>;
    template <bool kXwt, bool kVec>
    static constexpr auto kernel = kernels::bsr_tiled_tf32x3<type, kXwt, kVec>;
  };
  using Family = Pick<entry.family>;
  using type = typename Family::type;
};

template <int I, bool kXwt, bool kVec>
void launch_compiled(const BsrProblem& prob, cudaStream_t stream) {
  using C = CompiledSchedule<I>;
  using S = typename C::type;
  const auto kernel = C::Family::template kernel<kXwt, kVec>;
  launch_bsr_tiled_at(prob, reinterpret_cast<const void*>(kernel), S::kThreads, S::template smem_bytes<kXwt>(),
                      S::kTileI, S::kTileJ, stream);
}

template <int I>
BsrLaunchFn launcher_at(bool xwt, bool vec) {
  if constexpr (kBsrSchedules[I].every_product) {
    if (xwt) return vec ? &launch_compiled<I, true, true> : &launch_compiled<I, true, false>;
    return vec ? &launch_compiled<I, false, true> : &launch_compiled<I, false, false>;
  } else {
    return xwt && vec ? &launch_compiled<I, true, true> : nullptr;
  }
}

// The launcher of entry `index` among First .. First + sizeof...(I) - 1 (nullptr outside).
template <int First, int... I>
BsrLaunchFn launcher_in(int index, bool xwt, bool vec, std::integer_sequence<int, I...>) {
  BsrLaunchFn f = nullptr;
  ((index == First + I ? (void)(f = launcher_at<First + I>(xwt, vec)) : (void)0), ...);
  return f;
}

}  // namespace detail
}  // namespace tilegemm
