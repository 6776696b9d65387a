// The launch of the 16-bit skinny tensor-core kernel (kernels/gemm/skinny_16bit.cuh).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/gemm/skinny_16bit_params.hpp"
#include "tilegemm/types.hpp"

namespace tilegemm {
namespace ops {

// The most rows of the short operand the family takes (two n8 tiles of the mma). Beyond, X's tiles
// crowd shared memory (two blocks per SM) and level 8 with split-K is faster (32 x 4096 x 4096: 20 us
// against 23 us, 64 x 4096 x 4096: 21 against 29 us, H200, 2026-11-28).
inline constexpr int kSkinny16MaxRows = 16;

// The X rows the kernel instantiation for `rows` (at most kSkinny16MaxRows) holds sums for: 8 or 16.
constexpr int skinny16_row_slots(int64_t rows) { return rows <= 8 ? 8 : 16; }

// The most k slices of a tile, which run as one thread-block cluster. Clusters of 8 (the portable
// size) were slower than 2 or 4 slices on every measured shape (2048 x 16 x 4096: 16.1 against
// 12.6 us, 1 x 4096 x 4096: 18.2 against 12.9 us, H200, 2026-11-28).
inline constexpr int kSkinny16MaxSplits = 4;

// Enqueues the product on `stream`: `in` BF16 or F16 (X and W), `out` the input type or F32; W along
// k (w_k == 1) or along its lines.
void launch_skinny16(const kernels::Skinny16Params& p, DType in, DType out, cudaStream_t stream);

}  // namespace ops
}  // namespace tilegemm
