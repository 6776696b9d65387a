// Level 6: picks the schedule by operand alignment and wave quantization (docs/perf-notes.md #17).
#include <type_traits>

#include "dense/launch_warp_tiled.cuh"
#include "dense/launch_split_tiled.cuh"
#include "dense/warp_tiled_default.hpp"

namespace tilegemm {
namespace detail {

// The chooser's first two compiled schedules are level 6's own (one instantiation serves both).
static_assert(std::is_same_v<WarpTiledLarge, TiledScheduleAt<0>>, "kTiledSchedules[0] is level 6's Large schedule");
static_assert(std::is_same_v<WarpTiledSmall, TiledScheduleAt<1>>, "kTiledSchedules[1] is level 6's Small schedule");

namespace {

// Operands contiguous along k go through the transposing 4-byte copy; only the others (A^T, B) can
// use 16-byte copies.
bool copies_as_is_aligned(const CanonicalGemm& g) {
  return (!g.trans_a || g.vec_a) && (g.trans_b || g.vec_b);
}

// Fraction of the launched block slots doing work: tiles / (waves * slots per wave).
template <class S>
double wave_efficiency(long long tiles, int sms) {
  const long long slots = static_cast<long long>(sms) * S::kMinBlocksPerSm;
  const long long waves = (tiles + slots - 1) / slots;
  return waves > 0 ? static_cast<double>(tiles) / static_cast<double>(waves * slots) : 1.0;
}

}  // namespace

WarpTiledPlan plan_warp_tiled(const CanonicalGemm& g, int sms) {
  const long long large_tiles = warp_tiled_grid<WarpTiledLarge>(g.p);
  const long long small_tiles = warp_tiled_grid<WarpTiledSmall>(g.p);
  const double large = (copies_as_is_aligned(g) ? kLargeAlignedRate : kLargeUnalignedRate) *
                       wave_efficiency<WarpTiledLarge>(large_tiles, sms);
  const double small = kSmallRate * wave_efficiency<WarpTiledSmall>(small_tiles, sms);
  WarpTiledPlan plan;
  plan.large = large >= small;
  return plan;
}

void launch_warp_tiled(const CanonicalGemm& g, const WarpTiledPlan& plan, cudaStream_t stream) {
  if (plan.large) launch_warp_tiled_schedule<WarpTiledLarge>(g, stream);
  else launch_warp_tiled_schedule<WarpTiledSmall>(g, stream);
}

}  // namespace detail
}  // namespace tilegemm
