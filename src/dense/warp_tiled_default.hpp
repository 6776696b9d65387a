// The level-6 schedules compiled into the library (measured choices: docs/perf-notes.md).
#pragma once
#include "dense/kernels/06_warp_tiled.cuh"

namespace tilegemm {
namespace detail {

// Both operands 16-byte aligned: 0.88x cuBLAS at 4096^3, 0.89x at 8192^3 (H200 and H100). FMA order
// 3 (2-row snake bands): 0.879x / 0.886x on the H100 against 0.872x / 0.886x for the zig-zag order 2.
//                                                  BM   BN  BK  WM  WN  TM  TN  stages blocks order
using WarpTiledAligned = kernels::WarpTiledSchedule<128, 256, 32, 64, 64, 16, 8, 3, 1, 3>;
// Any other alignment (4-byte copies): 0.88x cuBLAS at 4095x4097x4093, where the aligned schedule
// reaches only 0.71x.
using WarpTiledUnaligned = kernels::WarpTiledSchedule<256, 128, 16, 64, 64, 16, 8, 4>;

}  // namespace detail
}  // namespace tilegemm
