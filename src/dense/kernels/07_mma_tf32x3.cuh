// Level 07 - tensor cores at FP32 accuracy (3xTF32 mma.sync).
// Level 6's block tiles, tile order and cp.async pipeline, with each warp's part of the tile
// multiplied by warp-level mma.sync.m16n8k8 TF32 instructions instead of per-thread FFMA tiles.
// Every operand value is split into a TF32 big part and a TF32 rest (core/mma_tf32x3.cuh), and
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
//   (4-byte copies for an operand that is not 16-byte aligned, unless the host packs it first: the
//   chooser weighs the two): [col][k] rows of BK + 4 floats
//   (operands contiguous along k) and [k][col] rows of BM (BN) + 8 floats (contiguous along m or
//   n). The fragment reads of a warp, 4 k x 8 columns or 8 columns x 4 k, then fall in 32 banks.
// - Each warp owns WM x WN outputs as (WM / 16) x (WN / 8) MMA tiles; a lane holds 4 of each.
// Measured (H100, 2026-11-25, 1fdd717): 4096^3 60.4 TFLOP/s, 1.16x cuBLAS; 8192^3 61.4, 1.19x (the
// 64x128 schedule Auto runs: 62.7 at 4096^3); the
// mma.sync TF32 ceiling is 325 TFLOP/s (bench/mma_tf32_peak.cu), i.e. ~108 for 3xTF32; docs/ladder.md.
// Build and run: bash scripts/build.sh && build/tilegemm bench --shape 4096x4096x4096 --kernels 7
#pragma once
#include "core/mma_tf32x3.cuh"
#include "core/split_k.cuh"
#include "dense/kernels/06_warp_tiled.cuh"

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
  using CopierA = TileCopier<BK, BM, S::kThreads, kAContigK, kVecA, kMmaColPad>;
  using CopierB = TileCopier<BK, BN, S::kThreads, kBContigK, kVecB, kMmaColPad>;
  static constexpr int kLdA = CopierA::kLd, kLdB = CopierB::kLd;
  static constexpr int kTileA = kAContigK ? BM * kLdA : BK * kLdA;
  static constexpr int kTileB = kBContigK ? BN * kLdB : BK * kLdB;

  // op(A)(m, k) and op(B)(k, n) of the staged tiles.
  __device__ __forceinline__ static float a_at(const float* tile, int m, int k) {
    return kAContigK ? tile[m * kLdA + k] : tile[k * kLdA + m];
  }
  __device__ __forceinline__ static float b_at(const float* tile, int k, int n) {
    return kBContigK ? tile[n * kLdB + k] : tile[k * kLdB + n];
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

  // acc += the product over K-tiles [kt_begin, kt_end) of the tile at (m0, n0).
  __device__ __forceinline__ static void mainloop(const GemmParams& p, float* smem, int m0, int n0,
                                                  int kt_begin, int kt_end, Acc& acc) {
    float* a_smem = smem;                      // STAGES x kTileA
    float* b_smem = a_smem + STAGES * kTileA;  // STAGES x kTileB
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int g = lane / 4, t = lane % 4;
    const int wm0 = (warp / S::kWarpsN) * S::kWarpM, wn0 = (warp % S::kWarpsN) * S::kWarpN;
    const CopierA copy_a(tid);
    const CopierB copy_b(tid);
    const int k_tiles = kt_end - kt_begin;
    // Interior tiles copy without bounds on every K-tile but the last of a K that BK does not divide
    // (TileCopier::interior_base): an address and the copy instead of issue()'s bounds and selects.
    // Aligned products ran 4-6 % faster; 4-byte copies of unaligned operands did not (their count,
    // not their arithmetic, sets the time: perf note #52).
    const bool a_interior = m0 + BM <= p.m, b_interior = n0 + BN <= p.n;
    auto load = [&](int s, int stage) {
      const int k0 = (kt_begin + s) * BK;
      const bool full_k = k0 + BK <= p.k;
      issue_stage(copy_a, a_smem + stage * kTileA, p.a, p.lda, k0, m0, p.k, p.m, !(full_k && a_interior));
      issue_stage(copy_b, b_smem + stage * kTileB, p.b, p.ldb, k0, n0, p.k, p.n, !(full_k && b_interior));
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
            split_tf32(a_at(a_tile, wm0 + mt * 16 + g + 8 * (r % 2), kk + t + 4 * (r / 2)), a_big[mt][r],
                       a_small[mt][r]);
#pragma unroll
        for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
          for (int r = 0; r < 2; ++r)  // b_r = B(t + 4 r, g)
            split_tf32(b_at(b_tile, kk + t + 4 * r, wn0 + nt * 8 + g), b_big[nt][r], b_small[nt][r]);
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

  // C = alpha * acc + beta * C for the tile at (m0, n0): a lane's two adjacent outputs of an MMA
  // tile row (2t, 2t + 1) as one 8-byte read-modify-write where C allows it.
  __device__ __forceinline__ static void store(const GemmParams& p, int m0, int n0, const Acc& acc) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;
    const int wm0 = (warp / S::kWarpsN) * S::kWarpM, wn0 = (warp % S::kWarpsN) * S::kWarpN;
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int m = m0 + wm0 + mt * 16 + g + 8 * h;
        if (m >= p.m) continue;
#pragma unroll
        for (int nt = 0; nt < kNT; ++nt) {
          const int n = n0 + wn0 + nt * 8 + 2 * t;
          const float v0 = acc[mt][nt][2 * h], v1 = acc[mt][nt][2 * h + 1];
          float* out = p.c + at(m, p.ldc, n);
          if (n + 1 < p.n && reinterpret_cast<unsigned long long>(out) % 8 == 0) {
            epilogue_store2(out, v0, v1, p.alpha, p.beta);
          } else {
            if (n < p.n) epilogue_store(out, v0, p.alpha, p.beta);
            if (n + 1 < p.n) epilogue_store(out + 1, v1, p.alpha, p.beta);
          }
        }
      }
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
