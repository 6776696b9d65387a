// Not a ladder level: GEMV-class product with a short side of 9-16 rows of X whose long operand W is
// contiguous along k (14336x16x4096, or 16x14336x4096 NT: C = X W^T): gemv-rows:s16. Same work
// split as gemv_rows.cuh (each warp kRows rows of W, lanes side by side along k, a shuffle tree sums
// the lanes, K split over blocks), but W and X reach shared memory through a kStages-deep cp.async
// pipeline instead of registers: at s = 16 each W float feeds 16 FMAs, and the register double buffer
// of gemv_rows.cuh kept one chunk in flight per SM and waited for it after every chunk's math
// (1.5 TB/s, perf note #39). Here kStages - 1 stages are in flight while one is multiplied, no
// register holds a load, and two blocks share an SM (perf note #56).
//
// W is always copied 16 bytes at a time, each warp's copy of a row one 512-byte piece. Rows that are
// not 16-byte aligned (kVecW false) are taken up to 32 apart (block_row), so that a block's
// rows sit at one offset `lead` (0..31 floats) past a 128-byte boundary, and every stage holds
// k0 - lead .. k0 - lead + 127 of W and of X alike: W's pieces are whole 128-byte lines, and the
// multiply is the aligned one. A 16-byte copy is slow where its global and shared addresses disagree
// within 32 bytes (#55), and a piece that spans 5 lines costs a fifth more shared-memory wavefronts
// (#59). The slice's first chunks lose the lead's k before the slice (zeros, and the chunk that
// straddles it copied a float per lane by four lanes; the same at its end, so that no copy reads past
// W's last row), and its last (at most lead) k, past the stages, are copied with stage 0 into a small
// tail area and multiplied with stage 0 ([s][k] X) or at the end (perf note #64).
// X is staged as [s][k] rows when it runs along k (NT's A); otherwise as [k][s] rows, padded by 8
// floats every 4 rows (GemvStagedShape::kXGroup). X is copied 16 bytes at a time where it is aligned
// along the dimension it is copied, else 4 bytes; [s][k] rows behind unaligned W start lead k before
// a stage's k0, and each is copied 16, 8 or 4 bytes at a time as its offset from that k allows; or
// all 16 bytes at a time where they sit at W's offset from a 16-byte boundary (both operands offset
// alike), or where the prologue packed them as four copies shifted by 0-3 floats: the block reads
// the copy whose rows its stages find 16-byte aligned.
// Elements outside the slice's K range are zeros in shared memory, never read from W or X.
// Measured (H100): docs/shapes.md.
// Build and run: bash scripts/build.sh && build/tilegemm bench --shape 14336x16x4096 --kernels auto
#pragma once
#include "kernels/common/split_k.cuh"
#include "kernels/gemm/gemv_common.cuh"

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
  static constexpr int kRows = 4;                    // W rows per warp: kRows * kS accumulators per lane
  static constexpr int kBlockRows = kWarps * kRows;  // W rows per block
  static constexpr int kBK = 128;                    // k per stage: 4 consecutive k per lane, a 512-byte row piece
  static constexpr int kLine = 32;                   // floats per 128-byte line
  static constexpr int kWStage = kBlockRows * kBK;   // floats of W per stage
  // [k][s] layout: 4 k rows, then 8 floats, so that every row starts at a 32-byte boundary as X's
  // rows do (#55). The reads of 8 lanes, 4 k rows apart, then fall on 4 bank groups twice: lanes
  // 4-7 of every 8 read a row's 16-byte chunks in the order 1 0 3 2 (flip), which spreads them.
  static constexpr int kXGroup = 4 * kS + 8;
  static constexpr int kXStage = kBK / 4 * kXGroup;  // floats of X per stage (>= kS * kBK for [s][k])
  // Every stage, and so every shared W row, starts at a 128-byte boundary.
  static constexpr int kStageFloats = (kWStage + kXStage + kLine - 1) / kLine * kLine;
  // Unaligned W: the slice's last (at most kLine - 1) k past the stages, for each block row
  // ([row][k]), and X at those k ([s][k]).
  static constexpr int kTailW = kBlockRows * kLine, kTailFloats = kTailW + kS * kLine;
  static constexpr int kSmemBytes = (kStages * kStageFloats + kTailFloats) * 4;
  static constexpr int kOut = kRows * kS, kPerLane = (kOut + 31) / 32;
  static_assert(kS == 8 || kS == 16, "kS is 8 or 16");
  static_assert(kS * kBK <= kXStage, "[s][k] X fits the stage");
  // The block rows (0..kBlockRows - 1) of warp `warp`.
  static __device__ __forceinline__ int warp_row(int warp, int i) { return warp % 4 + 4 * i + 16 * (warp / 4); }
  // W row of block row b: kBlockRows consecutive rows per tile where W's rows are 16-byte aligned.
  // Otherwise rows `step` apart, the fewest that sit at one offset from a 128-byte boundary (step ldw
  // floats a whole number of lines: 32 for an odd ldw, 1 where ldw is a multiple of 32): tile t takes
  // rows t % step + step b of the (t / step)-th group of step kBlockRows rows. The grid has kLine
  // tiles per group of kLine kBlockRows rows (kGemvStagedRowGroup, config.hpp); tiles past the last
  // row have nothing to do.
  static __device__ __forceinline__ int row_step(int ldw) {
    const int low = ldw & -ldw;  // the largest power of 2 dividing ldw
    return low >= kLine ? 1 : kLine / low;
  }
  template <bool kVecW>
  static __device__ __forceinline__ int block_row(int tile, int b, int step) {
    return kVecW ? tile * kBlockRows + b : tile / step * (step * kBlockRows) + tile % step + step * b;
  }
};

