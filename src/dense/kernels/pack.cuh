// Operand packing before a tiled product: op(A) or op(B) copied into a scratch buffer, K rows of 16-byte
// aligned rows, in the layout the tiled kernels copy as-is with 16-byte cp.async (A as m-contiguous
// A^T, B as n-contiguous B). An operand whose leading dimension or pointer breaks 16-byte alignment, or a
// B stored transposed, otherwise goes through 4-byte copies in every tile that reads it (every tile row
// or column of the product re-reads it); packing reads and writes it once, at memory bandwidth.
//
// One 32 x 32 tile per block of 32 x 8 threads, four rows each. A transposed source goes through shared
// memory so that both its reads and the writes are coalesced; a straight one is copied row to row.
#pragma once
#include "dense/kernels/params.hpp"

namespace tilegemm {
namespace kernels {

constexpr int kPackRowsPerPass = 8;  // blockDim = (kPackTile, kPackRowsPerPass)

template <bool kTransposed>
__global__ void __launch_bounds__(kPackTile * kPackRowsPerPass) pack_operand(PackParams p) {
  constexpr int kPasses = kPackTile / kPackRowsPerPass;
  const int tile = blockIdx.x;
  const int r0 = tile / p.col_tiles * kPackTile, c0 = tile % p.col_tiles * kPackTile;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const float* __restrict__ src = p.src;
  float* __restrict__ dst = p.dst;
  // Pass j reads source row o0 + ty + j * kPackRowsPerPass along its columns i0 + tx (coalesced): the
  // source's rows are the copy's rows, or its columns when transposed.
  const int o0 = kTransposed ? c0 : r0, i0 = kTransposed ? r0 : c0;
  const int outer = kTransposed ? p.cols : p.rows, inner = kTransposed ? p.rows : p.cols;
  float v[kPasses];
#pragma unroll
  for (int j = 0; j < kPasses; ++j) {
    const int o = o0 + ty + j * kPackRowsPerPass, i = i0 + tx;
    v[j] = o < outer && i < inner ? src[static_cast<long long>(o) * p.ld_src + i] : 0.0f;
  }
  if constexpr (kTransposed) {  // through shared memory, so that the writes along the copy's rows coalesce too
    __shared__ float staged[kPackTile][kPackTile + 1];  // +1: the column reads hit 32 banks
#pragma unroll
    for (int j = 0; j < kPasses; ++j) staged[ty + j * kPackRowsPerPass][tx] = v[j];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kPasses; ++j) v[j] = staged[tx][ty + j * kPackRowsPerPass];
  }
#pragma unroll
  for (int j = 0; j < kPasses; ++j) {
    const int r = r0 + ty + j * kPackRowsPerPass, c = c0 + tx;
    if (r < p.rows && c < p.cols) dst[static_cast<long long>(r) * p.ld_dst + c] = v[j];
  }
}

}  // namespace kernels
}  // namespace tilegemm
