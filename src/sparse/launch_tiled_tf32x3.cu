// Kernel 04's default schedules (kBsrSchedules[5 .. 10]) for every product.
#include <type_traits>

#include "sparse/launch_tiled.cuh"

namespace tilegemm {
namespace detail {

namespace {
constexpr int kFirst = 5, kCount = 6;
static_assert(kFirst + kCount == kFirstBsrCandidate);
static_assert(std::is_same_v<CompiledSchedule<5>::type, kernels::BsrMma64K32> &&
              std::is_same_v<CompiledSchedule<6>::type, kernels::BsrMma64K32Short> &&
              std::is_same_v<CompiledSchedule<7>::type, kernels::BsrMma64> &&
              std::is_same_v<CompiledSchedule<8>::type, kernels::BsrMma32K32> &&
              std::is_same_v<CompiledSchedule<9>::type, kernels::BsrMma32> &&
              std::is_same_v<CompiledSchedule<10>::type, kernels::BsrMma16>,
              "kernel 04's defaults are kBsrSchedules[5 .. 10]");
}  // namespace

BsrTiledKernel tf32x3_default_kernel(int index, bool xwt, bool vec) {
  return kernel_in<kFirst>(index, xwt, vec, std::make_integer_sequence<int, kCount>{});
}

}  // namespace detail
}  // namespace tilegemm
