// Level 06 - warp-tiled, multi-stage cp.async pipeline, Hilbert rasterization.
// Source: seed 004 (256x128 block tiles on a Hilbert curve, 256x8 / 8x128 shared tiles in a 4-stage
// asynchronous-copy pipeline, 64x64 warp tiles, 8x16 thread tiles, 128-bit accesses).
//
// - Block tile BM x BN, split into warp tiles WM x WN; each lane of a warp owns TM x TN outputs.
// - K advances BK at a time through a STAGES-deep ring of shared buffers filled with cp.async; one
//   __syncthreads per K-tile. Out-of-range elements are zero-filled by the copy itself (src-size 0),
//   so there is no separate edge path and every M, N, K works.
// - Shared-memory tiles, by the operand's global orientation:
//     contiguous along m/n (A^T, B): tile [k][col], filled by plain (16-byte when aligned, else 4-byte)
//       cp.async copies; a lane's columns are 4-wide chunks kLanes*4 apart, read with one 128-bit load
//       per chunk and k;
//     contiguous along k (A, B^T), schedules with kTransposeK (the library's defaults): transposed
//       into a [k][col] tile (rows padded by kKColPad) by 4-byte copies, then read like the above.
//       Both fragments cost TM + TN registers, which freed ~60 registers (255 -> ~195) and gave
//       0.88x -> 0.94x cuBLAS at 4096^3 (perf note #16);
//     contiguous along k without kTransposeK: tile [col][k] with rows padded to BK+4 floats; one
//       128-bit load gives 4 consecutive k of one column (4*TM fragment registers for A). The padding
//       makes the 8 consecutive columns a warp reads land in 8 different 16-byte bank groups.
//   (The very first version transposed with 4-byte copies too, but every copy held its own 64-bit
//   address and spilled: 0.72x; TileCopier's one-offset-and-strides addressing fixed that later.)
// - Blocks visit output tiles in the order given by p.raster (row-major, grouped or Hilbert).
// Measured (H100, row-major NN, 2026-11-23): 4096^3 48.4 TFLOP/s, 0.936-0.938x cuBLAS; 8192^3
// 0.943-0.945x; 4095x4097x4093 0.928x; table in docs/ladder.md.
// Build and run: bash scripts/build.sh && build/tilegemm bench --shape 4096x4096x4096 --kernels 6
#pragma once
#include "kernels/gemm/common.cuh"
#include "kernels/common/griddep.cuh"
#include "kernels/common/pick_type.hpp"
#include "kernels/common/tile_copy.cuh"

