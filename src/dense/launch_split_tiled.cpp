// Dispatches a compiled schedule's index and transpose pair to its instantiation (one generated file
// each, CMakeLists.txt).
#include <array>
#include <string>
#include <utility>

#include "dense/config.hpp"
#include "kernels/gemm/params.hpp"
#include "dense/launch.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

template <int I, bool kTA, bool kTB>
void launch_split_tiled_ops(const CanonicalGemm& g, const kernels::SplitTileParams& sp, long long units,
                            cudaStream_t stream, bool after_prologue);

// CMakeLists.txt generates one file per schedule and transpose pair (TILEGEMM_TILED_SCHEDULES of them).
static_assert(kNumTiledSchedules == TILEGEMM_TILED_SCHEDULES,
              "CMakeLists.txt's TILEGEMM_TILED_SCHEDULES must count config.hpp's kTiledSchedules");

namespace {
using Launch = void (*)(const CanonicalGemm&, const kernels::SplitTileParams&, long long, cudaStream_t, bool);
using TransposeLaunches = std::array<Launch, 4>;  // NN, NT, TN, TT
template <int I>
constexpr TransposeLaunches launches_of() {
  return {&launch_split_tiled_ops<I, false, false>, &launch_split_tiled_ops<I, false, true>,
          &launch_split_tiled_ops<I, true, false>, &launch_split_tiled_ops<I, true, true>};
}
template <int... I>
constexpr auto launch_table(std::integer_sequence<int, I...>) {
  return std::array<TransposeLaunches, sizeof...(I)>{launches_of<I>()...};
}
}  // namespace

void launch_split_tiled(int index, const CanonicalGemm& g, const kernels::SplitTileParams& sp, long long units,
                        cudaStream_t stream, bool after_prologue) {
  static const auto table = launch_table(std::make_integer_sequence<int, kNumTiledSchedules>());
  if (index < 0 || index >= kNumTiledSchedules)
    throw Error(ErrorCode::Internal, "launch_split_tiled: no compiled schedule " + std::to_string(index));
  table[index][(g.trans_a ? 2 : 0) + (g.trans_b ? 1 : 0)](g, sp, units, stream, after_prologue);
}

}  // namespace detail
}  // namespace tilegemm
