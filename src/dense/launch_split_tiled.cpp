// Dispatches a compiled schedule's index to its instantiation (launch_split_tiled_*.cu).
#include <array>
#include <string>
#include <utility>

#include "dense/config.hpp"
#include "dense/kernels/params.hpp"
#include "dense/launch.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

template <int I>
void launch_split_tiled_at(const CanonicalGemm& g, const kernels::SplitTileParams& sp, long long units,
                           cudaStream_t stream, bool after_prologue);

namespace {
using Launch = void (*)(const CanonicalGemm&, const kernels::SplitTileParams&, long long, cudaStream_t, bool);
template <int... I>
constexpr auto launch_table(std::integer_sequence<int, I...>) {
  return std::array<Launch, sizeof...(I)>{&launch_split_tiled_at<I>...};
}
}  // namespace

void launch_split_tiled(int index, const CanonicalGemm& g, const kernels::SplitTileParams& sp, long long units,
                        cudaStream_t stream, bool after_prologue) {
  static const auto table = launch_table(std::make_integer_sequence<int, kNumTiledSchedules>());
  if (index < 0 || index >= kNumTiledSchedules)
    throw Error(ErrorCode::Internal, "launch_split_tiled: no compiled schedule " + std::to_string(index));
  table[index](g, sp, units, stream, after_prologue);
}

}  // namespace detail
}  // namespace tilegemm
