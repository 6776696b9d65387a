// Not a ladder level: the one kernel a tiled or GEMV product runs before its own, when it needs one.
// It zeroes the split-K counters of the call's workspace (kernels/common/split_k.cuh counts on them) and packs
// operands: op(A) or op(B) copied into the workspace, K rows of 16-byte aligned rows, in the layout
// the tiled kernels copy as-is with 16-byte cp.async (A as m-contiguous A^T, B as n-contiguous B);
// for gemv-rows:s16 its short operand X in the orientation it is stored, and X's rows of k behind
// unaligned W as four copies, each one float further past a 16-byte boundary (gemv_rows_staged.cuh
// reads the copy that its block's stages find aligned).
// An operand whose leading dimension or pointer breaks 16-byte alignment, or a B stored transposed,
// otherwise goes through 4-byte copies in every tile that reads it (every tile row or column of the
// product re-reads it); packing reads and writes it once, at memory bandwidth.
//
// One launch for all of it (a separate memset and one launch per operand cost a launch gap each),
// and the product is launched to overlap it (kernels/common/griddep.cuh): this kernel lets it start at once.
//
// Packing: one 32 x 32 tile per block of 32 x 8 threads, four rows each, A's tiles first, then B's.
// A transposed source goes through shared memory so that both its reads and the writes are
// coalesced; a straight one is copied row to row. Every block also zeroes its share of the counters.
#pragma once
#include "kernels/common/griddep.cuh"
#include "kernels/gemm/params.hpp"

namespace tilegemm {
namespace kernels {

constexpr int kPackRowsPerPass = 8;  // blockDim = (kPackTile, kPackRowsPerPass)

// Tile `tile` of one packed operand.
__device__ __forceinline__ void pack_tile(const PackParams& p, bool transposed, int tile,
                                          float (&staged)[kPackTile][kPackTile + 1]) {
  constexpr int kPasses = kPackTile / kPackRowsPerPass;
  const int r0 = tile / p.col_tiles * kPackTile, c0 = tile % p.col_tiles * kPackTile;
  const int tx = threadIdx.x, ty = threadIdx.y;
  // Pass j reads source row o0 + ty + j * kPackRowsPerPass along its columns i0 + tx (coalesced): the
  // source's rows are the copy's rows, or its columns when transposed.
  const int o0 = transposed ? c0 : r0, i0 = transposed ? r0 : c0;
  const int outer = transposed ? p.cols : p.rows, inner = transposed ? p.rows : p.cols;
  float v[kPasses];
#pragma unroll
  for (int j = 0; j < kPasses; ++j) {
    const int o = o0 + ty + j * kPackRowsPerPass, i = i0 + tx;
    v[j] = o < outer && i < inner ? p.src[static_cast<long long>(o) * p.ld_src + i] : 0.0f;
  }
  if (transposed) {  // through shared memory, so that the writes along the copy's rows coalesce too
#pragma unroll
    for (int j = 0; j < kPasses; ++j) staged[ty + j * kPackRowsPerPass][tx] = v[j];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kPasses; ++j) v[j] = staged[tx][ty + j * kPackRowsPerPass];
  }
  for (int copy = 0; copy < p.copies; ++copy) {
    float* const dst = p.dst + copy * p.copy_step;
#pragma unroll
    for (int j = 0; j < kPasses; ++j) {
      const int r = r0 + ty + j * kPackRowsPerPass, c = c0 + tx;
      if (r < p.rows && c < p.cols) dst[static_cast<long long>(r) * p.ld_dst + c] = v[j];
    }
  }
}

__global__ void __launch_bounds__(kPackTile * kPackRowsPerPass) gemm_prologue(PrologueParams p) {
  // The product waits (griddep_wait) for this whole kernel before it reads anything written here.
  griddep_launch_dependents();
  __shared__ float staged[kPackTile][kPackTile + 1];  // +1: the column reads hit 32 banks
  const int thread = threadIdx.y * kPackTile + threadIdx.x, threads = kPackTile * kPackRowsPerPass;
  for (long long w = static_cast<long long>(blockIdx.x) * threads + thread; w < p.counter_words;
       w += static_cast<long long>(gridDim.x) * threads)
    p.counters[w] = 0u;
  const int tile = blockIdx.x;
  if (tile < p.a_tiles) pack_tile(p.a, p.a_transposed != 0, tile, staged);
  else if (tile - p.a_tiles < p.b_tiles) pack_tile(p.b, p.b_transposed != 0, tile - p.a_tiles, staged);
}

}  // namespace kernels
}  // namespace tilegemm
