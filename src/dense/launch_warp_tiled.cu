// Level 6: picks the schedule by operand alignment and wave quantization (docs/perf-notes.md #17).
#include "core/device_checks.hpp"
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
double wave_efficiency(const CanonicalGemm& g, int sms) {
  const long long tiles = warp_tiled_grid<S>(g.p);
  const long long slots = static_cast<long long>(sms) * S::kMinBlocksPerSm;
  const long long waves = (tiles + slots - 1) / slots;
  return waves > 0 ? static_cast<double>(tiles) / static_cast<double>(waves * slots) : 1.0;
}

bool use_large(const CanonicalGemm& g) {
  const int sms = current_sm_count();
  const double large = (copies_as_is_aligned(g) ? kLargeAlignedRate : kLargeUnalignedRate) *
                       wave_efficiency<WarpTiledLarge>(g, sms);
  return large >= kSmallRate * wave_efficiency<WarpTiledSmall>(g, sms);
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

long long warp_tiled_tiles(const CanonicalGemm& g) {
  return use_large(g) ? warp_tiled_grid<WarpTiledLarge>(g.p) : warp_tiled_grid<WarpTiledSmall>(g.p);
}

void launch_warp_tiled(const CanonicalGemm& g, cudaStream_t stream) {
  if (use_large(g)) launch_schedule<WarpTiledLarge>(g, stream);
  else launch_schedule<WarpTiledSmall>(g, stream);
}

}  // namespace detail
}  // namespace tilegemm