// The copies form their offsets in 32 bits, as row * ld + col of the whole operand: the host runs
// these kernels only on A and B that span at most 2^31 - 1 elements (CanonicalGemm::
// tiled_offsets_fit; Auto takes larger operands to level 5 or the GEMV kernels). 64-bit offsets
// here cost level 6 4 % (0.938x -> 0.903x cuBLAS at 4096^3 on the H100, perf note #18), and even a
// 64-bit tile origin with 32-bit offsets inside the tile changed its main loop. C's offsets (the
// epilogue, once per tile) are 64-bit, so C may span more.
namespace tilegemm {
namespace kernels {

// Floats added to each row of a [col][k] tile (keeps rows 16-byte aligned, spreads banks).
constexpr int kColKPad = 4;
// Floats added to each row of a [k][col] tile that a transposing copy fills (16-byte aligned rows; the
// 8 k x 4 columns a warp writes land in 32 different banks).
constexpr int kKColPad = 4;

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES, int MIN_BLOCKS = 1,
          int FMA_ORDER = 2, bool TRANSPOSE_K = false>
struct WarpTiledSchedule {
  static constexpr bool kMma = false;  // FFMA thread tiles (level 7's schedules: tensor cores)
  static constexpr int kBlockM = BM, kBlockN = BN, kBlockK = BK;
  static constexpr int kWarpM = WM, kWarpN = WN, kThreadM = TM, kThreadN = TN;
  static constexpr int kStages = STAGES;
  // Blocks that must fit on one SM at once: caps registers at 64K / (kThreads * MIN_BLOCKS).
  static constexpr int kMinBlocksPerSm = MIN_BLOCKS;
  // Order of the TM x TN FMAs of one k: 0 rows outer, 1 columns outer, 2 rows outer with every other
  // row walked backwards (consecutive FMAs always share an operand), 3 / 4 bands of 2 / 4 rows walked
  // column by column as a snake (also sharing an operand each step). Changes only the register
  // allocation ptxas finds, which is what limits this kernel: 2 measured +1 to +3 % over 0 and 1 was
  // 15 % slower (docs/perf-notes.md).
  static constexpr int kFmaOrder = FMA_ORDER;
  // true: operands contiguous along k are transposed into [k][col] tiles by 4-byte copies, so both
  // fragments are read one k at a time (TM + TN registers instead of 4 * TM for a [col][k] A).
  static constexpr bool kTransposeK = TRANSPOSE_K;
  static constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  static constexpr int kLanesM = WM / TM, kLanesN = WN / TN;  // lane grid inside a warp
  // Upper bound over both orientations of each operand.
  static constexpr int kSmemBytes = STAGES * (BM + BN) * (BK + kColKPad) * 4;
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tile must divide the block tile");
  static_assert(WM % TM == 0 && WN % TN == 0, "thread tile must divide the warp tile");
  static_assert(kLanesM * kLanesN == 32, "a warp tile must be covered by exactly 32 lanes");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "fragments are read 4 floats at a time");
  static_assert(BK % 4 == 0, "[col][k] tiles are read 4 k at a time");
  static_assert(kLanesM <= 8 && kLanesN <= 8, "at most 8 distinct [col][k] rows per warp read");
  static_assert((BM * BK) % kThreads == 0 && (BN * BK) % kThreads == 0 &&
                    (BM * BK / 4) % kThreads == 0 && (BN * BK / 4) % kThreads == 0,
                "tile copies must split evenly over the threads");
  static_assert(kThreads <= 1024 && STAGES >= 2, "at most 1024 threads, at least 2 stages");
  static_assert(FMA_ORDER >= 0 && FMA_ORDER <= 4, "FMA order is 0-4");
  static_assert(FMA_ORDER < 3 || TM % (FMA_ORDER == 3 ? 2 : 4) == 0, "bands must divide TM");
  static_assert(!TRANSPOSE_K || (BK % 8 == 0 && kThreads % 8 == 0 && (BM * 8) % kThreads == 0 &&
                                 (BN * 8) % kThreads == 0 && BM % 32 == 0 && BN % 32 == 0),
                "transposing copies move 8 k x (threads / 8) columns per pass");
  static_assert(kSmemBytes <= 227 * 1024, "shared memory per block is at most 227 KB on sm_90");
};

// Floats in one stage of an operand's tile: [col][k] (kColK), [k][col] filled by a transposing copy
// (kTransposed, padded rows) or plain [k][col].
template <int BK, int kCols, bool kColK, bool kTransposed>
__host__ __device__ constexpr int tile_floats() {
  return kColK ? kCols * (BK + kColKPad) : BK * (kCols + (kTransposed ? kKColPad : 0));
}

// Copies the BK x kCols slice [k0, k0+BK) x [c0, c0+kCols) of an operand into shared memory, keeping
// its global orientation:
//   kContigK: element (k, col) at src[col*ld + k]  -> tile[col*(BK+kColKPad) + k]
//   else:     element (k, col) at src[k*ld + col]  -> tile[k*kCols + col]
// kVec: 16-byte copies (the host checked pointer and ld alignment), else 4-byte copies. kColPad: floats
// added to each [k][col] row (level 7's fragment reads want rows 8 banks apart; level 6 none).
// Elements outside [0, k_size) x [0, col_size) are zero-filled.
// The threads share the copies as kernels/common/tile_copy.cuh lays out (one inner position of kCopies rows
// kRowStep apart each), so a thread's share is one offset, one stride and two bounds. Offsets are
// 32-bit (see the top of this file).
template <int BK, int kCols, int kThreads, bool kContigK, bool kVec, int kColPad = 0>
struct TileCopier {
  static constexpr int kInner = kContigK ? BK : kCols;   // extent along the contiguous direction
  static constexpr int kOuter = kContigK ? kCols : BK;
  static constexpr int kLd = kContigK ? BK + kColKPad : kCols + kColPad;  // shared row length
  static constexpr int kWidth = kVec ? 4 : 1;            // floats per copy
  using Layout = RowCopyLayout<kOuter, kInner, kThreads, kWidth>;
  static_assert(Layout::kInnerCopies == 1, "each thread must own one inner position of whole rows");
  static constexpr int kRowStep = Layout::kRowStep;
  static_assert(kOuter % kRowStep == 0, "rows must split evenly over the threads");
  static constexpr int kCopies = Layout::kCopies;

