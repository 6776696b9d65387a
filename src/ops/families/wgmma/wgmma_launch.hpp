// The launch of ladder level 8 (kernels/gemm/08_wgmma_tma.cuh) on a canonical row-major product:
// the TMA descriptors of A and B, the persistent grid, the kernel for the dtypes, tile and operand
// orientations (compiled ahead of time, or at run time with NVRTC); and the packing of operands TMA
// cannot address.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "jit/jit.hpp"
#include "kernels/common/fused_epilogue.hpp"
#include "kernels/gemm/wgmma_in.hpp"
#include "ops/k_slices.hpp"
#include "tilegemm/types.hpp"

namespace tilegemm {
namespace ops {

using kernels::WgmmaIn;

// A level 8 schedule: k steps of one 128-byte line (64 16-bit or 32 FP32 elements), and these fields.
struct WgmmaSchedule {
  int bn;         // the tile's columns: 32, 64, 128, 192 or 256 (the wgmma widths hopper.cuh issues)
  int cluster;    // blocks per cluster sharing B's tile: 1 or 2
  bool pingpong;  // consumer warpgroups take turns on whole tiles (128 columns: 128 accumulators each)
  int stages;     // pipeline stages of (bm + bn) 128-byte lines: 48 KB (128 x 256), 40 KB (128 x 192), 32 KB
                  // (128 x 128), 24 KB (128 x 64)
  // The tile's rows: 128 (two consumer warpgroups), 192 (three; 128 columns, cooperative) or 64 (one;
  // cooperative, one product).
  int bm = 128;
  constexpr bool operator==(const WgmmaSchedule& o) const {
    return bn == o.bn && cluster == o.cluster && pingpong == o.pingpong && stages == o.stages && bm == o.bm;
  }
};
// The schedules compiled ahead of time (launch_compiled in wgmma_launch.cuh instantiates exactly
// these, from this table): cooperative 128 x 256 alone and in clusters of 2, cooperative 128 x 192
// (tile counts between the other two widths' fill the SMs: 1024 x 2304 x 768 on 96 tiles instead of
// 72 or 144), 128 x 128 and 192 x 128 (6272 x 512 x 4608 on 132 tiles against 98 of 128 x 256),
// 128 x 64 in 8 stages (1024 x 768 x 3072 on 96 tiles, unsplit, against 48 of 128 x 128; 8 stages
// 15.0 us, 6 stages 16.2-17.0, 4 stages 19.6, H200, 2026-11-29), 64 x 32 in 12 stages and 64 x 64 in
// 13 (products of few columns, or few rows as C^T: 128 blocks of 64 W lines where 64 of 128 x 64
// streamed W slower, 32 x 4096 x 14336 36.5 us against 38.5-38.8; 64 x 4096 x 14336 summed in
// clusters 36.6 against 38.0, H200, 2026-11-29), 64 x 128 in 8 (17-64 rows as stored against a long
// n: one wave of tiles, 8 stages of W lines in flight a block), and ping-pong 128 x 128 alone and in
// clusters of 2. Any other valid schedule compiles at run time.
inline constexpr WgmmaSchedule kWgmmaSchedules[] = {{256, 1, false, 4},     {256, 2, false, 4},    {192, 1, false, 4},
                                                    {128, 1, false, 4},     {128, 1, false, 4, 192},
                                                    {64, 1, false, 8},      {32, 1, false, 12, 64},
                                                    {64, 1, false, 13, 64}, {128, 1, false, 8, 64},
                                                    {128, 1, true, 6},      {128, 2, true, 6}};
// FP32 operands at FP32 accuracy (3xTF32) keep two accumulator sets: 128 columns, cooperative,
// alone or in clusters of 2 (wgmma_launch_tf32x3.cu).
inline constexpr WgmmaSchedule kWgmmaTf32x3Schedules[] = {{128, 1, false, 4}, {128, 2, false, 4}};
// FP32 operands as TF32 (one product): cooperative 128 x 256, 128 x 192 and 128 x 128, alone and in
// clusters of 2, 192 x 128, 128 x 64 in 8 stages, 64 x 32 in 12 and 64 x 128 in 8 (wgmma_launch_tf32.cu).
inline constexpr WgmmaSchedule kWgmmaTf32Schedules[] = {{256, 1, false, 4},      {256, 2, false, 4}, {192, 1, false, 4},
                                                        {192, 2, false, 4},      {128, 1, false, 4}, {128, 2, false, 4},
                                                        {128, 1, false, 4, 192}, {64, 1, false, 8},  {32, 1, false, 12, 64},
                                                        {128, 1, false, 8, 64}};
constexpr bool wgmma_compiled(const WgmmaSchedule& s, WgmmaIn in = WgmmaIn::BF16) {
  auto in_table = [&](const auto& table) {
    for (const WgmmaSchedule& c : table)
      if (c == s) return true;
    return false;
  };
  if (in == WgmmaIn::TF32x3) return in_table(kWgmmaTf32x3Schedules);
  if (in == WgmmaIn::TF32) return in_table(kWgmmaTf32Schedules);
  return in_table(kWgmmaSchedules);
}
using kernels::wgmma_b_planes;
// Dynamic shared memory of a schedule's kernel: WgmmaSmem (the stages, 16 KB of staged C rows per
// consumer warpgroup, the barriers) and 1024 bytes to align it. wgmma_launch.cuh checks it against the
// kernel's sizeof.
constexpr int wgmma_smem_bytes(const WgmmaSchedule& s, WgmmaIn in = WgmmaIn::BF16) {
  return s.stages * (s.bm + wgmma_b_planes(in) * s.bn) * 128 + kernels::wgmma_consumers(s.bm) * 64 * 16 * 16 +
         s.stages * 16 + 1024;
}
// Split-K summed inside a cluster (WgmmaLaunch::sum_in_cluster) leaves a tile's FP32 sums in the
// stages, rows of bn + 4 floats (kernels::kSumsPitch): 66 KB (128 columns: 3 stages or more), 98 KB
// (192: 3 or more) or 130 KB (256: 3 or more).
constexpr bool wgmma_sums_fit_stages(const WgmmaSchedule& s) {
  return s.stages * (s.bm + s.bn) * 64 * 2 >= s.bm * (s.bn + 4) * 4;
}
// The most k slices summed inside a cluster: the portable cluster size.
inline constexpr int kWgmmaMaxClusterSlices = 8;
// Hopper's shared memory per block with the opt-in (227 KB).
inline constexpr int kWgmmaSmemLimit = 232448;
// "" when the kernel template runs `s` on operands `in`, else why not (naming the field).
std::string wgmma_schedule_problem(const WgmmaSchedule& s, WgmmaIn in = WgmmaIn::BF16);

struct WgmmaLaunch {
  const void* a = nullptr;  // m x k row-major (a_mn_major: k x m), lda elements apart
  const void* b = nullptr;  // n x k row-major, B^T of the product (b_mn_major: k x n), ldb elements apart
  void* c = nullptr;        // m x n, row-major
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t m = 0, n = 0, k = 0;
  // Strided batches: `batch` products, batch b's A, B, C `b * stride_*` elements after batch 0's; a
  // stride of 0 for A or B: every batch reads the same matrix. batch x the tiles < 2^31.
  int64_t batch = 1;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  // The fused epilogue after alpha and beta, on this (canonical) C (ops::fused_epilogue): bias per row
  // or column (F32 or C's type, every batch the same vector), then the activation.
  kernels::FusedEpilogue epi{};
  float alpha = 1.0f, beta = 0.0f;  // beta == 0: C is not read
  DType in = DType::BF16;           // A and B: BF16, F16 or F32
  bool tf32_split = true;           // F32 operands: 3xTF32 (FP32 accuracy), else one TF32 product
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
  // The product computed is C^T (m x n, a, b and the operands' fields above are C^T = B^T A^T's): the
  // kernel's store (one k slice) or the k slices' sum (the reduction through workspace, or the
  // cluster's) writes C^T's (i, j) to C's (j, i) at c + j * ldc + i; `epi` stays on C (its bias per
  // row or column of C).
  bool c_transposed = false;
  // B converted first (wgmma_converts_b): wgmma_parts_bytes(n, k, in, batches) of workspace (batches:
  // 1 for a shared operand, else batch) for the K-major copy (TF32) or B's TF32 parts and the guard's
  // keys (3xTF32), made by the launch (kernels/gemm/split_b_tf32.cuh).
  void* b_parts = nullptr;
};

// The kernel's operand kind for a launch's input type.
inline WgmmaIn wgmma_in(DType in, bool tf32_split) {
  if (in == DType::F32) return tf32_split ? WgmmaIn::TF32x3 : WgmmaIn::TF32;
  return in == DType::F16 ? WgmmaIn::F16 : WgmmaIn::BF16;
}
inline WgmmaIn wgmma_in(const WgmmaLaunch& l) { return wgmma_in(l.in, l.tf32_split); }

// FP32 B converted before the product into a K-major copy that TMA loads (split_b_tf32, any
// alignment): 3xTF32's always (its TF32 parts), TF32's where MN-major (TF32 wgmma reads K-major tiles
// only; an MN-major A reaches it through registers). Operands that TMA cannot address are packed
// (pack_16bit, by the family).
inline bool wgmma_converts_b(WgmmaIn in, bool b_mn_major) {
  return in == WgmmaIn::TF32x3 || (in == WgmmaIn::TF32 && b_mn_major);
}
// A converted operand: per batch `lines` lines (m or n) of planes x 32 x ceil(k / 32) floats, the
// batches one after the other, then for 3xTF32's B the guard's keys (one per 128 columns, per batch),
// each part rounded to 256 bytes.
inline int64_t wgmma_parts_ld(int64_t k, WgmmaIn in) { return wgmma_b_planes(in) * 32 * ((k + 31) / 32); }
inline int64_t wgmma_key_count(int64_t lines) { return (lines + 127) / 128; }
// The planes of every batch (the keys follow them).
inline size_t wgmma_parts_plane_bytes(int64_t lines, int64_t k, WgmmaIn in, int64_t batches = 1) {
  return (static_cast<size_t>(batches * lines * wgmma_parts_ld(k, in)) * 4 + 255) / 256 * 256;
}
inline size_t wgmma_parts_bytes(int64_t lines, int64_t k, WgmmaIn in, int64_t batches = 1) {
  if (!kernels::wgmma_fp32_in(in)) return 0;
  return wgmma_parts_plane_bytes(lines, k, in, batches) +
         (in == WgmmaIn::TF32x3 ? (static_cast<size_t>(batches * wgmma_key_count(lines)) * 4 + 255) / 256 * 256 : 0);
}
// The matrices of an operand a launch reads: one where every batch shares it (stride 0).
inline int64_t wgmma_operand_batches(int64_t batch, int64_t stride) { return stride != 0 ? batch : 1; }
// The operand orientations a launch's kernel is instantiated for: TF32 reads B's tile K-major (the
// launch converts an MN-major B first; an MN-major A goes through registers).
inline bool wgmma_kernel_a_mn(const WgmmaLaunch& l) { return l.a_mn_major; }
inline bool wgmma_kernel_b_mn(const WgmmaLaunch& l) { return wgmma_in(l) != WgmmaIn::TF32 && l.b_mn_major; }

// The FP32 partial sums of split-K: a slice of m rows, ld_partial apart (a multiple of 4: the kernel
// stores them as 16-byte row pieces), per k slice of `bk`-element steps and per batch.
inline int64_t wgmma_partial_ld(int64_t n) { return (n + 3) / 4 * 4; }
inline size_t wgmma_partial_bytes(int64_t m, int64_t n, int64_t k, int splits, int bk = 64, int64_t batch = 1) {
  const KSlices s = k_slices(k, splits, bk);
  return s.splits > 1 ? static_cast<size_t>(batch * s.splits) * m * wgmma_partial_ld(n) * 4 : 0;
}

// Whether C leaves the kernel through TMA stores (08_wgmma_tma.cuh, store_slice_tma): C written over
// (beta == 0) by one k slice, its address, row pitch and batch stride multiples of 16 bytes (c_rows16),
// and its rows a whole number of 16-byte chunks: TMA stores write whole 16-byte chunks at the edge of
// the tensor (n = 250 bf16 wrote columns 250..255, H200, 2026-11-29), so a ragged row end would
// reach past C's columns; and the tile's rows at least the stores' 128-byte box line
// (kernels::wgmma_tma_stores_fit).
inline bool wgmma_tma_stores_c(bool beta_zero, bool c_rows16, int64_t n, DType out, int splits, int bn) {
  return beta_zero && c_rows16 && (n * dtype_bytes(out)) % 16 == 0 && splits == 1 &&
         kernels::wgmma_tma_stores_fit(bn, dtype_bytes(out));
}
// The same for C^T's tiles (c_transposed, one k slice: store_slice_transposed stages C's rows of 64
// FP32 sums): FP32 C of `c_cols` columns written over, without a fused epilogue (the other path
// applies it on C).
inline bool wgmma_tma_stores_c_transposed(bool beta_zero, bool c_rows16, int64_t c_cols, DType out, int splits,
                                          bool plain_epilogue) {
  return out == DType::F32 && plain_epilogue && wgmma_tma_stores_c(beta_zero, c_rows16, c_cols, out, splits, 64);
}

// The leading dimension (elements) of a packed operand with lines of `inner` elements: a multiple of 8
// (16 bytes).
inline int64_t packed_ld(int64_t inner) { return (inner + 7) / 8 * 8; }
// Copies `lines` lines of `inner` 16-bit elements, `ld` apart, to `dst` (16-byte aligned) with
// packed_ld(inner) apart (kernels/gemm/pack_16bit.cuh), on `stream`; `batches` such matrices, the
// sources `src_stride` elements apart, the copies one after the other (lines x packed_ld each).
void pack_16bit(const void* src, int64_t ld, int64_t lines, int64_t inner, void* dst, int sm_count,
                cudaStream_t stream, int64_t batches = 1, int64_t src_stride = 0);

// The run-time compiled kernel of l's schedule, dtypes and operand orientations.
detail::JitRequest wgmma_jit_request(const WgmmaLaunch& l);
// The compiled kernel of l's schedule (one of kWgmmaSchedules), per input type.
const void* compiled_wgmma_kernel_bf16(const WgmmaLaunch& l);
const void* compiled_wgmma_kernel_f16(const WgmmaLaunch& l);
const void* compiled_wgmma_kernel_tf32x3(const WgmmaLaunch& l);
const void* compiled_wgmma_kernel_tf32(const WgmmaLaunch& l);
// Enqueues the product on `stream` (l.in BF16, F16 or F32). Throws Error(Internal) when the driver refuses a
// TMA descriptor, Error(NvrtcError) when a run-time kernel does not compile.
void launch_wgmma(const WgmmaLaunch& l, cudaStream_t stream);

}  // namespace ops
}  // namespace tilegemm
