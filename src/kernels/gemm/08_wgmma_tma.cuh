// Ladder level 8: 16-bit GEMM on Hopper tensor cores (sm_90a): TMA loads completing on mbarriers,
// one producer warpgroup and two consumer warpgroups issuing wgmma, a persistent grid over the output
// tiles in grouped order (docs/ladder.md, level 8).
//
//   C (m x n, row-major, OutT) = alpha * A (m x k, row-major) * B^T (B: n x k, row-major) + beta * C,
//   A and B in bf16 or f16 (kF16), FP32 accumulation, OutT the input type or float.
//
// Block tile 128 x BN x 64: per k step the producer's one thread loads A's 128 x 64 and B's BN x 64
// boxes (128-byte rows, 128-byte swizzle) into stage st and arms full[st] with their bytes; each
// consumer warpgroup takes 64 rows of the tile and issues four m64nBNk16 wgmmas per stage, keeps one
// group in flight, and frees the stage before it (empty[]: both consumers arrive). The producer runs
// ahead into the block's next tile while the consumers store this one. Rows, columns and k past the
// matrix are zeros from TMA's out-of-bounds fill; the stores are bounds-checked. k >= 1 (the family
// runs a product only when it reads A and B).
#pragma once
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

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
};

namespace wgmma_detail {

__device__ __forceinline__ unsigned smem_u32(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void mbar_init(unsigned long long* b, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(b)), "r"(count));
}
__device__ __forceinline__ void mbar_expect_tx(unsigned long long* b, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned long long* b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(b)) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned long long* b, unsigned parity) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra WAIT_%=;\n"
      "}\n" ::"r"(smem_u32(b)),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int c0, int c1, unsigned long long* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          smem_u32(dst)),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(c0), "r"(c1), "r"(smem_u32(bar))
      : "memory");
}
// A shared-memory matrix descriptor: K-major, 128-byte swizzle, 8-row atoms 1024 bytes apart (the
// layout TMA writes with CU_TENSOR_MAP_SWIZZLE_128B). A k16 step inside the row adds 32 bytes.
__device__ __forceinline__ unsigned long long desc_sw128(const void* p) {
  const unsigned long long addr = smem_u32(p);
  return ((addr & 0x3FFFF) >> 4) | (1ull << 16) | ((1024ull >> 4) << 32) | (1ull << 62);
}

template <int BN, bool kF16>
struct WgmmaTile;
// One m64nNk16 wgmma with FP32 accumulators in registers, A and B from shared-memory descriptors;
// scale_d = 0 starts the accumulators at zero. TYPE is the PTX type of A and B ("bf16", "f16").
#define TILEGEMM_WGMMA_N256(F16, TYPE)                                                                     \
  template <>                                                                                              \
  struct WgmmaTile<256, F16> {                                                                             \
    __device__ __forceinline__ static void mma(float (&d)[128], unsigned long long da, unsigned long long db, \
                                               int scale_d) {                                              \
      asm volatile(                                                                                        \
          "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                                                    \
          "wgmma.mma_async.sync.aligned.m64n256k16.f32." TYPE "." TYPE " {"                                 \
          "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, \
          %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, \
          %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, \
          %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, \
          %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, \
          %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, \
          %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, \
          %123, %124, %125, %126, %127"                                                                                 \
          "}, %128, %129, p, 1, 1, 0, 0;\n}\n"                                                             \
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
            "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), \
            "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), \
            "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), \
            "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), \
            "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), \
            "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), \
            "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), \
            "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
            "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), \
            "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), \
            "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), \
            "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), \
            "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), \
            "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), \
            "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), \
            "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
            "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), \
            "+f"(d[127])                                                                                \
          : "l"(da), "l"(db), "r"(scale_d));                                                               \
    }                                                                                                      \
  };
#define TILEGEMM_WGMMA_N128(F16, TYPE)                                                                     \
  template <>                                                                                              \
  struct WgmmaTile<128, F16> {                                                                             \
    __device__ __forceinline__ static void mma(float (&d)[64], unsigned long long da, unsigned long long db,  \
                                               int scale_d) {                                              \
      asm volatile(                                                                                        \
          "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                                     \
          "wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPE "." TYPE " {"                                 \
          "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, \
          %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, \
          %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, \
          %56, %57, %58, %59, %60, %61, %62, %63"                                                                                  \
          "}, %64, %65, p, 1, 1, 0, 0;\n}\n"                                                               \
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
            "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), \
            "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), \
            "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), \
            "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), \
            "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), \
            "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), \
            "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), \
            "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])                                                                                 \
          : "l"(da), "l"(db), "r"(scale_d));                                                               \
    }                                                                                                      \
  };