  int inner, outer;  // this thread's first element inside the tile
  int smem_offset;

  __device__ __forceinline__ explicit TileCopier(int tid)
      : inner(Layout::inner_of(tid)), outer(Layout::row_of(tid)), smem_offset(outer * kLd + inner) {}

  __device__ __forceinline__ void issue(float* tile, const float* src, int ld, int k0, int c0,
                                        int k_size, int col_size) const {
    const int g_inner = (kContigK ? k0 : c0) + inner;
    const int g_outer = (kContigK ? c0 : k0) + outer;
    const int inner_left = (kContigK ? k_size : col_size) - g_inner;  // valid floats from g_inner
    const int outer_left = (kContigK ? col_size : k_size) - g_outer;  // valid rows from g_outer
    const int valid = inner_left <= 0 ? 0 : (inner_left >= kWidth ? kWidth : inner_left);
    const float* base = src + (valid > 0 && outer_left > 0 ? g_outer * ld + g_inner : 0);
#pragma unroll
    for (int r = 0; r < kCopies; ++r) {
      const bool row_ok = r * kRowStep < outer_left;
      const int n = row_ok ? valid : 0;
      const float* from = n > 0 ? base + r * kRowStep * ld : src;
      float* to = tile + smem_offset + r * kRowStep * kLd;
      if (kVec) cp_async_16(to, from, n);
      else cp_async_4(to, from, n > 0);
    }
  }

  // Copies of a K-tile inside the operand on every side (not the last tile row / column of a
  // ragged edge, not the last K-tile of a K that BK does not divide): no bounds, so each copy is an
  // address and the copy. issue()'s per-copy bounds arithmetic and address selects were ~270
  // instructions per 128x256x32 K-tile. In kGroups groups, so the main loop can spread them over
  // its first k steps.
  static constexpr int kGroups = kCopies;
  __device__ __forceinline__ const float* interior_base(const float* src, int ld, int k0, int c0) const {
    return src + ((kContigK ? c0 : k0) + outer) * ld + (kContigK ? k0 : c0) + inner;
  }
  __device__ __forceinline__ void issue_interior_group(float* tile, const float* base, int ld, int r) const {
    float* to = tile + smem_offset + r * kRowStep * kLd;
    if (kVec) cp_async_16(to, base + r * kRowStep * ld, kWidth);
    else cp_async_4(to, base + r * kRowStep * ld, true);
  }
};

// Copies the BK x kCols slice of an operand contiguous along k (element (k, col) at src[col*ld + k])
// into a [k][col] tile with rows of kCols + kKColPad floats, one float per cp.async. A warp copies
// 8 consecutive k of 4 columns per instruction: 4 full 32-byte sectors read, and the 32 shared
// addresses k*(kCols+4) + col fall in 32 different banks. Each thread owns k = tid % 8 (+ 8 per k
// pass) of columns tid / 8 + kColStep * r: one base offset and two strides, like TileCopier.
template <int BK, int kCols, int kThreads>
struct TransposingCopier {
  static constexpr int kLd = kCols + kKColPad;
  static constexpr int kColStep = kThreads / 8;
  static constexpr int kColCopies = kCols / kColStep;
  static constexpr int kKCopies = BK / 8;
  static_assert(kCols % kColStep == 0 && BK % 8 == 0, "copies must split evenly over the threads");

