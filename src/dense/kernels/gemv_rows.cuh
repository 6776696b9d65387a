// Not a ladder level: GEMV-class product whose long operand W is contiguous along k ("rows" of a
// weight matrix: C = A x with A row-major, or 4096x1x14336, or 2048x16x4096): each warp streams
// kRows rows of W along k, lanes side by side (512 contiguous bytes per warp load), and multiplies
// them with the block's staged chunk of X (up to kS = 16 rows); a warp shuffle tree sums the lanes.
// W is read exactly once, with 16-byte loads when its rows are 16-byte aligned; K is split over
// thread blocks when the rows alone do not fill the GPU (core/split_k.cuh sums the slices).
// Measured (H100): docs/shapes.md.
// Build and run: bash scripts/build.sh && build/tilegemm bench --shape 4096x1x14336 --kernels auto
#pragma once
#include "core/split_k.cuh"
#include "dense/kernels/gemv_common.cuh"

namespace tilegemm {
namespace kernels {

template <int kS_>
struct GemvRowsShape {
  static constexpr int kS = kS_;                  // rows of X handled (s_count <= kS)
  static constexpr int kWarps = 8, kThreads = 32 * kWarps;
  // W rows per warp: kRows * kS accumulators per lane. Each staged X value read from shared memory
  // serves kRows rows; at s = 16 two rows left the kernel bound by those reads (4096x16x4096: 54 us,
  // four rows: 45 us, one 170-register block per SM; perf note #39). s = 8 keeps two (80 registers).
  static constexpr int kRows = kS == 8 ? 2 : 4;
  static constexpr int kBlockRows = kWarps * kRows;
  static constexpr int kU = 2;                     // 4-float groups per row per lane per chunk (x2: prefetch)
  static constexpr int kChunk = 32 * 4 * kU;       // k per chunk
  static constexpr int kXLd = kChunk + 4;          // padded rows of the staged X chunk
  static constexpr int kOut = kRows * kS;          // outputs of one warp
  static constexpr int kPerLane = (kOut + 31) / 32;  // outputs per lane after warp_reduce_scatter
  static_assert(kS == 1 || kS == 2 || kS == 4 || kS == 8 || kS == 16, "kS is 1, 2, 4, 8 or 16");
};

// Sums kN values (a power of two; v is overwritten) over the 32 lanes of a warp by recursive halving: at each step a
// lane keeps half of its values and adds the partner's copy of that half (lane bit 4 picks the upper
// half first, then bit 3, ...), so 31 shuffles move 32 values instead of 5 x 32 for a butterfly of
// each. Lane t ends with max(1, kN / 32) sums, of the outputs warp_sum_index<kN>(t, i); below 32
// values a plain butterfly finishes, and the lanes that share an output all hold it
// (warp_sum_owner picks one). Fixed order: deterministic.
// One step of warp_reduce_scatter: kCount live values, partner lane at xor kOff.
template <int kOff, int kCount, int kSize>
__device__ __forceinline__ void warp_halve(float (&w)[kSize], int lane) {
  if constexpr (kCount > 1) {
    const bool upper = (lane & kOff) != 0;
#pragma unroll
    for (int i = 0; i < kCount / 2; ++i) {
      const float send = upper ? w[i] : w[i + kCount / 2];
      const float keep = upper ? w[i + kCount / 2] : w[i];
      w[i] = keep + __shfl_xor_sync(0xffffffffu, send, kOff);
    }
  } else {
    w[0] += __shfl_xor_sync(0xffffffffu, w[0], kOff);
  }
  if constexpr (kOff > 1) warp_halve<kOff / 2, (kCount > 1 ? kCount / 2 : 1)>(w, lane);
}
template <int kN>
__device__ __forceinline__ void warp_reduce_scatter(float (&v)[kN], float (&out)[(kN + 31) / 32]) {
  warp_halve<16, kN>(v, threadIdx.x % 32);
#pragma unroll
  for (int i = 0; i < (kN + 31) / 32; ++i) out[i] = v[i];
}
template <int kN>
__device__ __forceinline__ int warp_sum_index(int lane, int i) {
  return kN >= 32 ? lane * (kN / 32) + i : lane / (32 / kN);
}
template <int kN>
__device__ __forceinline__ bool warp_sum_owner(int lane) {
  return kN >= 32 || lane % (32 / kN) == 0;
}

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

  // Sum the lanes: lane `lane` ends with outputs e = r * kS + s at warp_sum_index<kOut>(lane, i).
  float v[G::kPerLane];
  warp_reduce_scatter<G::kOut>(reinterpret_cast<float(&)[G::kOut]>(acc), v);
  if (p.splits > 1) {
    const int counters = split_k_counters(p.splits, p.group);
    if (!split_k_reduce<G::kPerLane, G::kThreads>(
            v, p.partials + static_cast<long long>(tile) * p.splits * G::kPerLane * G::kThreads,
            p.counters + static_cast<long long>(tile) * counters, slice, p.splits, p.group))
      return;
  }
#pragma unroll
  for (int i = 0; i < G::kPerLane; ++i) {
    const int e = warp_sum_index<G::kOut>(lane, i);
    const int r = e / kS, s = e % kS;
    if (warp_sum_owner<G::kOut>(lane) && s < p.s_count && l0 + r < p.l_count) gemv_store(p, s, l0 + r, v[i]);
  }
}

}  // namespace kernels
}  // namespace tilegemm