TILEGEMM_WGMMA_N256(false, "bf16")
TILEGEMM_WGMMA_N256(true, "f16")
TILEGEMM_WGMMA_N128(false, "bf16")
TILEGEMM_WGMMA_N128(true, "f16")
#undef TILEGEMM_WGMMA_N256
#undef TILEGEMM_WGMMA_N128

template <class OutT>
__device__ __forceinline__ OutT to_out(float v);
template <>
__device__ __forceinline__ float to_out<float>(float v) { return v; }
template <>
__device__ __forceinline__ __nv_bfloat16 to_out<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <>
__device__ __forceinline__ __half to_out<__half>(float v) { return __float2half_rn(v); }
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
__device__ __forceinline__ float from_out(float v) { return v; }
__device__ __forceinline__ float from_out(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float from_out(__half v) { return __half2float(v); }

}  // namespace wgmma_detail

template <bool kF16, class OutT, int BN, int kStages>
__global__ void __launch_bounds__(kWgmmaThreads, 1)
    gemm_wgmma_tma(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                   const WgmmaParams p) {
  using namespace wgmma_detail;
  constexpr int BM = kWgmmaBM, BK = kWgmmaBK;
  extern __shared__ __align__(1024) unsigned char raw[];
  auto& s = *reinterpret_cast<WgmmaSmem<BN, kStages>*>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
  const int wg = threadIdx.x / 128;
  const int kt_count = (p.k + BK - 1) / BK;
  // Persistent: block b takes tiles b, b + grid, ... in grouped order (8 tile rows share their B
  // columns in L2).
  const int tiles_n = (p.n + BN - 1) / BN, tiles_m = (p.m + BM - 1) / BM, tiles = tiles_n * tiles_m;
  auto tile_origin = [&](int t, int& m0, int& n0) {
    const int per_group = 8 * tiles_n, first_m = (t / per_group) * 8;
    const int group_rows = min(tiles_m - first_m, 8);
    m0 = (first_m + (t % per_group) % group_rows) * BM;
    n0 = ((t % per_group) / group_rows) * BN;
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
    if (threadIdx.x == 0) {
      int it = 0;
      for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        int m0, n0;
        tile_origin(t, m0, n0);
        for (int kt = 0; kt < kt_count; ++kt, ++it) {
          const int st = it % kStages;
          if (it >= kStages) mbar_wait(&s.empty[st], ((it / kStages) - 1) & 1);
          mbar_expect_tx(&s.full[st], (BM + BN) * BK * 2);
          tma_load_2d(s.a[st], &map_a, kt * BK, m0, &s.full[st]);
          tma_load_2d(s.b[st], &map_b, kt * BK, n0, &s.full[st]);
        }
      }
    }
    return;
  }
  // The consumers: warpgroup wg - 1 takes rows (wg - 1) * 64 .. + 63 of the tile.
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  const int cw = wg - 1;
  const int t_in = threadIdx.x % 128, warp = t_in / 32, lane = t_in % 32;
  float acc[BN / 2];
  int it = 0;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int m0, n0;
    tile_origin(t, m0, n0);
    for (int kt = 0; kt < kt_count; ++kt, ++it) {
      const int st = it % kStages;
      mbar_wait(&s.full[st], (it / kStages) & 1);
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk) {
        const unsigned long long da = desc_sw128(&s.a[st][cw * 64 * BK]) + (kk * 32 >> 4);
        const unsigned long long db = desc_sw128(&s.b[st][0]) + (kk * 32 >> 4);
        WgmmaTile<BN, kF16>::mma(acc, da, db, (kt > 0 || kk > 0) ? 1 : 0);
      }
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      // One group in flight: the previous stage's products are done, its buffers free.
      asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
      if (kt > 0 && t_in == 0) mbar_arrive(&s.empty[(it - 1) % kStages]);
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    if (t_in == 0) mbar_arrive(&s.empty[(it - 1) % kStages]);
    // The m64nBN accumulator layout: thread (warp, lane) holds rows warp * 16 + lane / 4 (+ 8) and
    // column pairs 8 j + 2 (lane % 4).
    OutT* c = static_cast<OutT*>(p.c);
    const int row_base = m0 + cw * 64 + warp * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int col = n0 + j * 8 + (lane % 4) * 2;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = row_base + h * 8;
        if (row >= p.m) continue;
        OutT* out = c + row * p.ldc + col;
        float v0 = p.alpha * acc[j * 4 + h * 2], v1 = p.alpha * acc[j * 4 + h * 2 + 1];
        if (p.pairs && col + 1 < p.n) {  // the common case: one aligned access per pair
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
