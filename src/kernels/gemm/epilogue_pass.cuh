// Not a ladder level: the fused epilogue's bias and activation (tilegemm::Epilogue) as a pass of its
// own over C, after a family that does not apply them in its stores (ops::Family::fuses_epilogue):
// C = activation(C + bias), C m x n of OutT, ldc elements apart. A 16-bit C is rounded twice then
// (the product's store, this pass); the level 8 families apply the epilogue before their one rounding.
//
// Device code only.
#pragma once
#include "kernels/common/fused_epilogue.cuh"

namespace tilegemm {
namespace kernels {

template <class OutT>
__global__ void __launch_bounds__(256) epilogue_pass(OutT* c, int m, int n, long long ldc, FusedEpilogue e) {
  const long long count = static_cast<long long>(m) * n;
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < count; i += gridDim.x * 256ll) {
    const int row = static_cast<int>(i / n), col = static_cast<int>(i - static_cast<long long>(row) * n);
    OutT* at = c + row * ldc + col;
    *at = to_out<OutT>(epilogue_apply<OutT>(e, from_out(*at), row, col));
  }
}

}  // namespace kernels
}  // namespace tilegemm
