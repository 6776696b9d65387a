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
BsrTiledKernel compiled_kernel() {
  using C = CompiledSchedule<I>;
  using S = typename C::type;
  return BsrTiledKernel{reinterpret_cast<const void*>(C::Family::template kernel<kXwt, kVec>), S::kThreads,
                        S::template smem_bytes<kXwt>(), S::kTileI, S::kTileJ};
}

template <int I>
BsrTiledKernel kernel_at(bool xwt, bool vec) {
  if constexpr (kBsrSchedules[I].every_product) {
    if (xwt) return vec ? compiled_kernel<I, true, true>() : compiled_kernel<I, true, false>();
    return vec ? compiled_kernel<I, false, true>() : compiled_kernel<I, false, false>();
  } else {
    return xwt && vec ? compiled_kernel<I, true, true>() : BsrTiledKernel{};
  }
}

// The kernel of entry `index` among First .. First + sizeof...(I) - 1 (fn == nullptr outside).
template <int First, int... I>
BsrTiledKernel kernel_in(int index, bool xwt, bool vec, std::integer_sequence<int, I...>) {
  BsrTiledKernel k;
  ((index == First + I ? (void)(k = kernel_at<First + I>(xwt, vec)) : (void)0), ...);
  return k;
}

}  // namespace detail
}  // namespace tilegemm
