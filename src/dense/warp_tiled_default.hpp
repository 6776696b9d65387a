// The level-6 schedules compiled into the library (measured choices: docs/perf-notes.md).
#pragma once
#include "dense/kernels/06_warp_tiled.cuh"

namespace tilegemm {
namespace detail {

// Both schedules transpose operands contiguous along k into [k][col] tiles with 4-byte copies
// (perf note #16: the [col][k] fragments cost 4 * TM registers and left the kernel at 255).
//
// Every operand copied as-is (contiguous along m or n) 16-byte aligned: H100, 4096^3 0.938x cuBLAS,
// 8192^3 0.943x (the same schedule without the transposing copy: 0.879x / 0.884x).
//                                                  BM   BN  BK  WM  WN  TM  TN  stages blocks order transpose
using WarpTiledAligned = kernels::WarpTiledSchedule<128, 256, 32, 64, 64, 16, 8, 4, 1, 3, true>;
// Otherwise (4-byte copies everywhere): 0.891x at 4095x4097x4093, where the aligned schedule reaches
// only 0.71x.
using WarpTiledUnaligned = kernels::WarpTiledSchedule<256, 128, 16, 64, 64, 16, 8, 4, 1, 3, true>;

}  // namespace detail
}  // namespace tilegemm
