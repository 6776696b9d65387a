// Hopper (sm_90a) building blocks of the tensor-core kernels: mbarriers, TMA tile loads, the
// shared-memory matrix descriptors of wgmma for 128-byte swizzled tiles, and the wgmma instructions
// with FP32 accumulators in registers: 16-bit A and B from shared memory, TF32 A from registers.
//
// The shared-memory layout everything here agrees on is TMA's CU_TENSOR_MAP_SWIZZLE_128B "box": a
// box of `lines` x 64 16-bit elements (128-byte lines), line l at byte l * 128, its 16-byte chunk j
// at chunk position j ^ (l % 8), boxes 1024-byte aligned. Such a box holds an operand either
//  - K-major (lines along M or N, 64 k per line): one box of BM (or BN) lines per k step of 64, or
//  - MN-major (lines along k, 64 M or N per line): BM / 64 boxes of 64 lines per k step, 8 KB apart.
//
// Device code only.
#pragma once
#include "kernels/gemm/wgmma_in.hpp"

namespace tilegemm {
namespace kernels {
namespace hopper {

__device__ __forceinline__ unsigned smem_u32(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void mbar_init(unsigned long long* b, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(b)), "r"(count));
}
// Arrives once and expects `bytes` more from asynchronous copies (the TMA producer's arrival).
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
// One box of a 3-D tensor map (inner, outer, batch) at those coordinates into `dst`, completing on
// `bar` with its bytes.
__device__ __forceinline__ void tma_load_3d(void* dst, const void* map, int inner, int outer, int batch,
                                            unsigned long long* bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(
          smem_u32(dst)),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(inner), "r"(outer), "r"(batch), "r"(smem_u32(bar))
      : "memory");
}

// Thread-block clusters: this block's rank, a barrier across the cluster's blocks (every thread of
// each), and an arrival on the mbarrier at the same shared address in block `rank` of the cluster
// (what a producer there waits on with mbar_wait before it loads into this block again).
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// The same barrier for threads whose warp may have diverged (not .aligned: a producer thread still in
// its loop while the rest of its warp waits).
__device__ __forceinline__ void cluster_sync_diverged() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive_in(unsigned long long* b, unsigned rank) {
  // The default (CTA-scope) release: a cluster-scope release waits for this thread's earlier memory
  // operations to reach the cluster, which on the consumers' path halved the speed of level 8 (c2).
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(smem_u32(b)),
      "r"(rank)
      : "memory");
}
// The float at shared address `smem` (this block's address space) in block `rank` of the cluster
// (distributed shared memory); the caller orders it after the writer's cluster_sync.
__device__ __forceinline__ float ld_shared_in(unsigned smem, unsigned rank) {
  float v;
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %1, %2;\n"
      "ld.shared::cluster.f32 %0, [remote];\n}"
      : "=f"(v)
      : "r"(smem), "r"(rank)
      : "memory");
  return v;
}
// The 4 floats at shared address `smem` (16-byte aligned) in block `rank` of the cluster, likewise.
__device__ __forceinline__ float4 ld_shared_in_v4(unsigned smem, unsigned rank) {
  float4 v;
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %4, %5;\n"
      "ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [remote];\n}"
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
      : "r"(smem), "r"(rank)
      : "memory");
  return v;
}
// Named barrier `id` (1-15; 0 is __syncthreads) over `threads` threads: wait for all of them, or
// count this warp's arrival without waiting.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
// tma_load_3d into the same shared address of every block of the cluster in `blocks` (a bit per
// rank), completing on each one's mbarrier at `bar`'s address.
__device__ __forceinline__ void tma_load_3d_multicast(void* dst, const void* map, int inner, int outer, int batch,
                                                      unsigned long long* bar, unsigned short blocks) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3, %4}], [%5], %6;" ::"r"(smem_u32(dst)),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(inner), "r"(outer), "r"(batch), "r"(smem_u32(bar)),
      "h"(blocks)
      : "memory");
}

// TMA stores (the staged epilogue's second half): one box of shared memory `src` (the map's box, its
// layout that of the loads) to a 3-D tensor map's (inner, outer, batch); TMA clips what lies past
// the tensor. The stores of a thread form bulk groups: commit after issuing, and wait for their reads
// of shared memory before writing it again (wait_group.read) or for the whole store (wait_group).
// Shared memory written by threads is ordered before TMA reads it by fence_proxy_async_shared in
// every writing thread, then a barrier.
__device__ __forceinline__ void tma_store_3d(const void* map, const void* src, int inner, int outer, int batch) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(
                   reinterpret_cast<unsigned long long>(map)),
               "r"(smem_u32(src)), "r"(inner), "r"(outer), "r"(batch)
               : "memory");
}
__device__ __forceinline__ void bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
__device__ __forceinline__ void bulk_wait_group_read0() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }
__device__ __forceinline__ void bulk_wait_group0() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
__device__ __forceinline__ void fence_proxy_async_shared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

