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
      using A = WarpTiledAligned;
      using U = WarpTiledUnaligned;  // mixed alignment keeps 16-byte copies for the aligned operand
      if (g.vec_a && g.vec_b) launch_warp_tiled_kernel<A, kTA, kTB, true, true>(g.p, stream);
      else if (g.vec_a) launch_warp_tiled_kernel<U, kTA, kTB, true, false>(g.p, stream);
      else if (g.vec_b) launch_warp_tiled_kernel<U, kTA, kTB, false, true>(g.p, stream);
      else launch_warp_tiled_kernel<U, kTA, kTB, false, false>(g.p, stream);
    });
  });
}

}  // namespace detail
}  // namespace tilegemm
