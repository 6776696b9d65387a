// Not a ladder level: GEMV-class product whose long operand W is contiguous along the long output
// dimension l (decode: C[1][n] = A[1][k] * B[k][n] with B row-major, or 8x6144x4096): each lane owns
// 4 consecutive columns of W (one 16-byte load per k when aligned, or when every row sits at one
// offset: GemvColsW), a warp covers 128 columns of one k row (512 contiguous bytes), the block's 8
// warps take interleaved k rows, and a fixed tree through shared memory sums the warps. W is read
// exactly once; K is split over thread blocks when the columns alone do not fill the GPU
// (kernels/common/split_k.cuh sums the slices).
// Measured (H100): docs/shapes.md.
// Build and run: bash scripts/build.sh && build/tilegemm bench --shape 1x14336x4096 --kernels auto
#pragma once
#include "kernels/common/split_k.cuh"
#include "kernels/gemm/gemv_common.cuh"

namespace tilegemm {
namespace kernels {

template <int kS_>
struct GemvColsShape {
  static constexpr int kS = kS_;                 // rows of X handled (s_count <= kS)
  static constexpr int kWarps = 8, kThreads = 32 * kWarps;
  static constexpr int kCols = 32 * 4;           // columns of W per block
  static constexpr int kU = kS >= 8 ? 4 : 8;     // k rows per warp per chunk (fewer: fewer registers)
  static constexpr int kChunk = kWarps * kU;     // k per chunk
  static constexpr int kOut = 4 * kS;            // outputs per lane
  static_assert(kS == 1 || kS == 2 || kS == 4 || kS == 8 || kS == 16, "kS is 1, 2, 4, 8 or 16");
};

template <int kS, GemvColsW kW>
__global__ void __launch_bounds__(GemvColsShape<kS>::kThreads, 2) gemv_cols(GemvParams p) {
  using G = GemvColsShape<kS>;
  __shared__ __align__(16) float xs[2][G::kChunk * kS];                // [k][s], double-buffered
  __shared__ float partial_sums[G::kWarps / 2][G::kOut][32];  // the warp tree ([e][lane]: no bank conflicts)
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int tile = blockIdx.x / p.splits, slice = blockIdx.x % p.splits;
  const int lead = gemv_cols_lead<kW>(p);
  if (kW == GemvColsW::Shifted && tile * G::kCols - lead >= p.l_count) return;  // the planned spare tile
  const int l = tile * G::kCols + lane * 4 - lead;
  const int l_left = p.l_count - l;
  const GemvSlice range(p, slice);

  // W rows k = c0 + warp + kWarps * u of the chunk at c0, this lane's 4 columns.
  auto load_w = [&](float4 (&w)[G::kU], int c0) {
#pragma unroll
    for (int u = 0; u < G::kU; ++u) {
      const int k = c0 + warp + G::kWarps * u;
      const int valid = k < range.end ? l_left : 0;
      const bool whole = kW == GemvColsW::Shifted && (l >= 0 || k > 0) && (l_left >= 4 || k + 1 < p.k);
      w[u] = gemv_cols_chunk<kW, false>(p.w + (valid > 0 ? static_cast<long long>(k) * p.ldw + l : 0), l, valid, whole);
    }
  };

  float acc[G::kOut] = {};  // acc[s * 4 + j]: C(s, l + j)
  float4 w[G::kU], w_next[G::kU];
  if (range.begin < range.end) {
    load_w(w, range.begin);
    gemv_stage_x<kS, G::kChunk, G::kThreads, 1, kS>(xs[0], p, range.begin, range.end);
  }
  int buf = 0;
  for (int c0 = range.begin; c0 < range.end; c0 += G::kChunk, buf ^= 1) {
    // The next chunk's W loads and X copies go out first and stay in flight through this chunk's
    // FMAs: only the first chunk waits for its X (staged in the same chunk, the wait cost an L2 round
    // trip per chunk: perf note #35).
    if (c0 + G::kChunk < range.end) {
      load_w(w_next, c0 + G::kChunk);
      gemv_stage_x<kS, G::kChunk, G::kThreads, 1, kS>(xs[buf ^ 1], p, c0 + G::kChunk, range.end);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
#pragma unroll
    for (int u = 0; u < G::kU; ++u) {
      const float* xk = xs[buf] + (warp + G::kWarps * u) * kS;  // the same address for the whole warp
      float xv[kS];
      if constexpr (kS % 4 == 0) {
#pragma unroll
        for (int s = 0; s < kS; s += 4) {
          const float4 q = *reinterpret_cast<const float4*>(xk + s);
          xv[s] = q.x; xv[s + 1] = q.y; xv[s + 2] = q.z; xv[s + 3] = q.w;
        }
      } else {
#pragma unroll
        for (int s = 0; s < kS; ++s) xv[s] = xk[s];
      }
#pragma unroll
      for (int s = 0; s < kS; ++s) {
        acc[s * 4 + 0] += w[u].x * xv[s];
        acc[s * 4 + 1] += w[u].y * xv[s];
        acc[s * 4 + 2] += w[u].z * xv[s];
        acc[s * 4 + 3] += w[u].w * xv[s];
      }
    }
#pragma unroll
    for (int u = 0; u < G::kU; ++u) w[u] = w_next[u];
    __syncthreads();  // xs[buf] is restaged by the next chunk's successor
  }

  // Fixed tree over the warps: warps [h, 2h) hand their sums to warps [0, h).
#pragma unroll
  for (int h = G::kWarps / 2; h > 0; h /= 2) {
    if (warp >= h && warp < 2 * h) {
#pragma unroll
      for (int e = 0; e < G::kOut; ++e) partial_sums[warp - h][e][lane] = acc[e];
    }
    __syncthreads();
    if (warp < h) {
#pragma unroll
      for (int e = 0; e < G::kOut; ++e) acc[e] += partial_sums[warp][e][lane];
    }
    __syncthreads();
  }
  if (p.splits > 1) {  // every thread takes part; warp 0's lanes own the block's sums
    const int counters = split_k_counters(p.splits, p.group);
    if (!split_k_reduce<G::kOut, 32>(acc, p.partials + static_cast<long long>(tile) * p.splits * G::kOut * 32,
                                     p.counters + static_cast<long long>(tile) * counters, slice,
                                     p.splits, p.group))
      return;
  }
  if (warp != 0) return;
#pragma unroll
  for (int s = 0; s < kS; ++s)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      if (s < p.s_count && j < l_left && (kW != GemvColsW::Shifted || l + j >= 0))
        gemv_store(p, s, l + j, acc[s * 4 + j]);
}

}  // namespace kernels
}  // namespace tilegemm
