// Not a ladder level: the columns GEMV (W contiguous along the long output dimension l) for one row
// of X, s = 1: decode, C[1][n] = A[1][k] * B[k][n] with B row-major, or N = 1 with A stored
// transposed. kLanes lanes cover 4 * kLanes consecutive columns of one W row (a 16-byte load each
// when aligned, or when every row sits at one offset: GemvColsW), a warp 32 / kLanes rows at once,
// the block's 16 warps interleaved rows. Every thread keeps kU rows of W in flight and issues the
// next kU, with their X values, before it uses the current ones; it reads X itself through L1. No
// shared staging and no barrier in the loop: gemv_cols.cuh's staged X chunks cost 1.6-4 us of 27 at
// 1x4096x4096 (perf note #51). A fixed shuffle tree and a fixed warp order sum the block; K is split
// over blocks when the columns alone do not fill the GPU (kernels/common/split_k.cuh sums the slices). W is
// read exactly once.
// Measured (H100): docs/shapes.md.
// Build and run: bash scripts/build.sh && build/tilegemm bench --shape 1x4096x4096 --kernels auto
#pragma once
#include "kernels/common/split_k.cuh"
#include "kernels/gemm/gemv_common.cuh"

namespace tilegemm {
namespace kernels {

template <int kLanes_>
struct GemvColsOneShape {
  static constexpr int kLanes = kLanes_;                     // lanes per W row
  static constexpr int kWarps = 16, kThreads = 32 * kWarps;
  static constexpr int kCols = 4 * kLanes;                   // W columns per block
  static constexpr int kWarpRows = 32 / kLanes;              // W rows per warp load
  static constexpr int kU = 8;                               // loads in flight per thread (and kU more issued)
  static constexpr int kStep = kU * kWarps * kWarpRows;      // k rows per step of the block
  static_assert(kLanes == 8 || kLanes == 16 || kLanes == 32, "kLanes is 8, 16 or 32");
};

template <int kLanes, GemvColsW kW>
__global__ void __launch_bounds__(GemvColsOneShape<kLanes>::kThreads, 1) gemv_cols_one(GemvParams p) {
  using G = GemvColsOneShape<kLanes>;
  __shared__ __align__(16) float warp_sums[G::kWarps][G::kCols];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int col_lane = lane % kLanes, row_lane = lane / kLanes;
  const int tile = blockIdx.x / p.splits, slice = blockIdx.x % p.splits;
  const int lead = gemv_cols_lead<kW>(p);
  if (kW == GemvColsW::Shifted && tile * G::kCols - lead >= p.l_count) return;  // the planned spare tile
  const int l = tile * G::kCols + col_lane * 4 - lead;
  const int l_left = p.l_count - l;
  const GemvSlice range(p, slice);

  // Rows k0 + (u * kWarps + warp) * kWarpRows + row_lane of W (this lane's 4 columns) and of X.
  // Each load sits behind its own bounds branch: the same loop with branch-free loads (every row
  // loaded, rows past the slice dropped) ran 6 % slower at 1x4096x4096 and 30 % slower with 32
  // lanes per row (perf note #51).
  auto load = [&](float4 (&w)[G::kU], float (&x)[G::kU], int k0) {
#pragma unroll
    for (int u = 0; u < G::kU; ++u) {
      const int k = k0 + (u * G::kWarps + warp) * G::kWarpRows + row_lane;
      const int valid = k < range.end ? l_left : 0;
      const float* src = p.w + (valid > 0 ? static_cast<long long>(k) * p.ldw + l : 0);
      const bool whole = kW == GemvColsW::Shifted && (l >= 0 || k > 0) && (l_left >= 4 || k + 1 < p.k);
      // W and X are read-only for the call: the non-coherent path.
      w[u] = gemv_cols_chunk<kW, true>(src, l, valid, whole);
      x[u] = k < range.end ? __ldg(p.x + static_cast<long long>(k) * p.x_k) : 0.0f;
    }
  };

  float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float4 w[G::kU], w_next[G::kU];
  float x[G::kU], x_next[G::kU];
  if (range.begin < range.end) load(w, x, range.begin);
  for (int k0 = range.begin; k0 < range.end; k0 += G::kStep) {
    if (k0 + G::kStep < range.end) load(w_next, x_next, k0 + G::kStep);
#pragma unroll
    for (int u = 0; u < G::kU; ++u) {
      acc.x += w[u].x * x[u];
      acc.y += w[u].y * x[u];
      acc.z += w[u].z * x[u];
      acc.w += w[u].w * x[u];
    }
#pragma unroll
    for (int u = 0; u < G::kU; ++u) {
      w[u] = w_next[u];
      x[u] = x_next[u];
    }
  }

  // The warp's rows (lane bits at and above kLanes), then the warps in order.
#pragma unroll
  for (int off = 16; off >= kLanes; off /= 2) {
    acc.x += __shfl_xor_sync(0xffffffffu, acc.x, off);
    acc.y += __shfl_xor_sync(0xffffffffu, acc.y, off);
    acc.z += __shfl_xor_sync(0xffffffffu, acc.z, off);
    acc.w += __shfl_xor_sync(0xffffffffu, acc.w, off);
  }
  if (row_lane == 0) *reinterpret_cast<float4*>(&warp_sums[warp][col_lane * 4]) = acc;
  __syncthreads();
  float v[4] = {};  // threads [0, kLanes) own the block's columns l .. l + 3 (their warp 0 lanes)
  if (threadIdx.x < kLanes) {
#pragma unroll
    for (int j = 0; j < G::kWarps; ++j) {
      const float4 s = *reinterpret_cast<const float4*>(&warp_sums[j][threadIdx.x * 4]);
      v[0] += s.x; v[1] += s.y; v[2] += s.z; v[3] += s.w;
    }
  }
  if (p.splits > 1) {  // every thread takes part (the sum synchronizes the block)
    const int counters = split_k_counters(p.splits, p.group);
    if (!split_k_reduce<4, kLanes>(v, p.partials + static_cast<long long>(tile) * p.splits * G::kCols,
                                   p.counters + static_cast<long long>(tile) * counters, slice, p.splits, p.group))
      return;
  }
  if (threadIdx.x >= kLanes) return;
#pragma unroll
  for (int j = 0; j < 4; ++j)
    if (j < l_left && (kW != GemvColsW::Shifted || l + j >= 0)) gemv_store(p, 0, l + j, v[j]);
}

}  // namespace kernels
}  // namespace tilegemm
