// Device helpers shared by the dense kernels: the canonical problem description, operand access,
// C's store. The cp.async wrappers, the epilogue and the tile orders (rasterizations) live in core/,
// shared with the sparse kernels.
//
// Device code only: this header (like every kernel header) must compile with nvcc and with NVRTC,
// so it includes only params.hpp and core/*.cuh (which include nothing) and uses no host-only
// constructs.
#pragma once
#include "kernels/common/cp_async.cuh"
#include "kernels/common/epilogue.cuh"
#include "kernels/common/tile_order.cuh"
#include "kernels/gemm/params.hpp"

namespace tilegemm {
namespace kernels {

// Element (row, col) of a row-major matrix with leading dimension ld: 64-bit offset, since a matrix
// may span more than 2^31 elements.
__device__ __forceinline__ long long at(int row, int ld, int col) {
  return static_cast<long long>(row) * ld + col;
}

template <bool kTransA>
__device__ __forceinline__ float load_a(const GemmParams& p, int m, int k) {
  return kTransA ? p.a[at(k, p.lda, m)] : p.a[at(m, p.lda, k)];
}
template <bool kTransB>
__device__ __forceinline__ float load_b(const GemmParams& p, int k, int n) {
  return kTransB ? p.b[at(n, p.ldb, k)] : p.b[at(k, p.ldb, n)];
}

// The full-K dot product of row m of op(A) and column n of op(B), straight from global memory
// (levels 1 and 2, which differ only in how threads are mapped to C).
template <bool kTransA, bool kTransB>
__device__ __forceinline__ float dot_from_global(const GemmParams& p, int m, int n) {
  float acc = 0.0f;
  for (int k = 0; k < p.k; ++k) acc += load_a<kTransA>(p, m, k) * load_b<kTransB>(p, k, n);
  return acc;
}

// Reads src[0..3] (consecutive in memory) where only the first `valid` elements exist (zeros for the
// rest). kVec: one 16-byte load when all four exist (the caller checked the alignment).
template <bool kVec>
__device__ __forceinline__ float4 load_chunk(const float* src, int valid) {
  if (kVec && valid >= 4) return *reinterpret_cast<const float4*>(src);
  float4 v;
  v.x = valid > 0 ? src[0] : 0.0f;
  v.y = valid > 1 ? src[1] : 0.0f;
  v.z = valid > 2 ? src[2] : 0.0f;
  v.w = valid > 3 ? src[3] : 0.0f;
  return v;
}

// C(m, n) = alpha * acc + beta * C(m, n) (kernels/common/epilogue.cuh: beta == 0 never reads C).
__device__ __forceinline__ void store_c(const GemmParams& p, int m, int n, float acc) {
  epilogue_store(p.c + at(m, p.ldc, n), acc, p.alpha, p.beta);
}

}  // namespace kernels
}  // namespace tilegemm
