// The launch of ladder level 8 (kernels/gemm/08_wgmma_tma.cuh) on a canonical row-major product:
// the TMA descriptors of A and B, the persistent grid, the kernel for the dtypes, tile and operand
// orientations (compiled ahead of time, or at run time with NVRTC); and the packing of operands TMA
// cannot address.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "jit/jit.hpp"
#include "ops/k_slices.hpp"
#include "tilegemm/types.hpp"

namespace tilegemm {
namespace ops {

// A level 8 schedule: 128-row tiles, 64-wide k steps, and these fields.
struct WgmmaSchedule {
  int bn;         // the tile's columns: 128 or 256 (the wgmma widths hopper.cuh issues)
  int cluster;    // blocks per cluster sharing B's tile: 1 or 2
  bool pingpong;  // consumer warpgroups take turns on whole tiles (128 columns: 128 accumulators each)
  int stages;     // pipeline stages of (128 + bn) x 64 16-bit elements: 48 KB (bn 256) or 32 KB (bn 128)
  constexpr bool operator==(const WgmmaSchedule& o) const {
    return bn == o.bn && cluster == o.cluster && pingpong == o.pingpong && stages == o.stages;
  }
};
// The schedules compiled ahead of time (launch_compiled in wgmma_launch.cuh instantiates exactly
// these, from this table): cooperative 128 x 256 alone and in clusters of 2, cooperative 128 x 128,
// and ping-pong 128 x 128 alone and in clusters of 2. Any other valid schedule compiles at run time.
inline constexpr WgmmaSchedule kWgmmaSchedules[] = {
    {256, 1, false, 4}, {256, 2, false, 4}, {128, 1, false, 4}, {128, 1, true, 6}, {128, 2, true, 6}};
constexpr bool wgmma_compiled(const WgmmaSchedule& s) {
  for (const WgmmaSchedule& c : kWgmmaSchedules)
    if (c == s) return true;
  return false;
}
// Dynamic shared memory of a schedule's kernel: WgmmaSmem (the stages, 32 KB of staged C rows, the
// barriers) and 1024 bytes to align it. wgmma_launch.cuh checks it against the kernel's sizeof.
constexpr int wgmma_smem_bytes(const WgmmaSchedule& s) {
  return s.stages * (128 + s.bn) * 64 * 2 + 2 * 64 * 16 * 16 + s.stages * 16 + 1024;
}
// Split-K summed inside a cluster (WgmmaLaunch::sum_in_cluster) leaves a tile's FP32 sums in the
// stages, rows of bn + 4 floats (kernels::kSumsPitch): 66 KB (128 columns: 3 stages or more) or
// 130 KB (256 columns: 3 or more).
constexpr bool wgmma_sums_fit_stages(const WgmmaSchedule& s) {
  return s.stages * (128 + s.bn) * 64 * 2 >= 128 * (s.bn + 4) * 4;
}
// The most k slices summed inside a cluster: the portable cluster size.
inline constexpr int kWgmmaMaxClusterSlices = 8;
// Hopper's shared memory per block with the opt-in (227 KB).
inline constexpr int kWgmmaSmemLimit = 232448;
// "" when the kernel template runs `s`, else why not (naming the field).
std::string wgmma_schedule_problem(const WgmmaSchedule& s);

struct WgmmaLaunch {
  const void* a = nullptr;  // m x k row-major (a_mn_major: k x m), lda elements apart
  const void* b = nullptr;  // n x k row-major, B^T of the product (b_mn_major: k x n), ldb elements apart
  void* c = nullptr;        // m x n, row-major
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f, beta = 0.0f;  // beta == 0: C is not read
  DType in = DType::BF16;           // A and B: BF16 or F16
  DType out = DType::BF16;          // C: `in` or F32
  WgmmaSchedule schedule = kWgmmaSchedules[0];  // valid (wgmma_schedule_problem)
  bool run_time = false;  // the kernel compiled at run time (NVRTC): any valid schedule, or a compiled one's twin
  int sm_count = 1;                 // the persistent grid's size bound
  bool a_mn_major = false, b_mn_major = false;
  int splits = 1;            // k slices per tile (split-K); > 1 needs `partial` or sum_in_cluster
  float* partial = nullptr;  // wgmma_partial_bytes(m, n, k, splits) of workspace
  // The slices of a tile run as one cluster and sum through distributed shared memory (splits up to
  // kWgmmaMaxClusterSlices; cluster 1, no ping-pong, wgmma_sums_fit_stages): one launch, no partial.
  bool sum_in_cluster = false;
};

// The FP32 partial sums of split-K: a slice of m rows, ld_partial apart (a multiple of 4: the kernel
// stores them as 16-byte row pieces), per k slice.
inline int64_t wgmma_partial_ld(int64_t n) { return (n + 3) / 4 * 4; }
inline size_t wgmma_partial_bytes(int64_t m, int64_t n, int64_t k, int splits) {
  const KSlices s = k_slices(k, splits, 64);
  return s.splits > 1 ? static_cast<size_t>(s.splits) * m * wgmma_partial_ld(n) * 4 : 0;
}

// The leading dimension (elements) of a packed operand with lines of `inner` elements: a multiple of 8
// (16 bytes).
inline int64_t packed_ld(int64_t inner) { return (inner + 7) / 8 * 8; }
// Copies `lines` lines of `inner` 16-bit elements, `ld` apart, to `dst` (16-byte aligned) with
// packed_ld(inner) apart (kernels/gemm/pack_16bit.cuh), on `stream`.
void pack_16bit(const void* src, int64_t ld, int64_t lines, int64_t inner, void* dst, int sm_count,
                cudaStream_t stream);

// The run-time compiled kernel of l's schedule, dtypes and operand orientations.
detail::JitRequest wgmma_jit_request(const WgmmaLaunch& l);
// The compiled kernel of l's schedule (one of kWgmmaSchedules), per input type.
const void* compiled_wgmma_kernel_bf16(const WgmmaLaunch& l);
const void* compiled_wgmma_kernel_f16(const WgmmaLaunch& l);
// Enqueues the product on `stream` (l.in BF16 or F16). Throws Error(Internal) when the driver refuses a
// TMA descriptor, Error(NvrtcError) when a run-time kernel does not compile.
void launch_wgmma(const WgmmaLaunch& l, cudaStream_t stream);

}  // namespace ops
}  // namespace tilegemm
