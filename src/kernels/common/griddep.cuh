// Programmatic dependent launch (sm_90+): a kernel launched with the programmatic stream
// serialization attribute (core/kernel_launch.hpp) may start while the kernel before it in the stream
// still runs, and must wait for that kernel before it touches what it writes. tilegemm launches a
// product that way only after its own prologue (kernels/gemm/prologue.cuh: the split-K counters
// zeroed, operands packed), so that the product's launch and start-up overlap the prologue instead
// of following it (a launch gap of ~2 us on products of 30-60 us); and level 8's split-K reduction
// after the product (kernels/gemm/split_reduce_16bit.cuh), which the product lets start at once.
//
// Rule for every kernel that may be launched after the prologue: each thread block calls
// griddep_wait() before it reads or writes what the prologue writes, and before it ends (so that
// the product's completion implies the prologue's, for whatever the stream runs next). On a launch
// without the attribute, and below sm_90, both calls do nothing.
//
// Device code only, includes nothing: compiles with nvcc and with NVRTC.
#pragma once

namespace tilegemm {
namespace kernels {

// Waits until the previous kernel in the stream has completed and its writes are visible.
__device__ __forceinline__ void griddep_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

// Lets the next kernel in the stream, if launched with the attribute, start now (it still waits
// with griddep_wait before reading what this kernel writes).
__device__ __forceinline__ void griddep_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

}  // namespace kernels
}  // namespace tilegemm
