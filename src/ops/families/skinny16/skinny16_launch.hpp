// The launch of the 16-bit skinny tensor-core kernel (kernels/gemm/skinny_16bit.cuh).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/gemm/skinny_16bit_params.hpp"
#include "tilegemm/types.hpp"

namespace tilegemm {
namespace ops {

// The most rows of the short operand the family takes (four n8 tiles of the mma). At 64 rows the X
// tiles' shared-memory traffic equals W's and level 8 with split-K is faster (64 x 4096 x 4096: 29 us
// against 21 us, H200, 2026-11-28).
inline constexpr int kSkinny16MaxRows = 32;

// The X rows the kernel instantiation for `rows` (at most kSkinny16MaxRows) holds sums for: 8, 16 or 32.
constexpr int skinny16_row_slots(int64_t rows) { return rows <= 8 ? 8 : rows <= 16 ? 16 : 32; }

// The most k slices of a tile: they run as one thread-block cluster (8: the portable cluster size).
inline constexpr int kSkinny16MaxSplits = 8;

// Enqueues the product on `stream`: `in` BF16 or F16 (X and W), `out` the input type or F32; W along
// k (w_k == 1) or along its lines.
void launch_skinny16(const kernels::Skinny16Params& p, DType in, DType out, cudaStream_t stream);

}  // namespace ops
}  // namespace tilegemm