// X(s, k0 + kk) at x[s * x_s + k0 + kk] (x: p.x, or a shifted copy of it) into a stage's [s][k]
// rows, 16 bytes (kVec) or 4 bytes at a time: thread e copies row e / (kBK / width). A stage inside the slice with every s present copies
// without bounds; otherwise elements outside the slice or past s_count are zeros (with kVec, k0 -
// begin is a multiple of 4: a chunk starts inside the slice or wholly before it).
template <class G, bool kVec>
__device__ __forceinline__ void gemv_stage_x_rows_of_k(float* xs, const GemvParams& p, const float* x, int k0,
                                                       const GemvSlice& range, bool inside) {
  constexpr int kS = G::kS, kW = kVec ? 4 : 1, kChunks = G::kBK / kW, kSStep = G::kThreads / kChunks;
  const int s0 = threadIdx.x / kChunks, kk = threadIdx.x % kChunks * kW, kx = k0 + kk;
  if (inside && p.s_count == kS) {
    const float* src = x + static_cast<long long>(s0) * p.x_s + kx;
#pragma unroll
    for (int i = 0; i < kS / kSStep; ++i) {
      float* dst = xs + (s0 + kSStep * i) * G::kBK + kk;
      const float* from = src + static_cast<long long>(kSStep * i) * p.x_s;
      if (kVec) cp_async_16(dst, from, 4);
      else cp_async_4(dst, from, true);
    }
  } else {
#pragma unroll
    for (int i = 0; i < kS / kSStep; ++i) {
      const int s = s0 + kSStep * i;
      float* dst = xs + s * G::kBK + kk;
      if (kVec) {
        const int left = s < p.s_count && kx >= range.begin ? range.end - kx : 0;
        const int valid = left < 0 ? 0 : left > kW ? kW : left;
        cp_async_16(dst, valid > 0 ? x + static_cast<long long>(s) * p.x_s + kx : p.x, valid);
      } else {
        const bool ok = s < p.s_count && kx >= range.begin && kx < range.end;
        cp_async_4(dst, ok ? x + static_cast<long long>(s) * p.x_s + kx : p.x, ok);
      }
    }
  }
}

