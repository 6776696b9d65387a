// The ahead-of-time instantiations of the tiled BSR kernels: 03 (CUDA cores, BsrTiledSchedule) and
// 04 (tensor cores, BsrMmaSchedule), one per entry of kBsrSchedules (sparse/config.hpp) and product.
// CMake generates one file per entry that instantiates kernel_at<I> (src/sparse/CMakeLists.txt), so
// that each schedule's kernels are a module of their own: the first product of a process loads only
// the one it runs (perf note #67); launch_tiled_table.cpp dispatches an index to them.
#pragma once
#include <type_traits>

#include "sparse/config.hpp"
#include "kernels/bsr/03_tiled.cuh"
#include "kernels/bsr/04_tiled_tf32x3.cuh"
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

// The defaults are the schedules the kernel headers document (their aliases).
static_assert(std::is_same_v<CompiledSchedule<0>::type, kernels::BsrTiled64K32> &&
              std::is_same_v<CompiledSchedule<1>::type, kernels::BsrTiled64> &&
              std::is_same_v<CompiledSchedule<2>::type, kernels::BsrTiled32> &&
              std::is_same_v<CompiledSchedule<3>::type, kernels::BsrTiled16> &&
              std::is_same_v<CompiledSchedule<4>::type, kernels::BsrTiled8>,
              "kernel 03's defaults are kBsrSchedules[0 .. 4]");
static_assert(std::is_same_v<CompiledSchedule<5>::type, kernels::BsrMma64K32> &&
              std::is_same_v<CompiledSchedule<6>::type, kernels::BsrMma64K32Short> &&
              std::is_same_v<CompiledSchedule<7>::type, kernels::BsrMma64> &&
              std::is_same_v<CompiledSchedule<8>::type, kernels::BsrMma32K32> &&
              std::is_same_v<CompiledSchedule<9>::type, kernels::BsrMma32> &&
              std::is_same_v<CompiledSchedule<10>::type, kernels::BsrMma16>,
              "kernel 04's defaults are kBsrSchedules[5 .. 10]");

}  // namespace detail
}  // namespace tilegemm
