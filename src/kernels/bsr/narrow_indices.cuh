// Int64 -> int32 index conversion for DeviceBsrMatrix::from_device (torch's BSR index tensors are
// int64): dst[i] = (int) src[i]; with first_bad != nullptr, the lowest position whose value is
// outside [0, 2^31 - 1] is recorded there (atomicMin; the host reads it and names the entry).
// Grid-stride loop, any grid. Runs once per matrix; memory-bound.
//
// Device code only; includes only prepare_params.hpp, so it compiles under NVRTC too.
#pragma once
#include "kernels/bsr/prepare_params.hpp"

namespace tilegemm {
namespace kernels {

__global__ void bsr_narrow_indices(const long long* __restrict__ src, int* __restrict__ dst,
                                   long long count, unsigned long long* first_bad) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const long long v = src[i];
    dst[i] = static_cast<int>(v);  // wraps modulo 2^32; only in-range values are kept by validation
    if (first_bad != nullptr && (v < 0 || v > 2147483647ll))
      atomicMin(first_bad, static_cast<unsigned long long>(i));
  }
}

}  // namespace kernels
}  // namespace tilegemm