// Loads the rows x kLine (k) tile of an operand at (mn0, k0) of matrix `batch` into `dst` (the
// stage's tile; the tensor map is 3-D: inner, outer, batch), arming
// `bar`, kLine the elements of a 128-byte line (64 16-bit or 32 FP32 elements): K-major, one box of
// `kRows` lines of k; MN-major, kRows / kLine boxes of kLine lines (k) x kLine of m or n, kLine * 128
// bytes apart. The tensor map's boxes are kLine x kRows (K-major) or kLine x kLine (MN-major).
// With `blocks` != 0 the tile goes to every block of the cluster in that mask (tma_load_3d_multicast).
template <int kRows, bool kMnMajor, int kLine = 64>
__device__ __forceinline__ void tma_load_tile(unsigned short* dst, const void* map, int mn0, int k0, int batch,
                                              unsigned long long* bar, unsigned short blocks = 0) {
  auto load = [&](void* to, int inner, int outer) {
    if (blocks) tma_load_3d_multicast(to, map, inner, outer, batch, bar, blocks);
    else tma_load_3d(to, map, inner, outer, batch, bar);
  };
  if (kMnMajor) {
#pragma unroll
    for (int box = 0; box < kRows / kLine; ++box) load(dst + box * kLine * 64, mn0 + box * kLine, k0);
  } else {
    load(dst, k0, mn0);
  }
}

// Shared-memory matrix descriptors of 128-byte swizzled boxes (the layout above). Bits: start address
// >> 4 (0-13), leading byte offset >> 4 (16-29), stride byte offset >> 4 (32-45), swizzle mode 1 =
// 128 bytes (62-63).
//  - K-major: 8-line core groups 1024 bytes apart (stride offset); a k16 step inside the 128-byte
//    line adds 32 bytes to the start.
//  - MN-major: 64-element atoms along M/N one box (8 KB) apart (leading offset), 8-k groups 1024
//    bytes apart (stride offset); a k16 step adds 16 lines = 2048 bytes to the start.
constexpr unsigned kBoxBytes = 64 * 64 * 2;
__device__ __forceinline__ unsigned long long desc_k_major(const void* p) {
  const unsigned long long addr = smem_u32(p);
  return ((addr & 0x3FFFF) >> 4) | (1ull << 16) | ((1024ull >> 4) << 32) | (1ull << 62);
}
__device__ __forceinline__ unsigned long long desc_mn_major(const void* p) {
  const unsigned long long addr = smem_u32(p);
  return ((addr & 0x3FFFF) >> 4) | (static_cast<unsigned long long>(kBoxBytes >> 4) << 16) | ((1024ull >> 4) << 32) |
         (1ull << 62);
}
// The descriptor of k16 step kk of a box that starts at descriptor d (the start address is in 16-byte
// units).
template <bool kMnMajor>
__device__ __forceinline__ unsigned long long desc_k_step(unsigned long long d, int kk) {
  return d + (kMnMajor ? kk * (2048 >> 4) : kk * (32 >> 4));
}

// m64nNkK wgmma with FP32 accumulators in registers, A and B from shared-memory descriptors;
// scale_d = 0 starts the accumulators at zero. kIn: bf16 or f16 (k16, kTransA / kTransB: the operand
// is MN-major), or TF32 (k8 on the FP32 bits in shared memory, both operands K-major: TF32 has no
// transposed operands). Every instruction reads 32 bytes of each operand line (desc_k_step).
template <int N, WgmmaIn kIn, bool kTransA, bool kTransB>
struct Wgmma;

#define TILEGEMM_WGMMA_REGS_16 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15"
#define TILEGEMM_WGMMA_REGS_32                                                                             \
  TILEGEMM_WGMMA_REGS_16 ", %16, %17, %18, %19, %20, %21, "                                                \
  "%22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define TILEGEMM_WGMMA_REGS_64                                                                             \
  TILEGEMM_WGMMA_REGS_32 ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, "                              \
  "%42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, "   \
  "%62, %63"
#define TILEGEMM_WGMMA_REGS_64_TO_95                                                                     \
  ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, " \
  "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define TILEGEMM_WGMMA_REGS_96_TO_127                                                                    \
  ", %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, " \
  "%113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define TILEGEMM_WGMMA_REGS_128_TAIL TILEGEMM_WGMMA_REGS_64_TO_95 TILEGEMM_WGMMA_REGS_96_TO_127
