// Ladder level 8: 16-bit GEMM on Hopper tensor cores (sm_90a): tiles loaded into 128-byte swizzled
// shared memory completing on mbarriers, one producer warpgroup and two consumer warpgroups issuing
// wgmma, a persistent grid over the output tiles in grouped order (docs/ladder.md, level 8).
//
//   C (m x n, row-major, OutT) = alpha * A (m x k) * B (k x n) + beta * C,
//   A and B in bf16 or f16 (kF16), FP32 accumulation, OutT the input type or float.
//
// Each operand is stored K-major (A as m rows of k, B as n rows of k: B^T row-major) or MN-major
// (kAMn: A as k rows of m; kBMn: B as k rows of n); shared memory keeps the stored orientation and
// wgmma reads MN-major tiles through its transpose bits (hopper.cuh has the layouts).
//
// Block tile 128 x BN x 64: per k step the producer's one thread loads A's 128 x 64 and B's BN x 64
// tiles into stage st with TMA and arms full[st] with their bytes; each consumer warpgroup takes 64
// rows of the tile and issues four m64nBNk16 wgmmas per stage, keeps one group in flight, and frees
// the stage before it (empty[]: both consumers arrive). The producer runs ahead into the block's next
// tile while the consumers store this one. Rows, columns and k past the matrix are zeros from TMA's
// out-of-bounds fill; the stores are bounds-checked. A and B are 16-byte aligned in address and
// leading dimension (TMA; the family packs others first, pack_16bit.cuh). k >= 1 (the family runs a
// product only when it reads A and B).
#pragma once
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/common/hopper.cuh"
#include "kernels/common/out_convert.cuh"

