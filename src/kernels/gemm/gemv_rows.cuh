// Not a ladder level: GEMV-class product whose long operand W is contiguous along k ("rows" of a
// weight matrix: C = A x with A row-major, or 4096x1x14336, or 2048x8x4096): each warp streams
// kRows rows of W along k, lanes side by side (512 contiguous bytes per warp load), and multiplies
// them with the block's staged chunk of X (up to kS = 8 rows); a warp shuffle tree sums the lanes.
// Up to 16 rows of X: gemv_rows_staged.cuh (W through shared memory).
// W is read exactly once, with 16-byte loads when its rows are 16-byte aligned; K is split over
// thread blocks when the rows alone do not fill the GPU (kernels/common/split_k.cuh sums the slices).
// Measured (H100): docs/shapes.md.
// Build and run: bash scripts/build.sh && build/tilegemm bench --shape 4096x1x14336 --kernels auto
#pragma once
#include "kernels/common/split_k.cuh"
#include "kernels/gemm/gemv_common.cuh"

namespace tilegemm {
namespace kernels {

template <int kS_>
struct GemvRowsShape {
  static constexpr int kS = kS_;                  // rows of X handled (s_count <= kS)
  static constexpr int kWarps = 8, kThreads = 32 * kWarps;
  // W rows per warp: kRows * kS accumulators per lane; each staged X value read from shared memory
  // serves kRows rows. s = 8 keeps two (80 registers, two blocks per SM).
  static constexpr int kRows = kS == 8 ? 2 : 4;
  static constexpr int kBlockRows = kWarps * kRows;
  static constexpr int kU = 2;                     // 4-float groups per row per lane per chunk (x2: prefetch)
  static constexpr int kChunk = 32 * 4 * kU;       // k per chunk
  static constexpr int kXLd = kChunk + 4;          // padded rows of the staged X chunk
  static constexpr int kOut = kRows * kS;          // outputs of one warp
  static constexpr int kPerLane = (kOut + 31) / 32;  // outputs per lane after warp_reduce_scatter
  static_assert(kS == 1 || kS == 2 || kS == 4 || kS == 8, "kS is 1, 2, 4 or 8 (16: gemv_rows_staged.cuh)");
};

template <int kS, bool kVecW>
__global__ void __launch_bounds__(GemvRowsShape<kS>::kThreads) gemv_rows(GemvParams p) {
  using G = GemvRowsShape<kS>;
  __shared__ __align__(16) float xs[2][kS * G::kXLd];  // double-buffered
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int tile = blockIdx.x / p.splits, slice = blockIdx.x % p.splits;
  const int l0 = tile * G::kBlockRows + warp * G::kRows;
  const GemvSlice range(p, slice);

  // W of chunk c0 into w: lane positions in a 128-float group are 4 consecutive k (one 16-byte
  // load) with kVecW, else k = lane + 32 q (coalesced 4-byte loads).
  auto load_w = [&](float4 (&w)[G::kRows][G::kU], int c0) {
#pragma unroll
    for (int r = 0; r < G::kRows; ++r) {
      const bool row_ok = l0 + r < p.l_count;
      const float* row = p.w + (row_ok ? static_cast<long long>(l0 + r) * p.ldw : 0);
#pragma unroll
      for (int u = 0; u < G::kU; ++u) {
        const int k = c0 + u * 128 + (kVecW ? lane * 4 : lane);
        const int left = row_ok ? range.end - k : 0;
        if (kVecW) {
          w[r][u] = load_chunk<true>(row + (left > 0 ? k : 0), left);
        } else {
          w[r][u].x = left > 0 ? row[k] : 0.0f;
          w[r][u].y = left > 32 ? row[k + 32] : 0.0f;
          w[r][u].z = left > 64 ? row[k + 64] : 0.0f;
          w[r][u].w = left > 96 ? row[k + 96] : 0.0f;
        }
      }
    }
  };

  float acc[G::kRows][kS] = {};
  float4 w[G::kRows][G::kU], w_next[G::kRows][G::kU];
  if (range.begin < range.end) {
    load_w(w, range.begin);
    gemv_stage_x<kS, G::kChunk, G::kThreads, G::kXLd, 1>(xs[0], p, range.begin, range.end);
  }
  int buf = 0;
  for (int c0 = range.begin; c0 < range.end; c0 += G::kChunk, buf ^= 1) {
    // The next chunk's W loads and X copies go out first and stay in flight through this chunk's
    // FMAs (as in gemv_cols.cuh: perf note #35).
    if (c0 + G::kChunk < range.end) {
      load_w(w_next, c0 + G::kChunk);
      gemv_stage_x<kS, G::kChunk, G::kThreads, G::kXLd, 1>(xs[buf ^ 1], p, c0 + G::kChunk, range.end);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
#pragma unroll
    for (int u = 0; u < G::kU; ++u) {
#pragma unroll
      for (int s = 0; s < kS; ++s) {
        const float* xrow = xs[buf] + s * G::kXLd + u * 128;
        float4 xv;
        if (kVecW) {
          xv = *reinterpret_cast<const float4*>(xrow + lane * 4);
        } else {
          xv.x = xrow[lane]; xv.y = xrow[lane + 32]; xv.z = xrow[lane + 64]; xv.w = xrow[lane + 96];
        }
#pragma unroll
        for (int r = 0; r < G::kRows; ++r)
          acc[r][s] += w[r][u].x * xv.x + w[r][u].y * xv.y + w[r][u].z * xv.z + w[r][u].w * xv.w;
      }
    }
#pragma unroll
    for (int r = 0; r < G::kRows; ++r)
#pragma unroll
      for (int u = 0; u < G::kU; ++u) w[r][u] = w_next[r][u];
    __syncthreads();  // xs[buf] is restaged by the next chunk's successor
  }

  gemv_rows_finish<G::kOut, kS, G::kThreads>(reinterpret_cast<float(&)[G::kOut]>(acc), p, tile, slice,
                                             [&](int r) { return l0 + r; });
}

}  // namespace kernels
}  // namespace tilegemm
