// Asynchronous global -> shared copies (cp.async, sm_80+), shared by the dense and sparse kernels.
// A source size smaller than the copy size zero-fills the rest, which is how out-of-range elements
// become zeros without a branch around the copy.
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
__device__ __forceinline__ void cp_async_16(void* smem, const float* gmem, int valid_floats) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(smem)),
               "l"(gmem), "r"(valid_floats * 4));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

}  // namespace kernels
}  // namespace tilegemm
