// Not a ladder level: level 6's warp-tiled block (WarpTiledBlock) or level 7's tensor-core block
// (MmaTf32x3Block, for schedules with kMma) under a tile scheduler that can cut
// the K range of tiles into slices computed by different thread blocks (params.hpp,
// SplitTileParams), for the shapes where whole tiles leave the GPU idle:
//   - split-K: few output tiles and a long K (64x64x65536 is one 64x64 tile: one SM of 132);
//   - stream-K-style hybrid: whole waves of tiles data parallel, then the tiles of the last, partial
//     wave split so that they fill it (3072^3 in 128x256 tiles is 2.2 waves: 3 waves' time);
//   - no split at all: the plain tiled kernel at any of the compiled tile sizes.
// The slices of a tile are summed in slice order (kernels/common/split_k.cuh): deterministic.
// Measured (H100): docs/shapes.md.
// Build and run: bash scripts/build.sh && build/tilegemm bench --preset models --kernels auto
#pragma once
#include "kernels/gemm/06_warp_tiled.cuh"
#include "kernels/gemm/07_mma_tf32x3.cuh"
#include "kernels/common/pick_type.hpp"
#include "kernels/common/split_k.cuh"

namespace tilegemm {
namespace kernels {

// The block a schedule runs: level 7's for tensor-core schedules, else level 6's.
template <class S, bool kTransA, bool kTransB, bool kVecA, bool kVecB>
using TiledBlock = typename PickType<S::kMma, MmaTf32x3Block<S, kTransA, kTransB, kVecA, kVecB>,
                                     WarpTiledBlock<S, kTransA, kTransB, kVecA, kVecB>>::type;

// Launch bounds as level 6's: a register cap instead (__maxnreg__ 200) measured 5 % slower for the
// 128x256 schedule (perf note #19). Launches with no split tile run level 6's (or 7's) own kernel
// instead (launch_split_tiled.cuh): its whole-tile epilogue leaves the main loop its registers.

template <class S, bool kTransA, bool kTransB, bool kVecA, bool kVecB>
__global__ void __launch_bounds__(S::kThreads, S::kMinBlocksPerSm)
    gemm_split_tiled(GemmParams p, SplitTileParams sp) {
  using Block = TiledBlock<S, kTransA, kTransB, kVecA, kVecB>;
  constexpr int kAcc = Block::kAccCount;
  float* const smem = dynamic_smem<float>();
  const int tiles_m = (p.m + S::kBlockM - 1) / S::kBlockM, tiles_n = (p.n + S::kBlockN - 1) / S::kBlockN;
  const int k_tiles = (p.k + S::kBlockK - 1) / S::kBlockK;
  int tile = blockIdx.x, slice = -1, kt_begin = 0, kt_end = k_tiles;
  if (tile >= sp.dp_tiles) {  // one slice of a split tile; the slices of a tile are adjacent blocks
    const int unit = tile - sp.dp_tiles;
    tile = sp.dp_tiles + unit / sp.splits;
    slice = unit % sp.splits;
    kt_begin = slice * sp.slice_k_tiles;
    kt_end = kt_begin + sp.slice_k_tiles < k_tiles ? kt_begin + sp.slice_k_tiles : k_tiles;
  }
  const TileCoord coord = tile_for_block(p.raster, tiles_m, tiles_n, tile);
  const int m0 = coord.m * S::kBlockM, n0 = coord.n * S::kBlockN;
  typename Block::Acc acc = {};
  float(&values)[kAcc] = reinterpret_cast<float(&)[kAcc]>(acc);
  if (sp.operands_packed) griddep_wait();  // A or B comes from the prologue's copies
  Block::mainloop(p, smem, m0, n0, kt_begin, kt_end, acc);
  griddep_wait();  // every block, before it ends (kernels/common/griddep.cuh); the split sum counts after it
  if (slice >= 0) {
    const long long split_tile = tile - sp.dp_tiles;
    float* partials = sp.partials + split_tile * sp.splits * (S::kBlockM * S::kBlockN);
    unsigned* counters = sp.counters + split_tile * split_k_counters(sp.splits, sp.group);
    if (!split_k_reduce<kAcc, S::kThreads, Block::kSumChunk, Block::kSumSlices>(values, partials, counters, slice, sp.splits, sp.group))
      return;
  }
  Block::store(p, smem, m0, n0, acc);
}

}  // namespace kernels
}  // namespace tilegemm
