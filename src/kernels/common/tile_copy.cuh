// How the threads of a block share the cp.async copies of a tile, for every tiled kernel (dense
// level 6's TileCopier, the BSR kernels' BsrRowCopier): a tile of kRows rows x kInner floats, kInner
// along the contiguous direction of global memory, kWidth floats per copy (4: 16 bytes, 1: 4 bytes).
// Every thread owns one inner position of the rows kRowStep apart (or, when a row holds more copies
// than the block has threads, kInnerCopies positions kInnerStep apart), so its whole share is one
// offset and a stride however many copies there are: per-copy addresses spilled in the first
// versions of both kernels (perf notes #16 and B7).
//
// Device code only, includes nothing: compiles with nvcc and with NVRTC.
#pragma once

namespace tilegemm {
namespace kernels {

template <int kRows, int kInner, int kThreads, int kWidth>
struct RowCopyLayout {
  static constexpr int kPerRow = kInner / kWidth;  // copies per row
  static constexpr int kThreadsPerRow = kPerRow < kThreads ? kPerRow : kThreads;
  static constexpr int kInnerCopies = kPerRow / kThreadsPerRow;  // inner positions per thread
  static_assert(kInner % kWidth == 0 && kThreads % kThreadsPerRow == 0 && kPerRow % kThreadsPerRow == 0,
                "each thread must own whole inner positions of whole rows");
  static constexpr int kRowStep = kThreads / kThreadsPerRow;          // rows between a thread's copies
  static constexpr int kCopies = (kRows + kRowStep - 1) / kRowStep;   // rows per thread (the last may not exist)
  static constexpr int kInnerStep = kThreadsPerRow * kWidth;          // floats between a thread's positions

  // The thread's first element inside the tile.
  __device__ __forceinline__ static int inner_of(int tid) { return tid % kThreadsPerRow * kWidth; }
  __device__ __forceinline__ static int row_of(int tid) { return tid / kThreadsPerRow; }
};

}  // namespace kernels
}  // namespace tilegemm
