// Level 07 - tensor cores at FP32 accuracy (3xTF32 mma.sync).
// Level 6's block tiles, tile order and cp.async pipeline, with each warp's part of the tile
// multiplied by warp-level mma.sync.m16n8k8 TF32 instructions instead of per-thread FFMA tiles.
// Every operand value is split into a TF32 big part and a TF32 rest (kernels/common/mma_tf32x3.cuh), and
// a * b ~ small_a big_b + big_a small_b + big_a big_b: about 2^-22 relative per product, next to
// FP32's 2^-24 per product and per add (CUTLASS calls this math "fast FP32"; cuBLAS FP32 GEMMs
// run FFMA). The tensor core sums the 3 MMAs of a k8 step (kSumSteps steps) into a zeroed register
// tile and rounds toward zero; that tile is added to the accumulators with round-to-nearest FP32
// adds, so the error has no bias that grows with K. The GPU tests hold level 7 to the FP32 kernels'
// tolerance and its error over long K to twice level 6's.
//
// - The FFMA tile tops out near 48 TFLOP/s (0.95x cuBLAS) on the H100, issue-bound; one MMA does
//   a 16 x 8 x 8 product (2048 FLOP) per instruction, so 3 MMAs and 5 split instructions per
//   fragment element (two integer TF32 roundings and a subtraction) cost far fewer issue slots per FLOP.
// - Shared tiles keep each operand's global orientation, so every copy is a plain 16-byte cp.async
//   (an operand that is not 16-byte aligned: rows shifted by their misalignment, shifted_copy.cuh,
//   or 4-byte copies, see CopierAFor; or the host packs it first: the chooser weighs the two):
//   [col][k] rows of BK + 4 floats
//   (operands contiguous along k) and [k][col] rows of BM (BN) + 8 floats (contiguous along m or
//   n). The fragment reads of a warp, 4 k x 8 columns or 8 columns x 4 k, then fall in 32 banks.
// - Each warp owns WM x WN outputs as (WM / 16) x (WN / 8) MMA tiles; a lane holds 4 of each.
// Measured (H100, 2026-11-25, 1fdd717): 4096^3 60.4 TFLOP/s, 1.16x cuBLAS; 8192^3 61.4, 1.19x (the
// 64x128 schedule Auto runs: 62.7 at 4096^3); the
// mma.sync TF32 ceiling is 325 TFLOP/s (bench/mma_tf32_peak.cu), i.e. ~108 for 3xTF32; docs/ladder.md.
// Build and run: bash scripts/build.sh && build/tilegemm bench --shape 4096x4096x4096 --kernels 7
#pragma once
#include "kernels/common/mma_tf32x3.cuh"
#include "kernels/common/split_k.cuh"
#include "kernels/gemm/06_warp_tiled.cuh"
#include "kernels/gemm/shifted_copy.cuh"

