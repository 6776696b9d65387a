// The level-6 schedules compiled into the library (measured choices: docs/perf-notes.md #16-#17).
#pragma once
#include "kernels/gemm/06_warp_tiled.cuh"

namespace tilegemm {
namespace detail {

// Both transpose operands contiguous along k into [k][col] tiles with 4-byte copies (perf note #16:
// [col][k] fragments cost 4 * TM registers and left the kernel at 255).
//
// Large tiles, one block per SM: the fastest per tile when every operand copied as-is (contiguous
// along m or n) is 16-byte aligned. H100: 4096^3 0.942x cuBLAS, 8192^3 0.944x.
//                                              BM   BN  BK  WM  WN  TM  TN  stages blocks order transpose
using WarpTiledLarge = kernels::WarpTiledSchedule<128, 256, 32, 64, 64, 16, 8, 4, 1, 3, true>;
// Half the tile, two blocks per SM (<= 128 registers, no spills): 4-byte copies cost it less, and
// finer tiles quantize into waves better. H100: 4095x4097x4093 0.933x (Large: 0.713x, 4.1 waves).
using WarpTiledSmall = kernels::WarpTiledSchedule<128, 128, 16, 64, 32, 8, 8, 4, 2, 3, true>;

// Per-tile speed relative to cuBLAS when a wave is full, from the H100 measurements above (ratio /
// wave efficiency); the launcher multiplies by each schedule's wave efficiency on the problem.
constexpr double kLargeAlignedRate = 0.97, kLargeUnalignedRate = 0.87, kSmallRate = 0.92;

}  // namespace detail
}  // namespace tilegemm
