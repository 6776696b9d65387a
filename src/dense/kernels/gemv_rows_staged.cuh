// Not a ladder level: GEMV-class product with a short side of 9-16 rows of X whose long operand W is
// contiguous along k (14336x16x4096, or 16x14336x4096 NT: C = X W^T): gemv-rows:s16. Same work
// split as gemv_rows.cuh (each warp kRows rows of W, lanes side by side along k, a shuffle tree sums
// the lanes, K split over blocks), but W and X reach shared memory through a kStages-deep cp.async
// pipeline instead of registers: at s = 16 each W float feeds 16 FMAs, and the register double buffer
// of gemv_rows.cuh kept one chunk in flight per SM and waited for it after every chunk's math
// (1.5 TB/s, perf note #39). Here kStages - 1 stages are in flight while one is multiplied, no
// register holds a load, and two blocks share an SM (perf note #56).
//
// W is always copied 16 bytes at a time. Rows that are not 16-byte aligned (kVecW false) are copied as
// their aligned supersets: a stage of row r holds k0 - d .. k0 - d + 127, where d (0..3) is how many
// floats W(r, k0) sits past a 16-byte boundary; a warp's rows are 4 apart, so they share d, and its
// lanes multiply k0 - d + 4 lane .. + 3 (4-byte copies of W instead cost 1.3x, perf note #56); the
// slice's last d k, where the stages end before them, come straight from global memory (an extra
// stage for them cost up to 1/8 of a slice, #57). A row
// lands 4 floats into its shared row where its aligned superset starts 16 bytes past a 32-byte
// boundary (#55's rule; its effect here not measured apart). The stages are 6596 floats, so stage 1
// starts 16 bytes past a 32-byte boundary and there the landing is the other way round: stages at
// 32-byte boundaries measured slower on aligned W, for a reason not found (perf note #57).
// X is staged as [s][k] rows when it runs along k (NT's A) and W is aligned; otherwise as [k][s] rows
// padded by 4 floats every 4 rows, starting 4 rows before k0 when W is not aligned (the rows a warp
// reads then start d rows earlier), so the reads of 8 lanes (4 k rows apart) cover the 32 banks. X
// is copied 16 bytes at a time where it is aligned along the dimension it is copied, else 4 bytes.
// Elements outside the slice's K range are zeros in shared memory, never read from W or X.
// Measured (H100): docs/shapes.md.
// Build and run: bash scripts/build.sh && build/tilegemm bench --shape 14336x16x4096 --kernels auto
#pragma once
#include "core/split_k.cuh"
#include "dense/kernels/gemv_common.cuh"