namespace tilegemm {
namespace kernels {

// Floats added to each row of a [k][col] tile: rows 8 banks apart, so the 4 k x 8 columns of a
// fragment read land in 32 banks, and rows stay 16-byte aligned for the copies.
constexpr int kMmaColPad = 8;

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MIN_BLOCKS = 1, int SUM_STEPS = 1>
struct MmaTf32x3Schedule {
  static constexpr bool kMma = true;
  static constexpr int kBlockM = BM, kBlockN = BN, kBlockK = BK, kWarpM = WM, kWarpN = WN;
  static constexpr int kStages = STAGES;
  static constexpr int kMinBlocksPerSm = MIN_BLOCKS;
  // k8 steps the tensor core sums (3 MMAs each, rounding toward zero) before the FP32 add: 1 keeps
  // one 4-float tile per MMA tile; more save adds but hold a second copy of the accumulators.
  static constexpr int kSumSteps = SUM_STEPS;
  static constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  static constexpr int kMmaM = WM / 16, kMmaN = WN / 8;  // MMA tiles of a warp's part
  // Floats of one stage of an operand's tile, the larger of its two orientations.
  __host__ __device__ static constexpr int stage_floats(int cols) {
    return cols * (BK + kColKPad) > BK * (cols + kMmaColPad) ? cols * (BK + kColKPad) : BK * (cols + kMmaColPad);
  }
  static constexpr int kSmemBytes = STAGES * (stage_floats(BM) + stage_floats(BN)) * 4;
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tile must divide the block tile");
  static_assert(WM % 16 == 0 && WN % 8 == 0, "a warp's part is whole 16 x 8 MMA tiles");
  static_assert(BK % 8 == 0 && (BK / 8) % SUM_STEPS == 0, "K-tiles of whole k8 steps, summed evenly");
  static_assert(kThreads <= 1024 && STAGES >= 2, "at most 1024 threads, at least 2 stages");
  static_assert(kSmemBytes <= 227 * 1024, "shared memory per block is at most 227 KB on sm_90");
};

// Level 7's block-level building block, shared with the split-K / stream-K kernel (split_tiled.cuh),
// with the interface of level 6's WarpTiledBlock: the pipelined main loop over a range of K-tiles
// of one output tile, and the epilogue.
template <class S, bool kTransA, bool kTransB, bool kVecA, bool kVecB>
struct MmaTf32x3Block {
  static constexpr int BM = S::kBlockM, BN = S::kBlockN, BK = S::kBlockK, STAGES = S::kStages;
  static constexpr int kMT = S::kMmaM, kNT = S::kMmaN;
  using Acc = float[kMT][kNT][4];  // acc[mt][nt] is MMA tile (mt, nt) in the PTX layout
  static constexpr int kAccCount = kMT * kNT * 4;
  static constexpr int kSumChunk = kAccCount > 64 ? 64 : kAccCount;  // split-sum loads in flight
  static constexpr int kSumSlices = kSplitSumSlices<kSumChunk>;  // slices whose loads go out together
  static constexpr bool kAContigK = !kTransA, kBContigK = kTransB;
  // Copies of an operand that is not 16-byte aligned, chosen per block (modes; "alt" is the
  // second choice of each pair):
  //  - [k][col] tiles: shifted rows (ShiftedRowCopier: 16-byte copies, rows shifted by their
  //    misalignment and landing where global and shared addresses agree within 32 bytes, read at
  //    row_shift mod 8), spread (tile_line) where the leading dimension is odd;
  //  - [col][k] tiles: shifted rows where the leading dimension is a multiple of 4 (one shift for
  //    all rows), else one float per cp.async into unshifted rows: rows shifted apart put 4
  //    consecutive k of 8 rows in overlapping banks (2-way conflicts), and no row order or row
  //    length avoids that for the MMA's fragment layout.
  // B's extra chunks of shifted rows go to the last threads, A's to the first.
  // Blocks of 4 warps land shifted [k][col] rows where global and shared addresses agree within 32
  // bytes (ShiftedRowCopier's kMatch32; [col][k] rows of BK + 4 floats have no room for it), and
  // read such rows at their shift mod 8 (rows k and k + 4 of a fragment read apart), the others at
  // their shift mod 4. Measured on the H100 (2026-11-26): 64x128 tiles, 1000^3 at ld + 7 51.3 ->
  // 50.0 us; 8-warp tiles lost: the second read shift spilled the 128x256 tile (32 -> 360 bytes;
  // 2501x3499x1777, ldb odd, 640 -> 672 us) and 1024x512x2048 at ld + 7 on 128x128 tiles went
  // 51.9 -> 53.9 us.
  template <bool kContigK>
  static constexpr bool kMatch32 = !kContigK && S::kThreads == 128;
  template <bool kContigK>
  static constexpr int kShiftMod = kMatch32<kContigK> ? 8 : 4;
  static constexpr int kLdA = kAContigK ? BK + kColKPad : BM + kMmaColPad;
  static constexpr int kLdB = kBContigK ? BK + kColKPad : BN + kMmaColPad;
  template <bool kAlt>
  using CopierAFor = typename PickType<
      kVecA, TileCopier<BK, BM, S::kThreads, kAContigK, true, kMmaColPad>,
      typename PickType<kAlt && kAContigK, TileCopier<BK, BM, S::kThreads, kAContigK, false, kMmaColPad>,
                        ShiftedRowCopier<BK, BM, S::kThreads, kAContigK, kLdA, 0, kMatch32<kAContigK>>>::type>::type;
  template <bool kAlt>
  using CopierBFor = typename PickType<
      kVecB, TileCopier<BK, BN, S::kThreads, kBContigK, true, kMmaColPad>,
      typename PickType<kAlt && kBContigK, TileCopier<BK, BN, S::kThreads, kBContigK, false, kMmaColPad>,
                        ShiftedRowCopier<BK, BN, S::kThreads, kBContigK, kLdB, S::kThreads - (kBContigK ? BN : BK),
                                         kMatch32<kBContigK>>>::type>::type;
  static_assert(CopierAFor<false>::kLd == kLdA && CopierBFor<false>::kLd == kLdB && CopierAFor<true>::kLd == kLdA &&
                    CopierBFor<true>::kLd == kLdB,
                "every copier lays rows out alike");
  static constexpr int kTileA = kAContigK ? BM * kLdA : BK * kLdA;
  static constexpr int kTileB = kBContigK ? BN * kLdB : BK * kLdB;

