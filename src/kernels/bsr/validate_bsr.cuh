// The structure check of a device-resident BSR matrix (DeviceBsrMatrix::from_device, validate ==
// true): the device counterpart of tilegemm::validate_bsr's index checks, recording the first
// violation of each kind in p.result (prepare_params.hpp) for the host to report:
//   index_pointer[0] == 0, index_pointer[block_row_count] == nnzb, index_pointer never decreases;
//   every block index in [0, block_col_count), strictly increasing within its block row.
// One warp per block row (grid-stride over rows), its lanes over the row's blocks; a row whose
// range is not inside [0, nnzb] is skipped (one of the index_pointer checks reports it), so no read
// goes out of bounds whatever the arrays hold. Runs once per matrix; a very long row is walked by
// one warp, fine for a check.
//
// Device code only; includes only prepare_params.hpp, so it compiles under NVRTC too.
#pragma once
#include "kernels/bsr/prepare_params.hpp"

namespace tilegemm {
namespace kernels {

__global__ void bsr_validate_structure(BsrCheckParams p) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long warp = thread >> 5;
  const long long warps = (static_cast<long long>(gridDim.x) * blockDim.x) >> 5;
  unsigned long long* result = p.result;
  if (thread == 0) {
    if (p.index_pointer[0] != 0) atomicMin(&result[kCheckFirstPointer], 0ull);
    if (p.index_pointer[p.block_row_count] != p.nnzb) atomicMin(&result[kCheckLastPointer], 0ull);
  }
  for (long long i = warp; i < p.block_row_count; i += warps) {
    const int begin = p.index_pointer[i], end = p.index_pointer[i + 1];
    if (end < begin) {
      if (lane == 0) atomicMin(&result[kCheckPointerDecreases], static_cast<unsigned long long>(i));
      continue;
    }
    if (begin < 0 || end > p.nnzb) continue;
    for (int b = begin + lane; b < end; b += 32) {
      const int col = p.block_indices[b];
      const unsigned long long key =
          (static_cast<unsigned long long>(b) << 32) | static_cast<unsigned long long>(i);
      if (col < 0 || col >= p.block_col_count) atomicMin(&result[kCheckIndexRange], key);
      if (b > begin) {
        const int prev = p.block_indices[b - 1];
        if (col == prev)
          atomicMin(&result[kCheckIndexDuplicate], key);
        else if (col < prev)
          atomicMin(&result[kCheckIndexUnsorted], key);
      }
    }
  }
}

}  // namespace kernels
}  // namespace tilegemm