  int k_in, col_in;
  __device__ __forceinline__ explicit TransposingCopier(int tid) : k_in(tid % 8), col_in(tid / 8) {}

  __device__ __forceinline__ void issue(float* tile, const float* src, int ld, int k0, int c0,
                                        int k_size, int col_size) const {
    const int g_k = k0 + k_in, g_col = c0 + col_in;
    const int k_left = k_size - g_k, col_left = col_size - g_col;
    const float* base = src + (k_left > 0 && col_left > 0 ? g_col * ld + g_k : 0);
    float* to = tile + k_in * kLd + col_in;
#pragma unroll
    for (int r = 0; r < kColCopies; ++r) {
#pragma unroll
      for (int kc = 0; kc < kKCopies; ++kc) {
        const bool ok = r * kColStep < col_left && kc * 8 < k_left;
        const float* from = ok ? base + r * kColStep * ld + kc * 8 : src;
        cp_async_4(to + kc * 8 * kLd + r * kColStep, from, ok);
      }
    }
  }

  // Interior copies in groups (see TileCopier::interior_base): group r is column group r.
  static constexpr int kGroups = kColCopies;
  __device__ __forceinline__ const float* interior_base(const float* src, int ld, int k0, int c0) const {
    return src + (c0 + col_in) * ld + k0 + k_in;
  }
  __device__ __forceinline__ void issue_interior_group(float* tile, const float* base, int ld, int r) const {
    float* to = tile + k_in * kLd + col_in + r * kColStep;
#pragma unroll
    for (int kc = 0; kc < kKCopies; ++kc) cp_async_4(to + kc * 8 * kLd, base + r * kColStep * ld + kc * 8, true);
  }
};

// All copies of one stage of a tile, for either copier: with bounds (issue), or, for an interior
// tile on a whole K-tile, without them (interior_base and every group at once).
template <class Copier>
__device__ __forceinline__ void issue_stage(const Copier& copy, float* tile, const float* src, int ld, int k0, int c0,
                                            int k_size, int col_size, bool general) {
  if (general) {
    copy.issue(tile, src, ld, k0, c0, k_size, col_size);
  } else {
    const auto base = copy.interior_base(src, ld, k0, c0);
#pragma unroll
    for (int g = 0; g < Copier::kGroups; ++g) copy.issue_interior_group(tile, base, ld, g);
  }
}

// Position inside the warp tile of a lane's i-th row (or column) for each tile orientation (see top).
template <bool kContigK, int kLanes>
__device__ __forceinline__ int lane_offset(int i, int lane_idx) {
  return kContigK ? i * kLanes + lane_idx : (i / 4) * (kLanes * 4) + lane_idx * 4 + i % 4;
}

// [col][k] tile: 4 consecutive k (kk4 .. kk4+3) of each of the lane's kCount columns, one 128-bit
// load per column; frag[i][q] is (column i, k = kk4 + q).
template <int BK, int kLanes, int kCount>
__device__ __forceinline__ void load_columns_k4(float (&frag)[kCount][4], const float* tile, int w0,
                                                int lane_idx, int kk4) {
#pragma unroll
  for (int i = 0; i < kCount; ++i) {
    const float4 v = *reinterpret_cast<const float4*>(
        tile + (w0 + lane_offset<true, kLanes>(i, lane_idx)) * (BK + kColKPad) + kk4);
    frag[i][0] = v.x; frag[i][1] = v.y; frag[i][2] = v.z; frag[i][3] = v.w;
  }
}

// [k][col] tile with rows of kLd floats: the lane's kCount columns at one k, one 128-bit load per 4
// columns.
template <int kLd, int kLanes, int kCount>
__device__ __forceinline__ void load_row(float (&frag)[kCount], const float* tile, int w0,
                                         int lane_idx, int k) {
#pragma unroll
  for (int c = 0; c < kCount; c += 4) {
    const float4 v = *reinterpret_cast<const float4*>(
        tile + k * kLd + w0 + lane_offset<false, kLanes>(c, lane_idx));
    frag[c] = v.x; frag[c + 1] = v.y; frag[c + 2] = v.z; frag[c + 3] = v.w;
  }
}

// Level 6's block-level building block, shared with the split-K / stream-K kernel (split_tiled.cuh):
// the pipelined main loop over a range of K-tiles of one output tile, and the epilogue that writes
// the tile. Both are run by all S::kThreads threads of the block.
template <class S, bool kTransA, bool kTransB, bool kVecA, bool kVecB>
struct WarpTiledBlock {
  static constexpr int BM = S::kBlockM, BN = S::kBlockN, BK = S::kBlockK, STAGES = S::kStages;
  static constexpr int TM = S::kThreadM, TN = S::kThreadN;
  using Acc = float[TM][TN];
  static constexpr int kAccCount = TM * TN;
  // Which operands are contiguous along k in global memory, and which of those stay [col][k] tiles
  // (the others become [k][col] tiles through a transposing copy).
  static constexpr bool kAGlobalK = !kTransA, kBGlobalK = kTransB;
  static constexpr bool kAContigK = kAGlobalK && !S::kTransposeK, kBContigK = kBGlobalK && !S::kTransposeK;
  static constexpr bool kATransposed = kAGlobalK && S::kTransposeK, kBTransposed = kBGlobalK && S::kTransposeK;
  static constexpr int kTileA = tile_floats<BK, BM, kAContigK, kATransposed>();
  static constexpr int kTileB = tile_floats<BK, BN, kBContigK, kBTransposed>();
  static constexpr int kLdA = BM + (kATransposed ? kKColPad : 0), kLdB = BN + (kBTransposed ? kKColPad : 0);
  using CopierA = typename PickType<kATransposed, TransposingCopier<BK, BM, S::kThreads>,
                                     TileCopier<BK, BM, S::kThreads, kAContigK, kVecA>>::type;
  using CopierB = typename PickType<kBTransposed, TransposingCopier<BK, BN, S::kThreads>,
                                     TileCopier<BK, BN, S::kThreads, kBContigK, kVecB>>::type;
  // The step-pipelined main loop, for schedules with registers to spare (one block per SM) whose
  // tiles are both [k][col]: k steps spelled out (kSpelledSteps per pass), the fragments of step
  // s + 1 read while step s's FMAs run, and an interior tile's copies of the next stage spread over
  // the first pass's steps instead of issued all at once after the barrier. 128x256x32 at 4096^3:
  // 0.937x -> 0.958x cuBLAS NN, 0.849x -> 0.995x TT (perf note #30, all 32 steps spelled out). Under
  // the register caps of 2-8 blocks per SM the extra fragments and copy path spill, so those keep
  // the plain loop.
  static constexpr bool kStepPipelined = S::kMinBlocksPerSm == 1 && !kAContigK && !kBContigK;
  // Values the split-K sum loads at a time: the step-pipelined schedules sum 64 at a time (all
  // TM * TN loads in flight took the 128x256 kernel to 255 registers and its main loop 5 % below
  // level 6's, perf note #30).
  static constexpr int kSumChunk = kStepPipelined ? 64 : TM * TN;
  static constexpr int kSumSlices = 1;  // the split sum one slice at a time: FFMA tiles run at their register cap

