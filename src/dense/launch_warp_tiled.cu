// Level 6: picks the schedule by operand alignment and wave quantization (docs/perf-notes.md #17).
#include "dense/launch_warp_tiled.cuh"
#include "dense/warp_tiled_default.hpp"

namespace tilegemm {
namespace detail {

namespace {

static_assert(WarpTiledLarge::kTransposeK && WarpTiledSmall::kTransposeK,
              "the launcher assumes operands contiguous along k are transposed (copy width unused)");

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

template <class S>
void launch_schedule(const CanonicalGemm& g, cudaStream_t stream) {
  with_bool(g.trans_a, [&](auto ta) {
    with_bool(g.trans_b, [&](auto tb) {
      constexpr bool kTA = decltype(ta)::value, kTB = decltype(tb)::value;
      // Only operands copied as-is (A^T, B) have a copy width; the transposed ones' flag is unused
      // and fixed to false (one instantiation).
      constexpr bool kAsIsA = kTA, kAsIsB = !kTB;
      with_bool(kAsIsA && g.vec_a, [&](auto va) {
        with_bool(kAsIsB && g.vec_b, [&](auto vb) {
          constexpr bool kVA = decltype(va)::value, kVB = decltype(vb)::value;
          if constexpr ((kAsIsA || !kVA) && (kAsIsB || !kVB))
            launch_warp_tiled_kernel<S, kTA, kTB, kVA, kVB>(g.p, stream);
        });
      });
    });
  });
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
  plan.tiles = plan.large ? large_tiles : small_tiles;
  return plan;
}

void launch_warp_tiled(const CanonicalGemm& g, const WarpTiledPlan& plan, cudaStream_t stream) {
  if (plan.large) launch_schedule<WarpTiledLarge>(g, stream);
  else launch_schedule<WarpTiledSmall>(g, stream);
}

}  // namespace detail
}  // namespace tilegemm
