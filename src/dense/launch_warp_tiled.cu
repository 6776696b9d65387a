// Level 6: picks the schedule by operand alignment (docs/perf-notes.md has the measurements).
#include "dense/launch_warp_tiled.cuh"
#include "dense/warp_tiled_default.hpp"

namespace tilegemm {
namespace detail {

namespace {

static_assert(WarpTiledAligned::kTransposeK && WarpTiledUnaligned::kTransposeK,
              "the launcher assumes operands contiguous along k are transposed (copy width unused)");

// Operands contiguous along k go through the transposing 4-byte copy; only the others (A^T, B) can
// use 16-byte copies.
bool copies_as_is_aligned(const CanonicalGemm& g) {
  return (!g.trans_a || g.vec_a) && (g.trans_b || g.vec_b);
}

}  // namespace

long long warp_tiled_tiles(const CanonicalGemm& g) {
  return copies_as_is_aligned(g) ? warp_tiled_grid<WarpTiledAligned>(g.p)
                                 : warp_tiled_grid<WarpTiledUnaligned>(g.p);
}

void launch_warp_tiled(const CanonicalGemm& g, cudaStream_t stream) {
  with_bool(g.trans_a, [&](auto ta) {
    with_bool(g.trans_b, [&](auto tb) {
      constexpr bool kTA = decltype(ta)::value, kTB = decltype(tb)::value;
      // The copy-width flag of a transposed operand is unused: fixed to false (one instantiation).
      constexpr bool kAsIsA = kTA, kAsIsB = !kTB;
      if (copies_as_is_aligned(g)) {
        launch_warp_tiled_kernel<WarpTiledAligned, kTA, kTB, kAsIsA, kAsIsB>(g.p, stream);
        return;
      }
      // Mixed alignment keeps 16-byte copies for an aligned as-is operand.
      with_bool(kAsIsA && g.vec_a, [&](auto va) {
        with_bool(kAsIsB && g.vec_b, [&](auto vb) {
          constexpr bool kVA = decltype(va)::value, kVB = decltype(vb)::value;
          if constexpr ((kAsIsA || !kVA) && (kAsIsB || !kVB))
            launch_warp_tiled_kernel<WarpTiledUnaligned, kTA, kTB, kVA, kVB>(g.p, stream);
        });
      });
    });
  });
}

}  // namespace detail
}  // namespace tilegemm