  // op(A)(m, k) and op(B)(k, n) of the staged tiles.
  __device__ __forceinline__ static float a_at(const float* tile, int m, int k) {
    return kAContigK ? tile[m * kLdA + k] : tile[k * kLdA + m];
  }
  __device__ __forceinline__ static float b_at(const float* tile, int k, int n) {
    return kBContigK ? tile[n * kLdB + k] : tile[k * kLdB + n];
  }

  // Where a lane's MMA rows (columns) sit among the warp tile's rows (columns): MMA row
  // 16 mt + 8 h + g is in 8-row group 2 mt + h, MMA column 8 nt + j in group nt. Consecutively,
  // or, for a [k][col] tile whose rows lie 4 different shifts apart (a shifted operand with an odd
  // leading dimension: rows k mod 4 = 0..3 shifted by 4 different amounts), "spread": the 8 lanes of
  // a group 4 columns apart, so the 4 rows a fragment read touches fall in 4 different bank classes
  // (consecutive columns shifted against each other overlap: 2-way conflicts). Spread groups of 4
  // interleave inside 32 columns; the epilogue maps the accumulators back (stage_acc).
  template <bool kSpread>
  __device__ __forceinline__ static int tile_line(int group, int lane8) {
    return kSpread ? 32 * (group / 4) + 4 * lane8 + group % 4 : 8 * group + lane8;
  }
  static constexpr bool kMaySpreadA = !kVecA && !kAContigK, kMaySpreadB = !kVecB && !kBContigK;
  static_assert((!kMaySpreadA || S::kWarpM % 32 == 0) && (!kMaySpreadB || S::kWarpN % 32 == 0),
                "spread groups of 4 fill 32 columns");
  // Whether an unaligned operand takes the alternative copies (above). [col][k] tiles take one
  // float per cp.async only where their fragment reads are at least half the warp's (the bank
  // conflicts cost more than the copies there: 64x64 tiles, 1024x512x2048 NN ld + 7 A alone 59.9 ->
  // 56.3 us; 64x128 tiles, where A's reads are a third, 1000^3 ld + 7 51.3 -> 52.7 us), and not on
  // the operand's last tile row (column): bounds on every 4-byte copy made those blocks, and with
  // them a one-wave grid, slower (H100, 2026-11-26).
  static constexpr bool kMayAltA = !kVecA && (!kAContigK || S::kWarpM >= S::kWarpN);
  static constexpr bool kMayAltB = !kVecB && (!kBContigK || S::kWarpN >= S::kWarpM);
  __device__ __forceinline__ static bool alt_copies(bool contig_k, int ld, bool interior) {
    return contig_k ? (ld & 3) != 0 && interior : (ld & 1) != 0;
  }
  // Which copies this block's operands take. mainloop and store branch on it once per block into
  // mainloop_in / store_in, instantiated for each combination the operands can need (explicit
  // branches: NVRTC takes no unannotated generic lambdas).
  struct Modes {
    bool alt_a, alt_b;
  };
  __device__ __forceinline__ static Modes modes(const GemmParams& p, int m0, int n0) {
    return {kMayAltA && alt_copies(kAContigK, p.lda, m0 + BM <= p.m),
            kMayAltB && alt_copies(kBContigK, p.ldb, n0 + BN <= p.n)};
  }