namespace tilegemm {
namespace kernels {

// X's orientation in global memory: its rows of k contiguous (x_k == 1), or its columns of s.
enum class GemvXStage { KRows, SRows };

template <int kS_>
struct GemvStagedShape {
  static constexpr int kS = kS_;
  static constexpr int kWarps = 8, kThreads = 32 * kWarps;
  // Three stages of ~25 KB and 128 registers let two blocks share an SM. Measured against 4 stages
  // (spilled), 8 stages of one block, and 8 W rows per warp in one block of 242 registers: within
  // -5 % / +12 % of these across the N <= 16 products, none better everywhere (perf note #56).
  static constexpr int kStages = 3, kMinBlocks = 2;
  static constexpr int kRows = 4;                    // W rows per warp, 4 apart: kRows * kS accumulators per lane
  static constexpr int kBlockRows = kWarps * kRows;  // W rows per block
  static constexpr int kBK = 128;                    // k per stage: 4 consecutive k per lane
  // Shared W rows: kBK floats, or kBK + 8 where unaligned rows land 0 or 4 floats in (#55's rule).
  static constexpr int kWRow = kBK + 8;
  static constexpr int kWStage = kBlockRows * kWRow;  // floats of W per stage (room for either)
  static constexpr int kXGroup = 4 * kS + 4;         // [k][s] layout: 4 k rows, then 4 floats of padding
  static constexpr int kXLead = 4;                   // [k][s] rows before k0 when W is not aligned
  static constexpr int kXStage = (kBK + kXLead) / 4 * kXGroup;  // floats of X per stage (>= kS * kBK)
  static constexpr int kStageFloats = kWStage + kXStage;
  static constexpr int kSmemBytes = kStages * kStageFloats * 4;
  static constexpr int kOut = kRows * kS, kPerLane = (kOut + 31) / 32;
  static_assert(kS == 8 || kS == 16, "kS is 8 or 16");
  // Row i of a warp's rows: rows 4 apart share their misalignment d (4 ldw is a multiple of 4).
  static __device__ __forceinline__ int warp_row(int warp, int i) { return warp % 4 + 4 * i + 16 * (warp / 4); }
};

// kVecW: W's rows 16-byte aligned (ldw % 4 == 0 and W 16-byte aligned); kVecX: X likewise along the
// dimension it is copied (its rows of k when kX is KRows and W is aligned, else its rows of s).
template <int kS, GemvXStage kX, bool kVecW, bool kVecX>
__global__ void __launch_bounds__(GemvStagedShape<kS>::kThreads, GemvStagedShape<kS>::kMinBlocks)
    gemv_rows_staged(GemvParams p) {
  using G = GemvStagedShape<kS>;
  constexpr bool kXByS = kX == GemvXStage::KRows && kVecW;  // X staged as [s][k] rows
  constexpr int kLead = kVecW ? 0 : G::kXLead;              // [k][s] rows staged before k0
  extern __shared__ __align__(16) float smem[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int tile = blockIdx.x / p.splits, slice = blockIdx.x % p.splits;
  const int row0 = tile * G::kBlockRows;
  const GemvSlice range(p, slice);
  const int tiles = range.end > range.begin ? (range.end - range.begin + G::kBK - 1) / G::kBK : 0;
  // Each warp copies and multiplies its own rows (G::warp_row), which share d: how many floats W(row, k)
  // sits past a 16-byte boundary (k a multiple of 4, as every stage's k0). Bit r of `lands`: the
  // warp's row r lands 4 floats into its shared row, its aligned superset starting 16 bytes past a
  // 32-byte boundary (k0 is a multiple of 8 floats).
  constexpr int kWRow = kVecW ? G::kBK : G::kWRow;
  const float* w_row0 = p.w + static_cast<long long>(row0 + G::warp_row(warp, 0)) * p.ldw;
  const int d = kVecW ? 0 : static_cast<int>(reinterpret_cast<unsigned long long>(w_row0) / 4 % 4);
  int lands = 0;
  if (!kVecW)
#pragma unroll
    for (int r = 0; r < G::kRows; ++r)
      lands |= (reinterpret_cast<unsigned long long>(w_row0 + static_cast<long long>(4 * r) * p.ldw - d) % 32 != 0) << r;
  // A 16-byte aligned address inside W's allocation for copies that read nothing.
  const float* w_safe = reinterpret_cast<const float*>(reinterpret_cast<unsigned long long>(p.w) & ~15ull);

  auto load = [&](int t, int stage) {
    float* ws = smem + stage * G::kStageFloats;
    float* xs = ws + G::kWStage;
    const int k0 = range.begin + t * G::kBK;
    static_assert(G::kBK == 4 * 32, "a warp copies a stage of one W row, 16 bytes per lane");
#pragma unroll
    for (int i = 0; i < G::kRows; ++i) {  // 512 bytes of each of the warp's rows
      const int r = G::warp_row(warp, i), row = row0 + r;
      const int k = k0 - d + 4 * lane;  // the chunk's first k
      const float* src = w_row0 + static_cast<long long>(4 * i) * p.ldw + k;
      float* dst = ws + r * kWRow + (lands >> i & 1) * 4 + 4 * lane;
      if (kVecW || k >= range.begin) {
        const int left = row < p.l_count ? range.end - k : 0;
        const int valid = left < 0 ? 0 : left > 4 ? 4 : left;
        cp_async_16(dst, valid > 0 ? src : w_safe, valid);
      } else {  // the chunk that holds the slice's first k: 4-byte copies of the part inside it
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const bool ok = row < p.l_count && k + j >= range.begin && k + j < range.end;
          cp_async_4(dst + j, ok ? src + j : p.w, ok);
        }
      }
    }
    if constexpr (kXByS) {  // X(s, k) at x[s * x_s + k] into [s][k] rows
      constexpr int kW = kVecX ? 4 : 1, kChunks = G::kBK / kW;
#pragma unroll 4
      for (int i = 0; i < kS * kChunks / G::kThreads; ++i) {
        const int e = threadIdx.x + i * G::kThreads, s = e / kChunks, kk = e % kChunks * kW, k = k0 + kk;
        const int left = s < p.s_count ? range.end - k : 0;
        const int valid = left < 0 ? 0 : left > kW ? kW : left;
        const float* src = valid > 0 ? p.x + static_cast<long long>(s) * p.x_s + k : p.x;
        if (kVecX) cp_async_16(xs + s * G::kBK + kk, src, valid);
        else cp_async_4(xs + s * G::kBK + kk, src, valid > 0);
      }
    } else {  // X(s, k) for k = k0 - kLead + kk into [k][s] rows: kk / 4 * kXGroup + kk % 4 * kS + s
      constexpr int kRowsX = G::kBK + kLead;
      auto at = [](int kk, int s) { return kk / 4 * G::kXGroup + kk % 4 * kS + s; };
      if constexpr (kX == GemvXStage::SRows) {  // X(s, k) at x[k * x_k + s]: consecutive threads along s
        constexpr int kW = kVecX ? 4 : 1, kChunks = kS / kW, kCopies = kRowsX * kChunks;
#pragma unroll 4
        for (int i = 0; i < (kCopies + G::kThreads - 1) / G::kThreads; ++i) {
          const int e = threadIdx.x + i * G::kThreads;
          if (kCopies % G::kThreads != 0 && e >= kCopies) break;
          const int kk = e / kChunks, s = e % kChunks * kW, k = k0 - kLead + kk;
          const int left = k >= range.begin && k < range.end ? p.s_count - s : 0;
          const int valid = left < 0 ? 0 : left > kW ? kW : left;
          const float* src = valid > 0 ? p.x + static_cast<long long>(k) * p.x_k + s : p.x;
          if (kVecX) cp_async_16(xs + at(kk, s), src, valid);
          else cp_async_4(xs + at(kk, s), src, valid > 0);
        }
      } else {  // X(s, k) at x[s * x_s + k] (W not aligned): 4-byte copies, consecutive threads along k
        constexpr int kCopies = kRowsX * kS;
#pragma unroll 4
        for (int i = 0; i < (kCopies + G::kThreads - 1) / G::kThreads; ++i) {
          const int e = threadIdx.x + i * G::kThreads;
          if (kCopies % G::kThreads != 0 && e >= kCopies) break;
          const int s = e / kRowsX, kk = e % kRowsX, k = k0 - kLead + kk;
          const bool ok = s < p.s_count && k >= range.begin && k < range.end;
          cp_async_4(xs + at(kk, s), ok ? p.x + static_cast<long long>(s) * p.x_s + k : p.x, ok);
        }
      }
    }
  };

  float acc[G::kRows][kS] = {};
  // The warp's lanes read the [k][s] rows of k0 - d + 4 lane + j, j = 0..3: row kLead - d + j of
  // group `lane`, i.e. group lane + 1 less d rows, one group back (4 floats less padding) for j < d.
  const int x_base = kVecW ? lane * G::kXGroup : (lane + 1) * G::kXGroup - d * kS;
  auto multiply = [&](int stage) {
    const float* ws = smem + stage * G::kStageFloats + lane * 4;
    const float* xs = smem + stage * G::kStageFloats + G::kWStage;
    float4 wv[G::kRows];
#pragma unroll
    for (int r = 0; r < G::kRows; ++r)
      wv[r] = *reinterpret_cast<const float4*>(ws + G::warp_row(warp, r) * kWRow + (lands >> r & 1) * 4);
    if constexpr (!kXByS) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const float* xrow = xs + x_base + j * kS - (!kVecW && j < d ? G::kXGroup - 4 * kS : 0);
#pragma unroll
        for (int q = 0; q < kS / 4; ++q) {
          const float4 xv = *reinterpret_cast<const float4*>(xrow + 4 * q);
#pragma unroll
          for (int r = 0; r < G::kRows; ++r) {
            const float wj = j == 0 ? wv[r].x : j == 1 ? wv[r].y : j == 2 ? wv[r].z : wv[r].w;
            acc[r][4 * q + 0] = fmaf(wj, xv.x, acc[r][4 * q + 0]);
            acc[r][4 * q + 1] = fmaf(wj, xv.y, acc[r][4 * q + 1]);
            acc[r][4 * q + 2] = fmaf(wj, xv.z, acc[r][4 * q + 2]);
            acc[r][4 * q + 3] = fmaf(wj, xv.w, acc[r][4 * q + 3]);
          }
        }
      }
    } else {
#pragma unroll
      for (int s = 0; s < kS; ++s) {
        const float4 xv = *reinterpret_cast<const float4*>(xs + s * G::kBK + lane * 4);
#pragma unroll
        for (int r = 0; r < G::kRows; ++r) {
          acc[r][s] = fmaf(wv[r].x, xv.x, acc[r][s]);
          acc[r][s] = fmaf(wv[r].y, xv.y, acc[r][s]);
          acc[r][s] = fmaf(wv[r].z, xv.z, acc[r][s]);
          acc[r][s] = fmaf(wv[r].w, xv.w, acc[r][s]);
        }
      }
    }
  };

