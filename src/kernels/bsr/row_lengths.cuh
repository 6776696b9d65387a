// The sort input of the longest-first block-row order (DeviceBsrMatrix::from_device): the block
// count of every block row, lengths[i] = index_pointer[i + 1] - index_pointer[i], and its row id,
// rows[i] = i. A stable descending radix sort of (length, row) pairs then gives the order the host
// constructor computes (ties in increasing row order). Grid-stride loop, any grid.
//
// Device code only; includes only prepare_params.hpp, so it compiles under NVRTC too.
#pragma once
#include "kernels/bsr/prepare_params.hpp"

namespace tilegemm {
namespace kernels {

__global__ void bsr_row_lengths(const int* __restrict__ index_pointer, int block_row_count,
                                int* __restrict__ lengths, int* __restrict__ rows) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < block_row_count; i += stride) {
    lengths[i] = index_pointer[i + 1] - index_pointer[i];
    rows[i] = static_cast<int>(i);
  }
}

}  // namespace kernels
}  // namespace tilegemm