  // acc += the product over K-tiles [kt_begin, kt_end) of the tile at (m0, n0). smem: the dynamic
  // shared memory (S::kSmemBytes).
  __device__ __forceinline__ static void mainloop(const GemmParams& p, float* smem, int m0, int n0,
                                                  int kt_begin, int kt_end, float (&acc)[TM][TN]) {
    float* a_smem = smem;                     // STAGES x kTileA
    float* b_smem = a_smem + STAGES * kTileA;  // STAGES x kTileB
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / S::kWarpsN) * S::kWarpM, wn0 = (warp % S::kWarpsN) * S::kWarpN;
    const int lane_m = lane / S::kLanesN, lane_n = lane % S::kLanesN;

    const CopierA copy_a(tid);
    const CopierB copy_b(tid);
    // Interior tiles (not the last tile row / column of a ragged edge) copy without bounds on every
    // K-tile but the last of a K that BK does not divide (TileCopier::interior_base).
    const bool a_interior = kStepPipelined && m0 + BM <= p.m, b_interior = kStepPipelined && n0 + BN <= p.n;
    auto stage_a = [&](int stage) { return a_smem + stage * kTileA; };
    auto stage_b = [&](int stage) { return b_smem + stage * kTileB; };
    // All copies of one stage at once; interior ones without bounds unless told general.
    auto load_stage = [&](int stage, int k0, bool a_general, bool b_general) {
      issue_stage(copy_a, stage_a(stage), p.a, p.lda, k0, m0, p.k, p.m, a_general);
      issue_stage(copy_b, stage_b(stage), p.b, p.ldb, k0, n0, p.k, p.n, b_general);
    };

