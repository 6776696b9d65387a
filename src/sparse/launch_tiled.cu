// Kernel 03's default schedules (kBsrSchedules[0 .. 4]) for every product.
#include <type_traits>

#include "sparse/launch_tiled.cuh"

namespace tilegemm {
namespace detail {

namespace {
constexpr int kFirst = 0, kCount = 5;
static_assert(kBsrSchedules[kFirst].family == BsrFamily::Tiled && kBsrSchedules[kFirst + kCount - 1].family == BsrFamily::Tiled &&
                  kBsrSchedules[kFirst + kCount].family != BsrFamily::Tiled,
              "kernel 03's defaults are kBsrSchedules[0 .. 4]");
// The table names the schedules the kernel header documents.
static_assert(std::is_same_v<CompiledSchedule<0>::type, kernels::BsrTiled64K32> &&
              std::is_same_v<CompiledSchedule<1>::type, kernels::BsrTiled64> &&
              std::is_same_v<CompiledSchedule<2>::type, kernels::BsrTiled32> &&
              std::is_same_v<CompiledSchedule<3>::type, kernels::BsrTiled16> &&
              std::is_same_v<CompiledSchedule<4>::type, kernels::BsrTiled8>);
}  // namespace

BsrTiledKernel tiled_default_kernel(int index, bool xwt, bool vec) {
  return kernel_in<kFirst>(index, xwt, vec, std::make_integer_sequence<int, kCount>{});
}

}  // namespace detail
}  // namespace tilegemm