namespace tilegemm {
namespace kernels {

inline constexpr int kWgmmaBM = 128, kWgmmaBK = 64, kWgmmaThreads = 384;

template <int BN, int kStages>
struct WgmmaSmem {
  unsigned short a[kStages][kWgmmaBM * kWgmmaBK];  // 16-bit elements, 1024-byte aligned stages
  unsigned short b[kStages][BN * kWgmmaBK];
  unsigned long long full[kStages], empty[kStages];
};
// Dynamic shared memory a launch takes: the stages, the barriers, and room to align to 1024 bytes.
template <int BN, int kStages>
constexpr int wgmma_smem_bytes() {
  return static_cast<int>(sizeof(WgmmaSmem<BN, kStages>)) + 1024;
}

struct WgmmaParams {
  void* c;
  int m, n, k;
  long long ldc;
  float alpha, beta;  // beta == 0: C is not read
  bool pairs;         // C's address and ldc keep column pairs aligned: one 2-element access per pair
  // Split-K: each tile's k steps in `splits` slices of kt_per_split (the last may be shorter, none
  // empty); with splits > 1 a slice writes its raw FP32 sums to partial + slice * m * ld_partial
  // (ld_partial even) and split_reduce_16bit.cuh makes C from them.
  int splits, kt_per_split;
  float* partial;
  long long ld_partial;
};

namespace wgmma_detail {

// Two adjacent outputs as one access (__nv_bfloat162, __half2, float2).
template <class OutT>
struct Pair;
template <>
struct Pair<float> {
  using type = float2;
  __device__ static type make(float x, float y) { return make_float2(x, y); }
  __device__ static float2 get(type v) { return v; }
};
template <>
struct Pair<__nv_bfloat16> {
  using type = __nv_bfloat162;
  __device__ static type make(float x, float y) { return __floats2bfloat162_rn(x, y); }
  __device__ static float2 get(type v) { return __bfloat1622float2(v); }
};
template <>
struct Pair<__half> {
  using type = __half2;
  __device__ static type make(float x, float y) { return __floats2half2_rn(x, y); }
  __device__ static float2 get(type v) { return __half22float2(v); }
};
}  // namespace wgmma_detail

template <bool kF16, class OutT, int BN, int kStages, bool kAMn, bool kBMn>
__global__ void __launch_bounds__(kWgmmaThreads, 1)
    gemm_wgmma_tma(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                   const WgmmaParams p) {
  using namespace wgmma_detail;
  using namespace hopper;
  constexpr int BM = kWgmmaBM, BK = kWgmmaBK;
  extern __shared__ __align__(1024) unsigned char raw[];
  auto& s = *reinterpret_cast<WgmmaSmem<BN, kStages>*>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
  const int wg = threadIdx.x / 128;
  // Rounded up without overflow for sizes up to 2^31 - 1 (m, n, k >= 1 here).
  const int kt_count = (p.k - 1) / BK + 1;
  // Persistent: block b takes work units b, b + grid, ...; unit u is k slice u % splits of tile
  // u / splits, the tiles in grouped order (8 tile rows share their B columns in L2).
  const int tiles_n = (p.n - 1) / BN + 1, tiles_m = (p.m - 1) / BM + 1, units = tiles_n * tiles_m * p.splits;
  auto unit_origin = [&](int u, int& m0, int& n0, int& kt0, int& kt1) {
    const int t = u / p.splits;
    const int per_group = 8 * tiles_n, first_m = (t / per_group) * 8;
    const int group_rows = min(tiles_m - first_m, 8);
    m0 = (first_m + (t % per_group) % group_rows) * BM;
    n0 = ((t % per_group) / group_rows) * BN;
    kt0 = (u % p.splits) * p.kt_per_split;
    kt1 = min(kt0 + p.kt_per_split, kt_count);
  };
  if (threadIdx.x == 0) {
    for (int i = 0; i < kStages; ++i) {
      mbar_init(&s.full[i], 1);
      mbar_init(&s.empty[i], 2);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (wg == 0) {  // the producer: one thread issues every load
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    if (threadIdx.x != 0) return;
    int it = 0;
    for (int u = blockIdx.x; u < units; u += gridDim.x) {
      int m0, n0, kt0, kt1;
      unit_origin(u, m0, n0, kt0, kt1);
      for (int kt = kt0; kt < kt1; ++kt, ++it) {
        const int st = it % kStages;
        if (it >= kStages) mbar_wait(&s.empty[st], ((it / kStages) - 1) & 1);
        mbar_expect_tx(&s.full[st], (BM + BN) * BK * 2);
        tma_load_tile<BM, kAMn>(s.a[st], &map_a, m0, kt * BK, &s.full[st]);
        tma_load_tile<BN, kBMn>(s.b[st], &map_b, n0, kt * BK, &s.full[st]);
      }
    }
    return;
  }
  // The consumers: warpgroup wg - 1 takes rows (wg - 1) * 64 .. + 63 of the tile (K-major A: lines
  // 64 (wg - 1) ..; MN-major A: box wg - 1; both start 4096 elements into the stage).
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  const int cw = wg - 1;
  const int t_in = threadIdx.x % 128, warp = t_in / 32, lane = t_in % 32;
  float acc[BN / 2];
  int it = 0;
  for (int u = blockIdx.x; u < units; u += gridDim.x) {
    int m0, n0, kt0, kt1;
    unit_origin(u, m0, n0, kt0, kt1);
    for (int kt = kt0; kt < kt1; ++kt, ++it) {
      const int st = it % kStages;
      mbar_wait(&s.full[st], (it / kStages) & 1);
      wgmma_fence();
      const unsigned long long da = kAMn ? desc_mn_major(&s.a[st][cw * 4096]) : desc_k_major(&s.a[st][cw * 4096]);
      const unsigned long long db = kBMn ? desc_mn_major(&s.b[st][0]) : desc_k_major(&s.b[st][0]);
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk)
        Wgmma<BN, kF16, kAMn, kBMn>::mma(acc, desc_k_step<kAMn>(da, kk), desc_k_step<kBMn>(db, kk),
                                         (kt > kt0 || kk > 0) ? 1 : 0);
      wgmma_commit();
      // One group in flight: the previous stage's products are done, its buffers free.
      wgmma_wait<1>();
      if (kt > kt0 && t_in == 0) mbar_arrive(&s.empty[(it - 1) % kStages]);
    }
    wgmma_wait<0>();
    if (t_in == 0) mbar_arrive(&s.empty[(it - 1) % kStages]);
    // The m64nBN accumulator layout: thread (warp, lane) holds rows warp * 16 + lane / 4 (+ 8) and
    // column pairs 8 j + 2 (lane % 4).
    const int row_base = m0 + cw * 64 + warp * 16 + lane / 4;
    if (p.splits > 1) {  // the slice's raw sums; the reduction applies alpha and beta
      float* part = p.partial + static_cast<long long>(u % p.splits) * p.m * p.ld_partial;
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        const int col = n0 + j * 8 + (lane % 4) * 2;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int row = row_base + h * 8;
          if (row >= p.m || col >= p.n) continue;
          float* out = part + row * p.ld_partial + col;
          if (col + 1 < p.n) *reinterpret_cast<float2*>(out) = make_float2(acc[j * 4 + h * 2], acc[j * 4 + h * 2 + 1]);
          else out[0] = acc[j * 4 + h * 2];
        }
      }
      continue;
    }
    OutT* c = static_cast<OutT*>(p.c);
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int col = n0 + j * 8 + (lane % 4) * 2;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = row_base + h * 8;
        if (row >= p.m) continue;
        OutT* out = c + row * p.ldc + col;
        float v0 = p.alpha * acc[j * 4 + h * 2], v1 = p.alpha * acc[j * 4 + h * 2 + 1];
        // One access per pair where it is aligned: every pair (p.pairs), or with an odd ldc every
        // other row's.
        const bool aligned_pair = p.pairs || reinterpret_cast<uintptr_t>(out) % (2 * sizeof(OutT)) == 0;
        if (aligned_pair && col + 1 < p.n) {
          using P = Pair<OutT>;
          auto* at = reinterpret_cast<typename P::type*>(out);
          if (p.beta != 0.0f) {
            const float2 old = P::get(*at);
            v0 += p.beta * old.x;
            v1 += p.beta * old.y;
          }
          *at = P::make(v0, v1);
          continue;
        }
        if (col < p.n) out[0] = to_out<OutT>(p.beta != 0.0f ? v0 + p.beta * from_out(out[0]) : v0);
        if (col + 1 < p.n) out[1] = to_out<OutT>(p.beta != 0.0f ? v1 + p.beta * from_out(out[1]) : v1);
      }
    }
  }
}

}  // namespace kernels
}  // namespace tilegemm
