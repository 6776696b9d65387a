// The level-6 schedule compiled into the library for every transpose/alignment case.
#pragma once
#include "dense/kernels/06_warp_tiled.cuh"

namespace tilegemm {
namespace detail {

//                                          BM   BN  BK  WM  WN  TM  TN  stages
using WarpTiledDefault = kernels::WarpTiledSchedule<256, 128, 8, 64, 64, 8, 16, 4>;

}  // namespace detail
}  // namespace tilegemm