  // This thread's place in the MMA fragment layout: group g and thread t of its lane, and its warp's
  // part of the block tile.
  struct LanePlace {
    int g, t, wm0, wn0;
  };
  __device__ __forceinline__ static LanePlace lane_place() {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    return {lane / 4, lane % 4, (warp / S::kWarpsN) * S::kWarpM, (warp % S::kWarpsN) * S::kWarpN};
  }

  // sums[nt] += the 3xTF32 product of one row of MMA tiles, in three passes over its kNT tiles: a
  // tile's three MMAs depend on each other and the asm statements keep their order, so issued back
  // to back each would wait out the tensor core's latency.
  __device__ __forceinline__ static void mma_row(float (&sums)[kNT][4], const unsigned (&a_big)[4],
                                                 const unsigned (&a_small)[4], const unsigned (&b_big)[kNT][2],
                                                 const unsigned (&b_small)[kNT][2]) {
#pragma unroll
    for (int nt = 0; nt < kNT; ++nt) mma_tf32(sums[nt], a_small, b_big[nt]);
#pragma unroll
    for (int nt = 0; nt < kNT; ++nt) mma_tf32(sums[nt], a_big, b_small[nt]);
#pragma unroll
    for (int nt = 0; nt < kNT; ++nt) mma_tf32(sums[nt], a_big, b_big[nt]);
  }

  // acc = the product over K-tiles [kt_begin, kt_end) of the tile at (m0, n0) (acc zero on entry).
  // A warp whose operands the split cannot carry at FP32 accuracy (kernels/common/mma_tf32x3.cuh, split_exact)
  // recomputes its outputs with FFMA.
  __device__ __forceinline__ static void mainloop(const GemmParams& p, float* smem, int m0, int n0,
                                                  int kt_begin, int kt_end, Acc& acc) {
    const Modes md = modes(p, m0, n0);
    unsigned min_key = ~0u;  // the guard's running minimum over this thread's splits
    if (md.alt_a) {
      if (md.alt_b) mainloop_in<kMayAltA, kMayAltB>(p, smem, m0, n0, kt_begin, kt_end, acc, min_key);
      else mainloop_in<kMayAltA, false>(p, smem, m0, n0, kt_begin, kt_end, acc, min_key);
    } else {
      if (md.alt_b) mainloop_in<false, kMayAltB>(p, smem, m0, n0, kt_begin, kt_end, acc, min_key);
      else mainloop_in<false, false>(p, smem, m0, n0, kt_begin, kt_end, acc, min_key);
    }
    if (split_exact(min_key, reinterpret_cast<const float(&)[kAccCount]>(acc))) return;
    const int k_begin = kt_begin * BK, k_end = static_cast<long long>(kt_end) * BK < p.k ? kt_end * BK : p.k;
    const bool spread_a = kMaySpreadA && md.alt_a, spread_b = kMaySpreadB && md.alt_b;
    if (spread_a) {
      if (spread_b) ffma_outputs<kMaySpreadA, kMaySpreadB>(p, m0, n0, k_begin, k_end, acc);
      else ffma_outputs<kMaySpreadA, false>(p, m0, n0, k_begin, k_end, acc);
    } else {
      if (spread_b) ffma_outputs<false, kMaySpreadB>(p, m0, n0, k_begin, k_end, acc);
      else ffma_outputs<false, false>(p, m0, n0, k_begin, k_end, acc);
    }
  }

  // acc = this thread's outputs over k in [k_begin, k_end) by FFMA in k order, straight from global
  // memory (the accumulator layout store() expects, spread tiles included): the guard's path,
  // taken only for operands outside the split's range, so it is kept simple rather than fast.
  template <bool kSpreadA, bool kSpreadB>
  __device__ __forceinline__ static void ffma_outputs(const GemmParams& p, int m0, int n0, int k_begin, int k_end,
                                                      Acc& acc) {
    const LanePlace lp = lane_place();
    int rows[kMT][2], cols[kNT][2];
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) rows[mt][h] = m0 + lp.wm0 + tile_line<kSpreadA>(2 * mt + h, lp.g);
#pragma unroll
    for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
      for (int e = 0; e < 2; ++e) cols[nt][e] = n0 + lp.wn0 + tile_line<kSpreadB>(nt, 2 * lp.t + e);
    set_zero(acc);
    for (int k = k_begin; k < k_end; ++k) {
      float av[kMT][2], bv[kNT][2];
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) av[mt][h] = rows[mt][h] < p.m ? load_a<kTransA>(p, rows[mt][h], k) : 0.0f;
#pragma unroll
      for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
        for (int e = 0; e < 2; ++e) bv[nt][e] = cols[nt][e] < p.n ? load_b<kTransB>(p, k, cols[nt][e]) : 0.0f;
      ffma_outer(acc, av, bv);
    }
  }

