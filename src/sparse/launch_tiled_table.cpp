// Dispatches a compiled BSR schedule's index to its instantiation (one generated file per entry of
// kBsrSchedules: src/sparse/CMakeLists.txt, launch_tiled.cuh). Host code only: it sees the
// instantiations' declaration, not their kernels.
#include <array>
#include <utility>

#include "sparse/config.hpp"
#include "sparse/launch.hpp"

namespace tilegemm {
namespace detail {

template <int I>
BsrTiledKernel kernel_at(bool xwt, bool vec);  // launch_tiled.cuh, instantiated in schedule_<I>.cu

static_assert(kNumBsrSchedules == TILEGEMM_BSR_SCHEDULES,
              "src/sparse/CMakeLists.txt's TILEGEMM_BSR_SCHEDULES must count kBsrSchedules");

namespace {
using KernelOf = BsrTiledKernel (*)(bool, bool);
template <int... I>
constexpr std::array<KernelOf, sizeof...(I)> kernel_table(std::integer_sequence<int, I...>) {
  return {&kernel_at<I>...};
}
}  // namespace

BsrTiledKernel compiled_bsr_kernel(int index, bool xwt, bool vec) {
  static constexpr auto table = kernel_table(std::make_integer_sequence<int, kNumBsrSchedules>());
  if (index < 0 || index >= kNumBsrSchedules) return {};
  return table[index](xwt, vec);
}

}  // namespace detail
}  // namespace tilegemm