  cp_async_pipeline<G::kStages>(tiles, load, [&](int, int stage, int next, int next_stage) {
    if (next < tiles) load(next, next_stage);  // in flight before this stage's math
    multiply(stage);
  });
  if constexpr (!kVecW) {
    // The stages covered k0 - d .. k0 - d + kBK - 1 each, up to range.begin - d + tiles * kBK: the
    // slice's last (at most d <= 3) k, if beyond, straight from global memory, lane j the j-th.
    const int k = range.begin - d + tiles * G::kBK + lane;
    if (k < range.end) {
#pragma unroll
      for (int r = 0; r < G::kRows; ++r) {
        const int row = row0 + G::warp_row(warp, r);
        const float w = row < p.l_count ? p.w[static_cast<long long>(row) * p.ldw + k] : 0.0f;
#pragma unroll
        for (int s = 0; s < kS; ++s)
          if (s < p.s_count)
            acc[r][s] = fmaf(w, p.x[static_cast<long long>(s) * p.x_s + static_cast<long long>(k) * p.x_k], acc[r][s]);
      }
    }
  }

  gemv_rows_finish<G::kOut, kS, G::kThreads>(reinterpret_cast<float(&)[G::kOut]>(acc), p, tile, slice,
                                             [&](int r) { return row0 + G::warp_row(warp, r); });
}

}  // namespace kernels
}  // namespace tilegemm
