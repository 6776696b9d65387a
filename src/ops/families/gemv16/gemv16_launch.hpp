// The launch of the 16-bit skinny/decode kernel (kernels/gemm/gemv_16bit.cuh).
#pragma once
#include <cuda_runtime_api.h>

#include "kernels/gemm/gemv_16bit_params.hpp"
#include "tilegemm/types.hpp"

namespace tilegemm {
namespace ops {

// The most rows of the short operand the kernel takes: beyond 4 its CUDA-core FMAs and conversions,
// not the memory, set the time (16 x 4096 x 4096: 116 us against cuBLAS's 17 us, H100, 2026-11-28).
inline constexpr int kGemv16MaxRows = 4;

// Enqueues the product on `stream`: `in` BF16 or F16 (X and W), `out` the input type or F32.
void launch_gemv16(const kernels::Gemv16Params& p, DType in, DType out, int sm_count, cudaStream_t stream);

}  // namespace ops
}  // namespace tilegemm
