// Level 03 - shared-memory tiles: 16x16 threads load 16x16 tiles of A and B cooperatively into shared
// memory, then each thread reads its row/column from there (seed 001's tiled kernel, seed 003's "v3").
// Every element of A and B is read from global memory N/16 resp. M/16 times instead of N resp. M times.
// Out-of-range elements are loaded as zeros, so any M, N, K works.
// Measured (H200, row-major NN 4096^3, 2026-11-22): 5.99 TFLOP/s, 0.118x cuBLAS; table in docs/ladder.md.
// Build and run: bash scripts/build.sh && build/tilegemm bench --shape 4096x4096x4096 --kernels 3
#pragma once
#include "kernels/gemm/common.cuh"

namespace tilegemm {
namespace kernels {

constexpr int kSharedTile = 16;

template <bool kTransA, bool kTransB>
__global__ void __launch_bounds__(kSharedTile * kSharedTile) gemm_shared_tiled(GemmParams p) {
  constexpr int T = kSharedTile;
  __shared__ float a_tile[T][T + 1];  // [m][k]; +1 keeps column reads conflict-free
  __shared__ float b_tile[T][T + 1];  // [k][n]
  const int tiles_n = (p.n + T - 1) / T;
  const int m0 = (blockIdx.x / tiles_n) * T, n0 = (blockIdx.x % tiles_n) * T;
  const int tx = threadIdx.x, ty = threadIdx.y;  // tx runs along the contiguous direction
  float acc = 0.0f;
  for (int k0 = 0; k0 < p.k; k0 += T) {
    // Let consecutive threads read consecutive addresses for either storage order of A and B.
    if (kTransA) {  // A stored k-major: tx walks m
      const int m = m0 + tx, k = k0 + ty;
      a_tile[tx][ty] = (m < p.m && k < p.k) ? load_a<true>(p, m, k) : 0.0f;
    } else {
      const int m = m0 + ty, k = k0 + tx;
      a_tile[ty][tx] = (m < p.m && k < p.k) ? load_a<false>(p, m, k) : 0.0f;
    }
    if (kTransB) {  // B stored n-major: tx walks k
      const int k = k0 + tx, n = n0 + ty;
      b_tile[tx][ty] = (k < p.k && n < p.n) ? load_b<true>(p, k, n) : 0.0f;
    } else {
      const int k = k0 + ty, n = n0 + tx;
      b_tile[ty][tx] = (k < p.k && n < p.n) ? load_b<false>(p, k, n) : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < T; ++kk) acc += a_tile[ty][kk] * b_tile[kk][tx];
    __syncthreads();
  }
  const int m = m0 + ty, n = n0 + tx;
  if (m < p.m && n < p.n) store_c(p, m, n, acc);
}

}  // namespace kernels
}  // namespace tilegemm
