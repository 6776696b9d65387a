// The launch of ladder level 8 (kernels/gemm/08_wgmma_tma.cuh) on a canonical row-major product:
// the TMA descriptors of A and B, the persistent grid, the instantiation for the dtypes, tile and
// operand orientations; and the packing of operands TMA cannot address.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "ops/k_slices.hpp"
#include "tilegemm/types.hpp"

namespace tilegemm {
namespace ops {

// The schedules level 8 is compiled for (128-row tiles, 64-wide k steps; launch_tile in
// wgmma_launch.cuh instantiates exactly these, from this table): cooperative 128 x 256 alone and in
// clusters of 2, cooperative 128 x 128, and ping-pong 128 x 128 alone and in clusters of 2.
struct WgmmaSchedule {
  int bn;         // the tile's columns
  int cluster;    // blocks per cluster sharing B's tile
  bool pingpong;  // consumer warpgroups take turns on whole tiles
  int stages;     // pipeline stages: 4 of 48 KB (128 x 256) or 32 KB (128 x 128), 6 of 32 KB (ping-pong)
};
inline constexpr WgmmaSchedule kWgmmaSchedules[] = {
    {256, 1, false, 4}, {256, 2, false, 4}, {128, 1, false, 4}, {128, 1, true, 6}, {128, 2, true, 6}};

struct WgmmaLaunch {
  const void* a = nullptr;  // m x k row-major (a_mn_major: k x m), lda elements apart
  const void* b = nullptr;  // n x k row-major, B^T of the product (b_mn_major: k x n), ldb elements apart
  void* c = nullptr;        // m x n, row-major
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f, beta = 0.0f;  // beta == 0: C is not read
  DType in = DType::BF16;           // A and B: BF16 or F16
  DType out = DType::BF16;          // C: `in` or F32
  WgmmaSchedule schedule = kWgmmaSchedules[0];  // one of kWgmmaSchedules
  int sm_count = 1;                 // the persistent grid's size bound
  bool a_mn_major = false, b_mn_major = false;
  int splits = 1;            // k slices per tile (split-K); > 1 needs `partial`
  float* partial = nullptr;  // wgmma_partial_bytes(m, n, k, splits) of workspace
};

// The FP32 partial sums of split-K: a slice of m rows, ld_partial apart (even: pairs of sums are one
// 8-byte store), per k slice.
inline int64_t wgmma_partial_ld(int64_t n) { return (n + 1) / 2 * 2; }
inline size_t wgmma_partial_bytes(int64_t m, int64_t n, int64_t k, int splits) {
  const KSlices s = k_slices(k, splits, 64);
  return s.splits > 1 ? static_cast<size_t>(s.splits) * m * wgmma_partial_ld(n) * 4 : 0;
}

// Enqueue the product on `stream` (l.in BF16, F16). Throw Error(Internal) when the driver refuses a
// TMA descriptor.
// The leading dimension (elements) of a packed operand with lines of `inner` elements: a multiple of 8
// (16 bytes).
inline int64_t packed_ld(int64_t inner) { return (inner + 7) / 8 * 8; }
// Copies `lines` lines of `inner` 16-bit elements, `ld` apart, to `dst` (16-byte aligned) with
// packed_ld(inner) apart (kernels/gemm/pack_16bit.cuh), on `stream`.
void pack_16bit(const void* src, int64_t ld, int64_t lines, int64_t inner, void* dst, int sm_count,
                cudaStream_t stream);

void launch_wgmma_bf16(const WgmmaLaunch& l, cudaStream_t stream);
void launch_wgmma_f16(const WgmmaLaunch& l, cudaStream_t stream);
inline void launch_wgmma(const WgmmaLaunch& l, cudaStream_t stream) {
  if (l.in == DType::F16) launch_wgmma_f16(l, stream);
  else launch_wgmma_bf16(l, stream);
}

}  // namespace ops
}  // namespace tilegemm
