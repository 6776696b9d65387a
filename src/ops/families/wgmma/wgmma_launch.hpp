// The launch of ladder level 8 (kernels/gemm/08_wgmma_tma.cuh) on a canonical row-major product:
// the TMA descriptors of A and B, the persistent grid, the instantiation for the dtypes and tile.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "tilegemm/types.hpp"

namespace tilegemm {
namespace ops {

struct WgmmaLaunch {
  const void* a = nullptr;  // m x k, row-major, lda elements apart
  const void* b = nullptr;  // n x k, row-major (B^T of the product), ldb elements apart
  void* c = nullptr;        // m x n, row-major
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f, beta = 0.0f;  // beta == 0: C is not read
  DType in = DType::BF16;           // A and B: BF16 or F16
  DType out = DType::BF16;          // C: `in` or F32
  int bn = 256;                     // the tile's columns: 128 or 256 (the compiled ones)
  int sm_count = 1;                 // the persistent grid's size bound
};

// Enqueues the product on `stream`. Throws Error(Internal) when the driver refuses a descriptor.
void launch_wgmma(const WgmmaLaunch& l, cudaStream_t stream);

}  // namespace ops
}  // namespace tilegemm