#define TILEGEMM_D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
                       "+f"(d[i + 6]), "+f"(d[i + 7])
#define TILEGEMM_D64(i) TILEGEMM_D8(i), TILEGEMM_D8(i + 8), TILEGEMM_D8(i + 16), TILEGEMM_D8(i + 24), \
                        TILEGEMM_D8(i + 32), TILEGEMM_D8(i + 40), TILEGEMM_D8(i + 48), TILEGEMM_D8(i + 56)

// One wgmma: REGS the accumulators' operand list, DA / DB / SCALE the operand numbers of the
// descriptors and scale_d, 16-bit instructions the operands' transpose bits (TRANS; TF32's none), and
// last the accumulators' constraints (a list with commas).
#define TILEGEMM_D128 TILEGEMM_D64(0), TILEGEMM_D64(64)
#define TILEGEMM_D16 TILEGEMM_D8(0), TILEGEMM_D8(8)
#define TILEGEMM_D32 TILEGEMM_D8(0), TILEGEMM_D8(8), TILEGEMM_D8(16), TILEGEMM_D8(24)
#define TILEGEMM_D96 TILEGEMM_D64(0), TILEGEMM_D8(64), TILEGEMM_D8(72), TILEGEMM_D8(80), TILEGEMM_D8(88)
#define TILEGEMM_WGMMA_SS(REGS, DA, DB, SCALE, SHAPE_TYPES, TRANS, ...)                             \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " SCALE ", 0;\n"                                    \
               "wgmma.mma_async.sync.aligned." SHAPE_TYPES " {" REGS "}, " DA ", " DB ", p, 1, 1" TRANS ";\n}\n" \
               : __VA_ARGS__                                                                         \
               : "l"(da), "l"(db), "r"(scale_d), "n"(int(kTransA)), "n"(int(kTransB)))

