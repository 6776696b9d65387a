// Asynchronous global -> shared copies (cp.async, sm_80+) and the multi-stage pipeline built on them,
// shared by the dense and sparse kernels. A source size smaller than the copy size zero-fills the
// rest, which is how out-of-range elements become zeros without a branch around the copy.
//
// Device code only, includes nothing: compiles with nvcc and with NVRTC (-I src).
#pragma once

namespace tilegemm {
namespace kernels {

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async_4(void* smem, const float* gmem, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(smem)),
               "l"(gmem), "r"(valid ? 4 : 0));
}
__device__ __forceinline__ void cp_async_8(void* smem, const float* gmem) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(smem_addr(smem)), "l"(gmem));
}
__device__ __forceinline__ void cp_async_16_bytes(void* smem, const void* gmem, int valid_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(smem)),
               "l"(gmem), "r"(valid_bytes));
}
__device__ __forceinline__ void cp_async_16(void* smem, const float* gmem, int valid_floats) {
  cp_async_16_bytes(smem, gmem, valid_floats * 4);
}
// A 16-byte copy, or 16 zero bytes without reading the source where !copy (the ignore-src form: no
// source size to compute, unlike cp_async_16's).
__device__ __forceinline__ void cp_async_16_or_zeros(void* smem, const float* gmem, bool copy) {
  asm volatile(
      "{\n .reg .pred skip;\n setp.eq.u32 skip, %2, 0;\n"
      " cp.async.cg.shared.global [%0], [%1], 16, skip;\n}\n" ::"r"(smem_addr(smem)),
      "l"(gmem), "r"(copy ? 1u : 0u));
}
// The block's dynamic shared memory, 128-byte aligned, for kernels with static __shared__ variables
// (split_k_reduce's flag): declared with 16-byte alignment, their dynamic memory started right after
// the flag, 16 bytes past a 32-byte boundary, so that every 16-byte copy from a 32-byte aligned global
// row landed at a disagreeing offset within 32 bytes, the slow case of perf note #55 (#58). Kernels
// without static variables (the whole-tile ladder kernels, whose dynamic memory starts at the
// block's first byte) keep their own declarations: declared here, their code comes out different.
template <class T>
__device__ __forceinline__ T* dynamic_smem() {
  extern __shared__ __align__(128) float4 tilegemm_dynamic_smem[];
  return reinterpret_cast<T*>(tilegemm_dynamic_smem);
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// The kStages-deep cp.async pipeline every tiled kernel runs over its K-tiles (dense level 6 and its
// split-K kernel, BSR kernels 03 and 04): kStages - 1 tiles in flight ahead of the one being
// multiplied, one barrier per tile, run by every thread of the block.
//   load(t, stage): issues the copies of tile t into `stage` (the first kStages - 1 tiles);
//   step(t, stage, next, next_stage): multiplies tile t, staged in `stage`, and issues the copies of
//     tile `next` into next_stage when next < count: before, between or after its math, as suits
//     the kernel (every copy it issues joins one commit group).
// On return no copy targets shared memory any more.
template <int kStages, class Load, class Step>
__device__ __forceinline__ void cp_async_pipeline(int count, Load&& load, Step&& step) {
  static_assert(kStages >= 2, "a pipeline needs two stages");
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < count) load(s, s);
    cp_async_commit();  // empty groups keep the group count uniform
  }
  for (int t = 0; t < count; ++t) {
    cp_async_wait<kStages - 2>();  // tile t has landed (for this thread's copies)...
    __syncthreads();               // ...and for everyone's; stage (t - 1) % kStages is free again
    const int next = t + kStages - 1;
    step(t, t % kStages, next, next % kStages);
    cp_async_commit();
  }
  cp_async_wait<0>();
}

}  // namespace kernels
}  // namespace tilegemm
