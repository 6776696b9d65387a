// Level 6: picks the schedule by operand alignment (docs/perf-notes.md has the measurements).
#include "dense/launch_warp_tiled.cuh"
#include "dense/warp_tiled_default.hpp"

namespace tilegemm {
namespace detail {

long long warp_tiled_tiles(const CanonicalGemm& g) {
  return g.vec_a && g.vec_b ? warp_tiled_grid<WarpTiledAligned>(g.p)
                             : warp_tiled_grid<WarpTiledUnaligned>(g.p);
}

void launch_warp_tiled(const CanonicalGemm& g, cudaStream_t stream) {
  with_bool(g.trans_a, [&](auto ta) {
    with_bool(g.trans_b, [&](auto tb) {
      constexpr bool kTA = decltype(ta)::value, kTB = decltype(tb)::value;
      if (g.vec_a && g.vec_b) {
        launch_warp_tiled_kernel<WarpTiledAligned, kTA, kTB, true, true>(g.p, stream);
        return;
      }
      // Mixed alignment keeps 16-byte copies for the aligned operand.
      with_bool(g.vec_a, [&](auto va) {
        with_bool(g.vec_b, [&](auto vb) {
          launch_warp_tiled_kernel<WarpTiledUnaligned, kTA, kTB, decltype(va)::value,
                                   decltype(vb)::value>(g.p, stream);
        });
      });
    });
  });
}

}  // namespace detail
}  // namespace tilegemm