    const int k_tiles = kt_end - kt_begin;
    auto load_first = [&](int s, int stage) {
      const int k0 = (kt_begin + s) * BK;
      const bool full_k = k0 + BK <= p.k;
      load_stage(stage, k0, !(full_k && a_interior), !(full_k && b_interior));
    };
    auto step = [&](int /*kt*/, int stage, int next, int next_stage) {
      const int next_k0 = (kt_begin + next) * BK;
      if constexpr (kStepPipelined) {
        const bool have_next = next < k_tiles, next_full_k = next_k0 + BK <= p.k;
        const bool spread_a = have_next && next_full_k && a_interior;
        const bool spread_b = have_next && next_full_k && b_interior;
        if (have_next && !spread_a) copy_a.issue(stage_a(next_stage), p.a, p.lda, next_k0, m0, p.k, p.m);
        if (have_next && !spread_b) copy_b.issue(stage_b(next_stage), p.b, p.ldb, next_k0, n0, p.k, p.n);
        const float* a_next = copy_a.interior_base(p.a, p.lda, next_k0, m0);
        const float* b_next = copy_b.interior_base(p.b, p.ldb, next_k0, n0);
        float* a_next_stage = stage_a(next_stage);
        float* b_next_stage = stage_b(next_stage);
        const float* a_tile = stage_a(stage);
        const float* b_tile = stage_b(stage);
        float a_frag[2][TM], b_frag[2][TN];
        load_row<kLdA, S::kLanesM, TM>(a_frag[0], a_tile, wm0, lane_m, 0);
        load_row<kLdB, S::kLanesN, TN>(b_frag[0], b_tile, wn0, lane_n, 0);
        const StepTile t{a_tile, b_tile, a_next_stage, b_next_stage, a_next, b_next, wm0, lane_m, wn0, lane_n,
                         p.lda, p.ldb, spread_a, spread_b};
        pipelined_steps</*kWithCopies*/ true>(t, 0, copy_a, copy_b, a_frag, b_frag, acc);
#pragma unroll 1
        for (int kb = kSpelledSteps; kb < BK; kb += kSpelledSteps)
          pipelined_steps</*kWithCopies*/ false>(t, kb, copy_a, copy_b, a_frag, b_frag, acc);
      } else {
        if (next < k_tiles) load_stage(next_stage, next_k0, true, true);
        const float* a_tile = stage_a(stage);
        const float* b_tile = stage_b(stage);
#pragma unroll
        for (int kk4 = 0; kk4 < BK; kk4 += 4) {
          // [col][k] operands are read 4 k at a time; [k][col] operands one k at a time, which keeps
          // their fragments at TM (TN) registers.
          float a4[kAContigK ? TM : 1][4], b4[kBContigK ? TN : 1][4];
          if constexpr (kAContigK) load_columns_k4<BK, S::kLanesM, TM>(a4, a_tile, wm0, lane_m, kk4);
          if constexpr (kBContigK) load_columns_k4<BK, S::kLanesN, TN>(b4, b_tile, wn0, lane_n, kk4);
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            float a_reg[TM], b_reg[TN];
            if constexpr (kAContigK) {
#pragma unroll
              for (int i = 0; i < TM; ++i) a_reg[i] = a4[i][q];
            } else {
              load_row<kLdA, S::kLanesM, TM>(a_reg, a_tile, wm0, lane_m, kk4 + q);
            }
            if constexpr (kBContigK) {
#pragma unroll
              for (int j = 0; j < TN; ++j) b_reg[j] = b4[j][q];
            } else {
              load_row<kLdB, S::kLanesN, TN>(b_reg, b_tile, wn0, lane_n, kk4 + q);
            }
            fma_tile(acc, a_reg, b_reg);
          }
        }
      }
    };
    cp_async_pipeline<STAGES>(k_tiles, load_first, step);
  }

  // One K-tile of the step-pipelined loop: the stage being multiplied and where the next stage's
  // interior copies go.
  struct StepTile {
    const float* a_tile;
    const float* b_tile;
    float* a_next_stage;
    float* b_next_stage;
    const float* a_next;  // CopierA::interior_base of the next stage
    const float* b_next;
    int wm0, lane_m, wn0, lane_n;
    int lda, ldb;
    bool spread_a, spread_b;  // the next stage's copies are issued here, spread over the first pass
  };

  // k steps spelled out per pass of the K-tile loop. All 32 steps of a 128x256x32 K-tile spelled
  // out made a 75 KB loop body: blocks ran 669 us on most SMs but up to 760 us on some (4096x1024x4096,
  // one wave, waited 762 us for them), as if instruction fetch missed more on some SMs. 8 steps per
  // pass (the first pass spelled separately with the next stage's copies: a 42 KB loop) run every
  // block in 686-697 us (700 us), 3 % slower per block than the fast SMs were (perf note #31).
  static constexpr int kSpelledSteps = BK < 8 ? BK : 8;
  static_assert(BK % kSpelledSteps == 0 && kSpelledSteps % 2 == 0, "passes alternate the fragment buffers evenly");

  // Steps kb + kStep ... kb + kSpelledSteps - 1 of a K-tile, each spelled out (a pragma unrolled 8 of 32
  // steps and re-read fragments at its loop top right before their use). The fragments of the next
  // step are read before this step's FMAs. kWithCopies: the first pass, which issues the next
  // stage's interior copies spread over its steps.
  template <bool kWithCopies, int kStep = 0>
  __device__ __forceinline__ static void pipelined_steps(const StepTile& t, int kb, const CopierA& copy_a,
                                                         const CopierB& copy_b, float (&a_frag)[2][TM],
                                                         float (&b_frag)[2][TN], float (&acc)[TM][TN]) {
    if (kStep + 1 < kSpelledSteps || kb + kSpelledSteps < BK) {
      load_row<kLdA, S::kLanesM, TM>(a_frag[(kStep + 1) & 1], t.a_tile, t.wm0, t.lane_m, kb + kStep + 1);
      load_row<kLdB, S::kLanesN, TN>(b_frag[(kStep + 1) & 1], t.b_tile, t.wn0, t.lane_n, kb + kStep + 1);
    }
    if constexpr (kWithCopies) {  // groups kStep, kStep + kSpelledSteps, ... (4-byte copies: up to 32 groups)
      if (t.spread_a) {
#pragma unroll
        for (int g = kStep; g < CopierA::kGroups; g += kSpelledSteps)
          copy_a.issue_interior_group(t.a_next_stage, t.a_next, t.lda, g);
      }
      if (t.spread_b) {
#pragma unroll
        for (int g = kStep; g < CopierB::kGroups; g += kSpelledSteps)
          copy_b.issue_interior_group(t.b_next_stage, t.b_next, t.ldb, g);
      }
    }
    fma_tile(acc, a_frag[kStep & 1], b_frag[kStep & 1]);
    if constexpr (kStep + 1 < kSpelledSteps)
      pipelined_steps<kWithCopies, kStep + 1>(t, kb, copy_a, copy_b, a_frag, b_frag, acc);
  }

  // acc[TM][TN] += a_reg[i] * b_reg[j] in the schedule's FMA order.
  __device__ __forceinline__ static void fma_tile(float (&acc)[TM][TN], const float (&a_reg)[TM],
                                                  const float (&b_reg)[TN]) {
    if constexpr (S::kFmaOrder == 1) {
#pragma unroll
      for (int j = 0; j < TN; ++j)
#pragma unroll
        for (int i = 0; i < TM; ++i) acc[i][j] += a_reg[i] * b_reg[j];
    } else if constexpr (S::kFmaOrder >= 3) {
      // Bands of kBand rows, walked column by column in a snake: down one column, up the next;
      // every other band right to left.
      constexpr int kBand = S::kFmaOrder == 3 ? 2 : 4;
#pragma unroll
      for (int band = 0; band < TM / kBand; ++band)
#pragma unroll
        for (int jj = 0; jj < TN; ++jj) {
          const int j = (band & 1) ? TN - 1 - jj : jj;
#pragma unroll
          for (int ii = 0; ii < kBand; ++ii) {
            const int i = band * kBand + ((jj & 1) ? kBand - 1 - ii : ii);
            acc[i][j] += a_reg[i] * b_reg[j];
          }
        }
    } else {
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int jj = 0; jj < TN; ++jj) {
          const int j = (S::kFmaOrder == 2 && (i & 1)) ? TN - 1 - jj : jj;
          acc[i][j] += a_reg[i] * b_reg[j];
        }
    }
  }

  // C = alpha * acc + beta * C for the tile at (m0, n0), straight from registers: 16-byte
  // read-modify-writes where a lane's columns come in 4-wide chunks and C allows it, scalar
  // otherwise and at the edges.
  __device__ __forceinline__ static void store(const GemmParams& p, float* /*smem: level 7's staging*/, int m0,
                                               int n0, const float (&acc)[TM][TN]) {
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / S::kWarpsN) * S::kWarpM, wn0 = (warp % S::kWarpsN) * S::kWarpN;
    const int lane_m = lane / S::kLanesN, lane_n = lane % S::kLanesN;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int m = m0 + wm0 + lane_offset<kAContigK, S::kLanesM>(i, lane_m);
      if (m >= p.m) continue;
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        const int n = n0 + wn0 + lane_offset<kBContigK, S::kLanesN>(j, lane_n);
        float* dst = p.c + at(m, p.ldc, n);
        if (!kBContigK && p.c_vec4 && n + 3 < p.n) {
          epilogue_store4(dst, acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3], p.alpha, p.beta);
        } else {
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            const int nq = n0 + wn0 + lane_offset<kBContigK, S::kLanesN>(j + q, lane_n);
            if (nq < p.n) store_c(p, m, nq, acc[i][j + q]);
          }
        }
      }
    }
  }
};

