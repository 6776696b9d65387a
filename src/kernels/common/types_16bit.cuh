// The 16-bit element types and the TMA descriptor parameter of the tensor-core kernels, for nvcc and
// for NVRTC. Under nvcc they are CUDA's own (__nv_bfloat16, __half, CUtensorMap), so the launch code
// passes its types unchanged. NVRTC finds no toolkit header without the toolkit's include directory,
// which a machine with only the driver and the runtime libraries lacks; there they are storage types
// of the same size and alignment. The kernels only move their bits: every conversion is PTX
// (out_convert.cuh), the same instructions CUDA's intrinsics emit.
#pragma once
#if defined(__CUDACC_RTC__)
namespace tilegemm {
namespace kernels {
struct __align__(2) bf16_t {
  unsigned short bits;
};
struct __align__(2) f16_t {
  unsigned short bits;
};
// CUtensorMap's size and alignment (cuda.h): 128 opaque bytes, 128-byte aligned.
struct __align__(128) TensorMap {
  unsigned long long opaque[16];
};
}  // namespace kernels
}  // namespace tilegemm
#else
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
namespace tilegemm {
namespace kernels {
using bf16_t = __nv_bfloat16;
using f16_t = __half;
using TensorMap = CUtensorMap;
static_assert(sizeof(bf16_t) == 2 && sizeof(f16_t) == 2 && sizeof(TensorMap) == 128 && alignof(TensorMap) == 128,
              "NVRTC's stand-ins (above) must match CUDA's types");
}  // namespace kernels
}  // namespace tilegemm
#endif