// Wgmma<N> for one width: TILEGEMM_WGMMA_SS's fields for it.
#define TILEGEMM_WGMMA_WIDTH(N, REGS, DA, DB, SCALE, TRANS, ...)                                        \
  template <WgmmaIn kIn, bool kTransA, bool kTransB>                                                   \
  struct Wgmma<N, kIn, kTransA, kTransB> {                                                             \
    static_assert(kIn != WgmmaIn::TF32 || (!kTransA && !kTransB), "TF32 operands are K-major");       \
    __device__ __forceinline__ static void mma(float (&d)[N / 2], unsigned long long da,               \
                                               unsigned long long db, int scale_d) {                   \
      if constexpr (kIn == WgmmaIn::TF32)                                                              \
        TILEGEMM_WGMMA_SS(REGS, DA, DB, SCALE, "m64n" #N "k8.f32.tf32.tf32", "", __VA_ARGS__);         \
      else if constexpr (kIn == WgmmaIn::F16)                                                          \
        TILEGEMM_WGMMA_SS(REGS, DA, DB, SCALE, "m64n" #N "k16.f32.f16.f16", TRANS, __VA_ARGS__);       \
      else                                                                                             \
        TILEGEMM_WGMMA_SS(REGS, DA, DB, SCALE, "m64n" #N "k16.f32.bf16.bf16", TRANS, __VA_ARGS__);     \
    }                                                                                                  \
  };
TILEGEMM_WGMMA_WIDTH(256, TILEGEMM_WGMMA_REGS_64 TILEGEMM_WGMMA_REGS_128_TAIL, "%128", "%129", "%130", ", %131, %132",
                     TILEGEMM_D128)
TILEGEMM_WGMMA_WIDTH(192, TILEGEMM_WGMMA_REGS_64 TILEGEMM_WGMMA_REGS_64_TO_95, "%96", "%97", "%98", ", %99, %100",
                     TILEGEMM_D96)
TILEGEMM_WGMMA_WIDTH(128, TILEGEMM_WGMMA_REGS_64, "%64", "%65", "%66", ", %67, %68", TILEGEMM_D64(0))
// 64 columns: 32 accumulators a thread (tiles that fill the SMs where 128 columns leave them idle,
// 1024 x 768 x 3072 on 96 tiles of 128 x 64 against 48 of 128 x 128).
TILEGEMM_WGMMA_WIDTH(64, TILEGEMM_WGMMA_REGS_32, "%32", "%33", "%34", ", %35, %36", TILEGEMM_D32)
// 32 columns: 16 accumulators a thread (few-row products computed as C^T, `:t`: the rows on the tile's
// columns, 32 of them instead of 64 half padding).
TILEGEMM_WGMMA_WIDTH(32, TILEGEMM_WGMMA_REGS_16, "%16", "%17", "%18", ", %19, %20", TILEGEMM_D16)
#undef TILEGEMM_WGMMA_WIDTH
#undef TILEGEMM_WGMMA_SS

// m64nNk8 wgmma on TF32 operands with FP32 accumulators: A from registers (a warp's 16 rows of the
// warpgroup's 64, as mma.sync's m16n8k8 A fragment: with g = lane / 4, t = lane % 4, a = A(g, t),
// A(g + 8, t), A(g, t + 4), A(g + 8, t + 4), the FP32 bits of TF32 values), B K-major from a
// shared-memory descriptor (TF32 has no transposed operands). The registers of `a` must keep their
// values until the wgmma is waited for (fence_operand after the wait).
template <int N>
struct WgmmaTf32;
// WgmmaTf32<N> for one width: REGS the accumulators' operand list, A the fragment's four operand
// numbers, DB / SCALE those of the descriptor and scale_d, last the accumulators' constraints.
#define TILEGEMM_WGMMA_TF32_RS(N, REGS, A, DB, SCALE, ...)                                               \
  template <>                                                                                          \
  struct WgmmaTf32<N> {                                                                                \
    __device__ __forceinline__ static void mma(float (&d)[N / 2], const unsigned (&a)[4], unsigned long long db, \
                                               int scale_d) {                                          \
      asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " SCALE ", 0;\n"                                   \
                   "wgmma.mma_async.sync.aligned.m64n" #N "k8.f32.tf32.tf32 {" REGS "}, {" A "}, " DB      \
                   ", p, 1, 1;\n}\n"                                                                     \
                   : __VA_ARGS__                                                                       \
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));              \
    }                                                                                                  \
  };
TILEGEMM_WGMMA_TF32_RS(256, TILEGEMM_WGMMA_REGS_64 TILEGEMM_WGMMA_REGS_128_TAIL, "%128, %129, %130, %131", "%132",
                       "%133", TILEGEMM_D128)
TILEGEMM_WGMMA_TF32_RS(192, TILEGEMM_WGMMA_REGS_64 TILEGEMM_WGMMA_REGS_64_TO_95, "%96, %97, %98, %99", "%100", "%101",
                       TILEGEMM_D96)
TILEGEMM_WGMMA_TF32_RS(128, TILEGEMM_WGMMA_REGS_64, "%64, %65, %66, %67", "%68", "%69", TILEGEMM_D64(0))
TILEGEMM_WGMMA_TF32_RS(64, TILEGEMM_WGMMA_REGS_32, "%32, %33, %34, %35", "%36", "%37", TILEGEMM_D32)
TILEGEMM_WGMMA_TF32_RS(32, TILEGEMM_WGMMA_REGS_16, "%16, %17, %18, %19", "%20", "%21", TILEGEMM_D16)
#undef TILEGEMM_WGMMA_TF32_RS
#undef TILEGEMM_WGMMA_REGS_16
#undef TILEGEMM_WGMMA_REGS_32
#undef TILEGEMM_WGMMA_REGS_64
#undef TILEGEMM_WGMMA_REGS_128_TAIL
#undef TILEGEMM_WGMMA_REGS_64_TO_95
#undef TILEGEMM_WGMMA_REGS_96_TO_127
#undef TILEGEMM_D8
#undef TILEGEMM_D64
#undef TILEGEMM_D128
#undef TILEGEMM_D96
#undef TILEGEMM_D32
#undef TILEGEMM_D16

// Named barrier `id` over `threads` threads that also ANDs `pred` over them (bar.red.and).
__device__ __forceinline__ bool named_barrier_and(int id, int threads, bool pred) {
  int all;
  asm volatile("{\n.reg .pred p, q;\nsetp.ne.b32 p, %1, 0;\nbar.red.and.pred q, %2, %3, p;\nselp.b32 %0, 1, 0, q;\n}"
               : "=r"(all)
               : "r"(int(pred)), "r"(id), "r"(threads)
               : "memory");
  return all != 0;
}
// Keeps a register's value where it is until this point: after a wgmma_wait, so that the compiler
// neither reuses a wgmma's A registers nor reads its accumulators before the wgmma is done.
__device__ __forceinline__ void fence_operand(float& v) { asm volatile("" : "+f"(v)::"memory"); }
__device__ __forceinline__ void fence_operand(unsigned& v) { asm volatile("" : "+r"(v)::"memory"); }

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int kInFlight>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kInFlight) : "memory");
}

}  // namespace hopper
}  // namespace kernels
}  // namespace tilegemm