// The whole-tile kernels of levels 6 and 7: this thread block's output tile, in the order p.raster
// gives, over the whole K range.
template <class S, class Block>
__device__ __forceinline__ void whole_tile(const GemmParams& p, float* smem) {
  const int tiles_m = (p.m + S::kBlockM - 1) / S::kBlockM, tiles_n = (p.n + S::kBlockN - 1) / S::kBlockN;
  const TileCoord tile = tile_for_block(p.raster, tiles_m, tiles_n, blockIdx.x);
  const int m0 = tile.m * S::kBlockM, n0 = tile.n * S::kBlockN;
  typename Block::Acc acc = {};
  // Launched after the call's prologue, the operands may be its packed copies (kernels/common/griddep.cuh);
  // otherwise this does nothing.
  griddep_wait();
  Block::mainloop(p, smem, m0, n0, 0, (p.k + S::kBlockK - 1) / S::kBlockK, acc);
  Block::store(p, smem, m0, n0, acc);
}

// One thread block per output tile.
template <class S, bool kTransA, bool kTransB, bool kVecA, bool kVecB>
__global__ void __launch_bounds__(S::kThreads, S::kMinBlocksPerSm) gemm_warp_tiled(GemmParams p) {
  extern __shared__ float4 smem_raw[];
  whole_tile<S, WarpTiledBlock<S, kTransA, kTransB, kVecA, kVecB>>(p, reinterpret_cast<float*>(smem_raw));
}

}  // namespace kernels
}  // namespace tilegemm