  template <bool kAltA, bool kAltB>
  __device__ __forceinline__ static void mainloop_in(const GemmParams& p, float* smem, int m0, int n0,
                                                     int kt_begin, int kt_end, Acc& acc, unsigned& min_key) {
    constexpr bool kSpreadA = kMaySpreadA && kAltA, kSpreadB = kMaySpreadB && kAltB;
    constexpr bool kShiftedA = !kVecA && !(kAltA && kAContigK), kShiftedB = !kVecB && !(kAltB && kBContigK);
    float* a_smem = smem;                      // STAGES x kTileA
    float* b_smem = a_smem + STAGES * kTileA;  // STAGES x kTileB
    const int tid = threadIdx.x;
    const LanePlace lp = lane_place();
    const int g = lp.g, t = lp.t, wm0 = lp.wm0, wn0 = lp.wn0;
    const CopierAFor<kAltA> copy_a(tid);
    const CopierBFor<kAltB> copy_b(tid);
    // Where this lane's rows sit in shifted tiles (fragment layout below): its A rows are m = g mod
    // 4, or k = t and t + 4 mod kShiftMod (a_shift[0], a_shift[1]); its B rows n = g mod 4, or k = t
    // and t + 4 mod kShiftMod.
    int a_shift[2] = {0, 0}, b_shift[2] = {0, 0};
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      if (kShiftedA) a_shift[h] = row_shift<kShiftMod<kAContigK>>(p.a, p.lda, kAContigK ? g : t + 4 * h);
      if (kShiftedB) b_shift[h] = row_shift<kShiftMod<kBContigK>>(p.b, p.ldb, kBContigK ? g : t + 4 * h);
    }
    const int k_tiles = kt_end - kt_begin;
    // Interior tiles copy without bounds on every K-tile but the last of a K that BK does not divide
    // (TileCopier::interior_base): an address and the copy instead of issue()'s bounds and selects.
    // Aligned products ran 4-6 % faster; 4-byte copies of unaligned operands did not (their count,
    // not their arithmetic, sets the time: perf note #52).
    const bool a_interior = m0 + BM <= p.m, b_interior = n0 + BN <= p.n;
    auto load = [&](int s, int stage) {
      const int k0 = (kt_begin + s) * BK;
      const bool full_k = k0 + BK <= p.k;
      // Shifted [k][col] tiles on the operand's last columns: values past its columns only reach
      // outputs that are never written, so such tiles copy without bounds wherever the reads stay
      // inside the operand (rows before its last one, leading dimension at least the tile's width).
      // Shifted tiles only, where it was measured (1000^3 offset 1: 48.8 -> 47.9 us); aligned tiles
      // keep their loop as it was.
      const bool a_edge_ok = kShiftedA && !kAContigK && p.lda >= BM && k0 + BK < p.k;
      const bool b_edge_ok = kShiftedB && !kBContigK && p.ldb >= BN && k0 + BK < p.k;
      issue_stage(copy_a, a_smem + stage * kTileA, p.a, p.lda, k0, m0, p.k, p.m, !((full_k && a_interior) || a_edge_ok));
      issue_stage(copy_b, b_smem + stage * kTileB, p.b, p.ldb, k0, n0, p.k, p.n, !((full_k && b_interior) || b_edge_ok));
    };
    auto step = [&](int /*kt*/, int stage, int next, int next_stage) {
      if (next < k_tiles) load(next, next_stage);
      const float* a_tile = a_smem + stage * kTileA;
      const float* b_tile = b_smem + stage * kTileB;
      float part[S::kSumSteps > 1 ? kMT : 1][kNT][4];
      if constexpr (S::kSumSteps > 1) set_zero(part);
#pragma unroll
      for (int kk = 0; kk < BK; kk += 8) {
        unsigned a_big[kMT][4], a_small[kMT][4], b_big[kNT][2], b_small[kNT][2];
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
          for (int r = 0; r < 4; ++r)  // a_r = A(g + 8 (r % 2), t + 4 (r / 2))
            split_tf32(a_at(a_tile + a_shift[kAContigK ? 0 : r / 2], wm0 + tile_line<kSpreadA>(2 * mt + r % 2, g),
                            kk + t + 4 * (r / 2)),
                       a_big[mt][r], a_small[mt][r], min_key);
#pragma unroll
        for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
          for (int r = 0; r < 2; ++r)  // b_r = B(t + 4 r, g)
            split_tf32(b_at(b_tile + b_shift[kBContigK ? 0 : r], kk + t + 4 * r, wn0 + tile_line<kSpreadB>(nt, g)),
                       b_big[nt][r], b_small[nt][r], min_key);
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt) {
          if constexpr (S::kSumSteps == 1) {
            float d[kNT][4];
#pragma unroll
            for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
              for (int e = 0; e < 4; ++e) d[nt][e] = 0.0f;
            mma_row(d, a_big[mt], a_small[mt], b_big, b_small);
#pragma unroll
            for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
              for (int e = 0; e < 4; ++e) acc[mt][nt][e] += d[nt][e];
          } else {
            mma_row(part[mt], a_big[mt], a_small[mt], b_big, b_small);
          }
        }
        if constexpr (S::kSumSteps > 1) {
          if ((kk / 8 + 1) % S::kSumSteps == 0) {
#pragma unroll
            for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
              for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
                for (int e = 0; e < 4; ++e) acc[mt][nt][e] += part[mt][nt][e], part[mt][nt][e] = 0.0f;
          }
        }
      }
    };
    cp_async_pipeline<STAGES>(k_tiles, load, step);
  }

  // C = alpha * acc + beta * C for the tile at (m0, n0). Straight from the MMA layout where C's rows
  // start at 32-byte boundaries and no tile was spread: a lane's two adjacent outputs (2t, 2t + 1)
  // as one 8-byte read-modify-write, the 4 lanes of a row one whole sector. Otherwise through shared
  // memory (the pipeline's, free once the main loop is done): the accumulators go to a BM x BN tile,
  // whose rows go out one float per thread with consecutive threads on consecutive floats (a warp's
  // stores in the MMA layout touched 8-16 sectors each: C offset by one float cost ~3 us of a 46 us
  // 1000^3 product, C offset by 4 floats ~1.7 us). Staging every tile measured within 1 % of the
  // direct stores for 32-byte aligned C (perf note #54), so those keep them.
  __device__ __forceinline__ static void store(const GemmParams& p, float* smem, int m0, int n0, const Acc& acc) {
    const Modes md = modes(p, m0, n0);
    const bool spread_a = kMaySpreadA && md.alt_a, spread_b = kMaySpreadB && md.alt_b;
    if (spread_a) {
      if (spread_b) store_in<kMaySpreadA, kMaySpreadB>(p, smem, m0, n0, acc);
      else store_in<kMaySpreadA, false>(p, smem, m0, n0, acc);
    } else {
      if (spread_b) store_in<false, kMaySpreadB>(p, smem, m0, n0, acc);
      else store_in<false, false>(p, smem, m0, n0, acc);
    }
  }
  template <bool kSpreadA, bool kSpreadB>
  __device__ __forceinline__ static void store_in(const GemmParams& p, float* smem, int m0, int n0, const Acc& acc) {
    if (!kSpreadA && !kSpreadB && p.c_vec8) {
      store_direct(p, m0, n0, acc);
    } else {
      __syncthreads();  // every warp is done with the pipeline's tiles
      stage_acc<kSpreadA, kSpreadB>(smem, acc);
      __syncthreads();
      write_rows<stage_ld<kSpreadB>()>(p, smem, m0, n0);
    }
  }

  __device__ __forceinline__ static void store_direct(const GemmParams& p, int m0, int n0, const Acc& acc) {
    const LanePlace lp = lane_place();
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int m = m0 + lp.wm0 + mt * 16 + lp.g + 8 * h;
        if (m >= p.m) continue;
#pragma unroll
        for (int nt = 0; nt < kNT; ++nt) {
          const int n = n0 + lp.wn0 + nt * 8 + 2 * lp.t;
          const float v0 = acc[mt][nt][2 * h], v1 = acc[mt][nt][2 * h + 1];
          float* out = p.c + at(m, p.ldc, n);
          if (n + 1 < p.n) {
            epilogue_store2(out, v0, v1, p.alpha, p.beta);
          } else if (n < p.n) {
            epilogue_store(out, v0, p.alpha, p.beta);
          }
        }
      }
  }

  // Rows of the staged tile, 8-byte pairs 8 banks apart, spread quads 4: conflict-free writes.
  template <bool kSpreadB>
  __host__ __device__ static constexpr int stage_ld() {
    return BN + (kSpreadB ? 4 : 8);
  }
  static_assert(BM * (BN + 8) * 4 <= S::kSmemBytes, "the staged C tile fits in the pipeline's shared memory");

  template <bool kSpreadA, bool kSpreadB>
  __device__ __forceinline__ static void stage_acc(float* tile, const Acc& acc) {
    constexpr int kLd = stage_ld<kSpreadB>();
    const LanePlace lp = lane_place();
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float* row = tile + (lp.wm0 + tile_line<kSpreadA>(2 * mt + h, lp.g)) * kLd + lp.wn0;
        if constexpr (kSpreadB) {  // MMA columns 2t, 2t + 1 of groups 4q .. 4q + 3: two 4-column runs
#pragma unroll
          for (int q = 0; q < kNT / 4; ++q)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              float4 v;
              v.x = acc[mt][4 * q][2 * h + e], v.y = acc[mt][4 * q + 1][2 * h + e];
              v.z = acc[mt][4 * q + 2][2 * h + e], v.w = acc[mt][4 * q + 3][2 * h + e];
              *reinterpret_cast<float4*>(row + tile_line<true>(4 * q, 2 * lp.t + e)) = v;
            }
        } else {
#pragma unroll
          for (int nt = 0; nt < kNT; ++nt)
            *reinterpret_cast<float2*>(row + 8 * nt + 2 * lp.t) = make_float2(acc[mt][nt][2 * h], acc[mt][nt][2 * h + 1]);
        }
      }
  }

  // The staged tile to C, one column per thread, kThreads / BN rows apart: consecutive threads on
  // consecutive floats of a row, one pointer step per row. For 16-byte aligned C too: 16-byte quads
  // (a divide per quad, or a pointer walk per quad column) measured no faster (perf note #54).
  template <int kLd>
  __device__ __forceinline__ static void write_rows(const GemmParams& p, const float* tile, int m0, int n0) {
    static_assert(S::kThreads % BN == 0, "each thread writes one column");
    constexpr int kRowStep = S::kThreads / BN;
    const int c = threadIdx.x % BN, r0 = threadIdx.x / BN;
    if (n0 + c >= p.n) return;
    const int rows = p.m - m0 < BM ? p.m - m0 : BM;
    float* out = p.c + at(m0 + r0, p.ldc, n0 + c);
    const long long step = static_cast<long long>(kRowStep) * p.ldc;
#pragma unroll 8
    for (int r = r0; r < rows; r += kRowStep, out += step) epilogue_store(out, tile[r * kLd + c], p.alpha, p.beta);
  }
};

// One thread block per output tile (06_warp_tiled.cuh, whole_tile).
template <class S, bool kTransA, bool kTransB, bool kVecA, bool kVecB>
__global__ void __launch_bounds__(S::kThreads, S::kMinBlocksPerSm) gemm_mma_tf32x3(GemmParams p) {
  extern __shared__ float4 smem_raw[];
  whole_tile<S, MmaTf32x3Block<S, kTransA, kTransB, kVecA, kVecB>>(p, reinterpret_cast<float*>(smem_raw));
}

}  // namespace kernels
}  // namespace tilegemm