// A stage across either end of a slice, copied a 16-byte chunk (k0 + 4 lane) per lane from rows
// that are 16-byte aligned at k0: chunks wholly inside the slice are copied whole, chunks wholly
// outside are zeros, and a chunk across an end is left by its lane to lanes 0-3 (the slice's first k)
// or 4-7 (its end), a float each. A few instructions a row, where a divergent branch per lane took
// ~70 (perf note #64).
template <class G>
struct GemvEdgeStage {
  bool whole, across, edge, kc_in;
  int kc;  // the float lanes 0-7 copy, past k0
  __device__ __forceinline__ GemvEdgeStage(int k0, int lane, const GemvSlice& range) {
    const int k = k0 + 4 * lane, kb = range.begin - k0, ke = range.end - k0;  // the slice's ends, past k0
    whole = k >= range.begin && k + 4 <= range.end;
    across = !whole && k + 4 > range.begin && k < range.end;
    // The chunk across the slice's first k, and the one across its end unless that is the same.
    const bool begin_across = kb > 0 && kb < G::kBK && (kb & 3) != 0;
    const bool end_across = ke > 0 && ke < G::kBK && (ke & 3) != 0 && !(begin_across && ke >> 2 == kb >> 2);
    edge = lane < 4 ? begin_across : lane < 8 && end_across;
    kc = ((lane < 4 ? kb : ke) & ~3) + (lane & 3);
    kc_in = k0 + kc >= range.begin && k0 + kc < range.end;
  }
  // One row: its element k0 at `from` (16-byte aligned), its stage row at `dst`; zeros where !row_ok.
  __device__ __forceinline__ void copy(float* dst, const float* from, bool row_ok, int lane, const float* safe) const {
    if (!across) cp_async_16_or_zeros(dst + 4 * lane, from + 4 * lane, row_ok && whole);
    if (edge) cp_async_4(dst + kc, row_ok && kc_in ? from + kc : safe, row_ok && kc_in);
  }
};

