// Device helpers shared by the BSR kernels: dense operand access in either orientation (the BLAS
// epilogue is kernels/common/epilogue.cuh, shared with the dense kernels). Device code only; includes only
// params.hpp and kernels/common/epilogue.cuh, so it compiles under NVRTC too.
#pragma once
#include "kernels/common/epilogue.cuh"
#include "kernels/bsr/params.hpp"

namespace tilegemm {
namespace kernels {

// D(k, j): X[j][k] for xwt, X[k][j] for wx (params.hpp).
template <bool kXwt>
__device__ __forceinline__ const float* dense_ptr(const BsrParams& p, int k, int j) {
  return kXwt ? p.x + static_cast<long long>(j) * p.ldx + k
              : p.x + static_cast<long long>(k) * p.ldx + j;
}
template <bool kXwt>
__device__ __forceinline__ float* out_ptr(const BsrParams& p, int i, int j) {
  return kXwt ? p.y + static_cast<long long>(j) * p.ldy + i
              : p.y + static_cast<long long>(i) * p.ldy + j;
}

// Element (r, c) of block b.
__device__ __forceinline__ const float* block_elem(const BsrParams& p, int b, int r, int c) {
  return p.w + static_cast<long long>(b) * p.block_r * p.block_c +
         static_cast<long long>(r) * p.block_c + c;
}

}  // namespace kernels
}  // namespace tilegemm