// kVecW: W's rows 16-byte aligned (ldw % 4 == 0, W 16-byte aligned): consecutive block rows, every
// stage at its k0 (fastest where the rows also start at 128-byte boundaries: 5 lines per piece
// otherwise). kVecX: X 16-byte aligned along the dimension it is copied (rows of s for SRows; rows of
// k for KRows, where W is aligned: unaligned W's stages start lead k early, and each X row is then
// copied as wide as its own offset allows; or, with kVecX, X's rows sit at W's offset from a 16-byte
// boundary: as stored, or in the copy (of four packed, shifted by 0-3 floats: GemvParams::
// x_shift_step) that the block picks by its lead).
template <int kS, GemvXStage kX, bool kVecW, bool kVecX>
__global__ void __launch_bounds__(GemvStagedShape<kS>::kThreads, GemvStagedShape<kS>::kMinBlocks)
    gemv_rows_staged(GemvParams p) {
  using G = GemvStagedShape<kS>;
  constexpr bool kXByS = kX == GemvXStage::KRows;  // X staged as [s][k] rows
  float* const smem = dynamic_smem<float>();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int tile = blockIdx.x / p.splits, slice = blockIdx.x % p.splits;
  const GemvSlice range(p, slice);
  const int tiles = range.end > range.begin ? (range.end - range.begin + G::kBK - 1) / G::kBK : 0;
  const int step = kVecW ? 1 : G::row_step(p.ldw);
  auto row_of = [&](int i) { return G::template block_row<kVecW>(tile, G::warp_row(warp, i), step); };
  if (!kVecW && G::template block_row<kVecW>(tile, 0, step) >= p.l_count) {  // a tile past the last row
    griddep_wait();  // kernels/common/griddep.cuh: before it ends
    return;
  }
  auto w_row = [&](int i) { return p.w + static_cast<long long>(row_of(i)) * p.ldw; };
  // lead: how many floats W(row, k) sits past a 128-byte boundary, the same for every row of the
  // block (k a multiple of kLine, as every slice's first k); each stage starts lead k before its k0.
  const int lead = kVecW ? 0 : static_cast<int>(reinterpret_cast<unsigned long long>(w_row(0)) / 4 % G::kLine);
  // X's rows of k behind unaligned W at W's offset: as stored (x_shift_step 0), or packed as four
  // shifted copies, of which copy lead % 4 puts every stage's k0 (lead k before a multiple of 32) at
  // a 16-byte boundary in every row.
  constexpr bool kShiftedX = kXByS && !kVecW && kVecX;
  const float* const x = kShiftedX ? p.x + (lead & 3) * p.x_shift_step : p.x;
  // A 16-byte aligned address inside W's allocation for copies that read nothing.
  const float* w_safe = reinterpret_cast<const float*>(reinterpret_cast<unsigned long long>(p.w) & ~15ull);
  float* const tail = smem + G::kStages * G::kStageFloats;
  // Stages inside the slice copy each row's lane chunk whole, or zeros for rows past the last: the
  // lane's kRows rows lie 4 step rows apart (warp_row). Precomputed, these copies cost ~40
  // instructions a stage instead of ~100 (perf note #61).
  const float* const w_lane = w_row(0) + 4 * lane;
  const long long row_stride = static_cast<long long>(4 * step) * p.ldw;
  unsigned rows_ok = 0;
#pragma unroll
  for (int i = 0; i < G::kRows; ++i) rows_ok |= (row_of(i) < p.l_count ? 1u : 0u) << i;
  const int tail_k = range.begin - lead + tiles * G::kBK;  // the first k past the stages

  auto load = [&](int t, int stage) {
    float* ws = smem + stage * G::kStageFloats;
    float* xs = ws + G::kWStage;
    const int k0 = range.begin - lead + t * G::kBK;  // the stage's first k
    static_assert(G::kBK == 4 * 32, "a warp copies a stage of one W row, 16 bytes per lane");
    const int k = k0 + 4 * lane;  // the lane's W chunk
    const bool inside = k0 >= range.begin && k0 + G::kBK <= range.end;
    if (inside) {
#pragma unroll
      for (int i = 0; i < G::kRows; ++i)
        cp_async_16_or_zeros(ws + G::warp_row(warp, i) * G::kBK + 4 * lane, w_lane + k0 + i * row_stride,
                             (rows_ok >> i) & 1u);
    } else if (kVecW) {  // the slice's last stage where it ends inside one
#pragma unroll
      for (int i = 0; i < G::kRows; ++i) {
        const int left = row_of(i) < p.l_count ? range.end - k : 0;
        const int valid = left < 0 ? 0 : left > 4 ? 4 : left;
        cp_async_16(ws + G::warp_row(warp, i) * G::kBK + 4 * lane, valid > 0 ? w_row(i) + k : w_safe, valid);
      }
    } else if constexpr (!kShiftedX) {  // unaligned rows, a stage across either end of the slice
      const GemvEdgeStage<G> edge(k0, lane, range);
#pragma unroll
      for (int i = 0; i < G::kRows; ++i)
        edge.copy(ws + G::warp_row(warp, i) * G::kBK, w_lane - 4 * lane + k0 + i * row_stride, (rows_ok >> i) & 1u,
                  lane, p.w);
    } else {
      // X at W's offset: the same, a divergent branch for each lane's chunk. This instantiation ran
      // 16x14336x4096 NT 1.2-1.5 us slower with GemvEdgeStage's copies (W's or X's; perf note #64).
#pragma unroll
      for (int i = 0; i < G::kRows; ++i) {
        float* dst = ws + G::warp_row(warp, i) * G::kBK + 4 * lane;
        const bool row_ok = row_of(i) < p.l_count;
        if ((k >= range.begin && k + 4 <= range.end) || k + 4 <= range.begin || k >= range.end) {  // inside, or zeros
          const bool ok = row_ok && k >= range.begin && k < range.end;
          cp_async_16(dst, ok ? w_row(i) + k : w_safe, ok ? 4 : 0);
        } else {
#pragma unroll
          for (int j = 0; j < 4; ++j) {
            const bool ok = row_ok && k + j >= range.begin && k + j < range.end;
            cp_async_4(dst + j, ok ? w_row(i) + k + j : p.w, ok);
          }
        }
      }
    }
    if (!kVecW && t == 0 && lead > 0) {  // W(row, tail_k + lane): the slice's last k past the stages
#pragma unroll
      for (int i = 0; i < G::kRows; ++i) {
        const bool ok = row_of(i) < p.l_count && tail_k + lane < range.end;
        cp_async_4(tail + G::warp_row(warp, i) * G::kLine + lane, ok ? w_row(i) + tail_k + lane : p.w, ok);
      }
    }
    // A packed X comes from the call's prologue: the first stage's copies of W are in flight while
    // this waits for it (a launch that overlaps nothing returns at once; kernels/common/griddep.cuh).
    if (t == 0) griddep_wait();
    if (!kVecW && t == 0 && lead > 0) {
#pragma unroll
      for (int i = 0; i < kS * G::kLine / G::kThreads; ++i) {  // X(s, tail_k + j) into the tail's [s][j]
        const int e = threadIdx.x + i * G::kThreads;
        const int s = kXByS ? e / G::kLine : e % kS, j = kXByS ? e % G::kLine : e / kS;
        const bool ok = s < p.s_count && tail_k + j < range.end;
        cp_async_4(tail + G::kTailW + s * G::kLine + j,
                   ok ? x + static_cast<long long>(s) * p.x_s + static_cast<long long>(tail_k + j) * p.x_k : p.x, ok);
      }
    }
    // X: a stage inside the slice copies without bounds (`inside`); otherwise elements outside the
    // slice or past s_count are zeros. Without bounds, rows past s_count read another row instead:
    // those sums are never stored.
    if constexpr (kXByS) {  // X(s, k) at x[s * x_s + k] into [s][k] rows
      if (kVecW || (kShiftedX && inside)) {
        gemv_stage_x_rows_of_k<G, kVecX>(xs, p, x, k0, range, inside);
      } else if (inside) {  // each row at the widest copies its offset from a 16-byte boundary allows
#pragma unroll
        for (int i = 0; i < kS / G::kWarps; ++i) {
          const int s = warp + G::kWarps * i;
          const float* src = p.x + static_cast<long long>(s < p.s_count ? s : p.s_count - 1) * p.x_s + k0;
          float* dst = xs + s * G::kBK;
          const int offset = static_cast<int>(reinterpret_cast<unsigned long long>(src) / 4 % 4);
          if (offset == 0) {
            cp_async_16(dst + 4 * lane, src + 4 * lane, 4);
          } else if (offset == 2) {
#pragma unroll
            for (int j = 0; j < 2; ++j) cp_async_8(dst + 2 * lane + 64 * j, src + 2 * lane + 64 * j);
          } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) cp_async_4(dst + lane + 32 * j, src + lane + 32 * j, true);
          }
        }
      } else if constexpr (!kShiftedX) {  // a stage across either end of the slice: rows warp + kWarps i, 4 bytes at a time
#pragma unroll
        for (int i = 0; i < kS / G::kWarps; ++i) {
          const int s = warp + G::kWarps * i;
          const float* from = p.x + static_cast<long long>(s < p.s_count ? s : p.s_count - 1) * p.x_s + k0;
          float* dst = xs + s * G::kBK;
#pragma unroll
          for (int j = 0; j < 4; ++j) {
            const int kk = lane + 32 * j;
            const bool ok = s < p.s_count && k0 + kk >= range.begin && k0 + kk < range.end;
            cp_async_4(dst + kk, ok ? from + kk : p.x, ok);
          }
        }
      } else {
        gemv_stage_x_rows_of_k<G, false>(xs, p, x, k0, range, inside);
      }
    } else {  // X(s, k) at x[k * x_k + s] into [k][s] rows (kk / 4 * kXGroup + kk % 4 * kS + s): thread e copies s = e % kChunks
      constexpr int kW = kVecX ? 4 : 1, kChunks = kS / kW, kKStep = G::kThreads / kChunks;
      static_assert(kKStep % 4 == 0 && G::kBK % kKStep == 0, "a thread's k rows are whole groups apart");
      const int s = threadIdx.x % kChunks * kW, kk0 = threadIdx.x / kChunks;
      float* const dst = xs + kk0 / 4 * G::kXGroup + kk0 % 4 * kS + s;
      if (inside && (!kVecX || p.s_count == kS)) {
        const int s_read = s < p.s_count ? s : 0;
        const float* src = p.x + static_cast<long long>(k0 + kk0) * p.x_k + s_read;
#pragma unroll
        for (int i = 0; i < G::kBK / kKStep; ++i) {
          const float* from = src + static_cast<long long>(kKStep * i) * p.x_k;
          if (kVecX) cp_async_16(dst + kKStep / 4 * i * G::kXGroup, from, 4);
          else cp_async_4(dst + kKStep / 4 * i * G::kXGroup, from, true);
        }
      } else {
#pragma unroll
        for (int i = 0; i < G::kBK / kKStep; ++i) {
          const int kx = k0 + kk0 + kKStep * i;
          const int left = kx >= range.begin && kx < range.end ? p.s_count - s : 0;
          const int valid = left < 0 ? 0 : left > kW ? kW : left;
          const float* src = valid > 0 ? p.x + static_cast<long long>(kx) * p.x_k + s : p.x;
          if (kVecX) cp_async_16(dst + kKStep / 4 * i * G::kXGroup, src, valid);
          else cp_async_4(dst + kKStep / 4 * i * G::kXGroup, src, valid > 0);
        }
      }
    }
  };

  float acc[G::kRows][kS] = {};
  // [k][s] X: this lane reads chunk q ^ flip of each X row into acc's chunk q (GemvStagedShape::kXGroup).
  const int flip = kXByS ? 0 : lane >> 2 & 1;
  auto multiply = [&](int stage) {
    const float* ws = smem + stage * G::kStageFloats + lane * 4;
    const float* xs = smem + stage * G::kStageFloats + G::kWStage;
    float4 wv[G::kRows];
#pragma unroll
    for (int r = 0; r < G::kRows; ++r) wv[r] = *reinterpret_cast<const float4*>(ws + G::warp_row(warp, r) * G::kBK);
    if constexpr (!kXByS) {
      // The lane's k are 4 lane + j: row j of group `lane`.
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const float* xrow = xs + lane * G::kXGroup + j * kS;
#pragma unroll
        for (int q = 0; q < kS / 4; ++q) {
          const float4 xv = *reinterpret_cast<const float4*>(xrow + 4 * (q ^ flip));
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

  // The slice's last k past the stages, landed with stage 0 (zeros past the slice): lane j takes k
  // tail_k + j. [s][k] X copied per row multiplies it with stage 0, while the first stages are still
  // arriving, instead of after the last (perf note #64).
  auto multiply_tail = [&] {
    const float* tx = tail + G::kTailW + lane;
#pragma unroll
    for (int r = 0; r < G::kRows; ++r) {
      const float w = tail[G::warp_row(warp, r) * G::kLine + lane];
#pragma unroll
      for (int s = 0; s < kS; ++s) acc[r][s] = fmaf(w, tx[s * G::kLine], acc[r][s]);
    }
  };
  cp_async_pipeline<G::kStages>(tiles, load, [&](int t, int stage, int next, int next_stage) {
    if (next < tiles) load(next, next_stage);  // in flight before this stage's math
    multiply(stage);
    if constexpr (kXByS && !kVecW && !kShiftedX) {
      if (t == 0 && lead > 0) multiply_tail();
    }
  });
  if constexpr (!kXByS) {  // back to acc[r][s] = the sum for s
#pragma unroll
    for (int r = 0; r < G::kRows; ++r)
#pragma unroll
      for (int q = 0; q < kS / 4; q += 2)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          const float a = acc[r][4 * q + c], b = acc[r][4 * q + 4 + c];
          acc[r][4 * q + c] = flip ? b : a;
          acc[r][4 * q + 4 + c] = flip ? a : b;
        }
  }
  if constexpr (!kXByS || kShiftedX) {  // [k][s] X: once acc's chunks are back in order; X at W's offset: as measured
    if (!kVecW && tiles > 0 && lead > 0) multiply_tail();
  }

  if (tiles == 0) griddep_wait();  // kernels/common/griddep.cuh: before it ends (else in the first load)
  gemv_rows_finish<G::kOut, kS, G::kThreads>(reinterpret_cast<float(&)[G::kOut]>(acc), p, tile, slice, row_of);
}

}  // namespace kernels
}  // namespace tilegemm
