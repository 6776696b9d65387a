// The launch of ladder level 8 (wgmma_launch.hpp) for any schedule: the TMA descriptors, the
// persistent grid, the kernel compiled ahead of time (wgmma_launch_bf16.cu, wgmma_launch_f16.cu) or
// at run time (NVRTC, the same template of the same header), and split-K's reduction.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <string>

#include "core/cuda_check.hpp"
#include "core/device_context.hpp"
#include "core/with_bool.hpp"
#include "core/kernel_launch.hpp"
#include "kernels/gemm/08_wgmma_tma.cuh"
#include "kernels/gemm/split_b_tf32.cuh"
#include "kernels/gemm/split_reduce_16bit.cuh"
#include "ops/families/wgmma/wgmma_launch.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace ops {

namespace {

// cuTensorMapEncodeTiled from the driver through the runtime (the library does not link libcuda).
// A process-wide function pointer, looked up once: not per-device state.
PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    TILEGEMM_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !p)
      throw Error(ErrorCode::Internal, "the CUDA driver has no cuTensorMapEncodeTiled (TMA needs CUDA 12 or later)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

// `batches` rows x cols row-major matrices of 16-bit or FP32 elements, ld elements apart, batch_stride
// apart (elements; ignored for one batch), in boxes of box_rows x one 128-byte line (64 or 32
// elements; 128-byte swizzle: the layout the kernel reads) of one matrix. Reads past the matrix
// return zeros. 3-D (cols, rows, batches) whatever the batch count, as the kernel loads.
CUtensorMap tensor_map(const void* base, DType t, int64_t rows, int64_t cols, int64_t ld, int box_rows,
                       int64_t batches = 1, int64_t batch_stride = 0) {
  CUtensorMap map;
  const int bytes = dtype_bytes(t);
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows),
                              static_cast<cuuint64_t>(batches)};
  // One batch: the matrix's own extent stands in for the unused stride (a multiple of 16 bytes).
  const uint64_t one_matrix = (static_cast<uint64_t>(rows) * ld * bytes + 15) / 16 * 16;
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(ld) * bytes,
                                 batches > 1 ? static_cast<cuuint64_t>(batch_stride) * bytes : one_matrix};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(128 / bytes), static_cast<cuuint32_t>(box_rows), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUtensorMapDataType type = t == DType::F32   ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                   : t == DType::F16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                     : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  auto encode = [&] {
    return encode_tiled()(&map, type, 3,
                          const_cast<void*>(base), dims, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                          CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  };
  CUresult r = encode();
  if (r == CUDA_ERROR_INVALID_CONTEXT) {
    // A thread on which the runtime has not made the device's context current yet (torch's autograd
    // worker, whose first CUDA call this may be): cudaFree(nullptr) makes it current.
    cudaFree(nullptr);
    r = encode();
  }
  if (r != CUDA_SUCCESS)
    throw Error(ErrorCode::Internal, "cuTensorMapEncodeTiled refused a " + std::to_string(batches) + " x " +
                                         std::to_string(rows) + " x " + std::to_string(cols) + " operand (ld " +
                                         std::to_string(ld) + ", batch stride " + std::to_string(batch_stride) +
                                         "): CUresult " + std::to_string(static_cast<int>(r)));
  return map;
}

template <class OutT>
void reduce_splits(const WgmmaLaunch& l, const kernels::WgmmaParams& p, cudaStream_t stream) {
  // 4 columns of C a thread (C^T's rows when the product was C^T).
  const int64_t quads = l.c_transposed ? l.n * ((l.m + 3) / 4) : l.m * ((l.n + 3) / 4);
  const unsigned blocks = detail::grid_stride_blocks(l.batch * quads, 256, 8, l.sm_count);
  // Overlapping the product (it lets dependents start as its blocks begin): the reduction's blocks
  // take the SMs the product leaves idle and those its blocks leave, and wait there for its end.
  detail::with_bool(l.c_transposed, [&](auto transposed) {
    detail::launch_kernel(kernels::split_reduce_16bit<OutT, transposed()>, dim3(blocks), dim3(256), 0, stream, true,
                          l.partial, p.splits, p.m, p.n, p.ld_partial, static_cast<OutT*>(l.c), l.ldc, l.alpha,
                          l.beta, p.batch, p.stride_c, l.epi);
  });
}

const char* b(bool v) { return v ? "true" : "false"; }

// 3xTF32: the guard's keys in B's parts, after the parts of every batch (wgmma_parts_bytes).
unsigned* b_keys(const WgmmaLaunch& l, WgmmaIn in) {
  return reinterpret_cast<unsigned*>(static_cast<char*>(l.b_parts) +
                                     wgmma_parts_plane_bytes(l.n, l.k, in, wgmma_operand_batches(l.batch, l.stride_b)));
}

// FP32 operands: `lines` lines (m or n) of an operand as stored (K-major, or MN-major: k lines of
// `lines`) into K-major `parts` (split_b_tf32): TF32's copy, or 3xTF32's TF32 parts of B with the
// guard's `keys`; `batches` such operands `stride` elements apart, their parts one after the other.
void convert_operand(const void* src, int64_t ld, bool mn_major, int64_t lines, int64_t k, int64_t batches,
                     int64_t stride, void* parts, unsigned* keys, WgmmaIn in, int sm_count, cudaStream_t stream) {
  const bool split = in == WgmmaIn::TF32x3;
  const int64_t key_count = wgmma_key_count(lines);
  if (split) TILEGEMM_CUDA_CHECK(cudaMemsetAsync(keys, 0xff, static_cast<size_t>(batches * key_count) * 4, stream));
  const int64_t tiles = batches * ((lines + 31) / 32) * ((k + 127) / 128);  // 32 lines x 4 k steps each
  const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(tiles, int64_t(sm_count) * 8));
  const auto* from = static_cast<const float*>(src);
  auto* to = static_cast<float*>(parts);
  const int n = static_cast<int>(lines), kk = static_cast<int>(k);
  detail::with_bool(mn_major, [&](auto mn) {
    const int b = static_cast<int>(batches), keys_apart = static_cast<int>(key_count);
    if (split) kernels::split_b_tf32<mn(), 2><<<blocks, 256, 0, stream>>>(from, ld, n, kk, to, keys, b, stride, keys_apart);
    else kernels::split_b_tf32<mn(), 1><<<blocks, 256, 0, stream>>>(from, ld, n, kk, to, nullptr, b, stride, keys_apart);
  });
  TILEGEMM_CHECK_LAUNCH();
}

}  // namespace

std::string wgmma_schedule_problem(const WgmmaSchedule& s, WgmmaIn in) {
  if (s.bn != 32 && s.bn != 64 && s.bn != 128 && s.bn != 192 && s.bn != 256)
    return "the tile's columns (" + std::to_string(s.bn) + ") must be 32, 64, 128, 192 or 256";
  if (s.bm != 64 && s.bm != 128 && s.bm != 192)
    return "the tile's rows (" + std::to_string(s.bm) + ") must be 64, 128 or 192";
  if (s.bm == 64 && (s.pingpong || in == WgmmaIn::TF32x3))
    return "64-row tiles (one consumer warpgroup) are cooperative (no pp) and run one product (not 3xTF32)";
  if (s.bm == 192 && (s.bn != 128 || s.pingpong || in == WgmmaIn::TF32x3))
    return "192-row tiles (three consumer warpgroups of 152 registers) take 128 columns, cooperative, one "
           "product (not 3xTF32)";
  if (in == WgmmaIn::TF32x3 && s.bn != 128)
    return "3xTF32 keeps a second set of accumulators: the tile has 128 columns";
  if (kernels::wgmma_fp32_in(in) && s.pingpong)
    return "FP32 operands run cooperative tiles (no pp): their A fragments and sums take the registers";
  if (s.cluster != 1 && s.cluster != 2) return "clusters (c" + std::to_string(s.cluster) + ") are of 1 or 2 blocks";
  if (s.pingpong && s.bn != 128)
    return "ping-pong (pp) takes 128 columns: each consumer warpgroup holds a whole tile's accumulators";
  if (s.stages < 2) return "stages (s" + std::to_string(s.stages) + ") must be 2 or more";
  if (wgmma_smem_bytes(s, in) > kWgmmaSmemLimit)
    return "s" + std::to_string(s.stages) + " takes " + std::to_string(wgmma_smem_bytes(s, in)) +
           " bytes of shared memory, more than the " + std::to_string(kWgmmaSmemLimit) + " a Hopper block has";
  return "";
}

detail::JitRequest wgmma_jit_request(const WgmmaLaunch& l) {
  const WgmmaSchedule& s = l.schedule;
  const std::string out = l.out == DType::F32   ? "float"
                          : l.out == DType::F16 ? "tilegemm::kernels::f16_t"
                                                : "tilegemm::kernels::bf16_t";
  static const char* const kInNames[] = {"BF16", "F16", "TF32", "TF32x3"};
  detail::JitRequest r;
  r.header = "kernels/gemm/08_wgmma_tma.cuh";
  r.name_expression = "&tilegemm::kernels::gemm_wgmma_tma<tilegemm::kernels::WgmmaIn::" +
                      std::string(kInNames[static_cast<int>(wgmma_in(l))]) + ", " + out + ", " +
                      std::to_string(s.bn) + ", " + std::to_string(s.stages) + ", " + b(wgmma_kernel_a_mn(l)) + ", " +
                      b(wgmma_kernel_b_mn(l)) + ", " + std::to_string(s.cluster) + ", " + b(s.pingpong) + ", " +
                      std::to_string(s.bm) + ">";
  return r;
}

void launch_wgmma(const WgmmaLaunch& l, cudaStream_t stream) {
  const WgmmaSchedule& sc = l.schedule;
  const WgmmaIn in = wgmma_in(l);
  const std::string why = wgmma_schedule_problem(sc, in);
  if (!why.empty()) throw Error(ErrorCode::Internal, "launch_wgmma: " + why);
  const int bk = kernels::wgmma_bk(in);
  const KSlices slices = k_slices(l.k, l.splits, bk);
  const bool sum_in_cluster = l.sum_in_cluster && slices.splits > 1;
  if (sum_in_cluster && (sc.cluster != 1 || sc.pingpong || !wgmma_sums_fit_stages(sc) ||
                         slices.splits > kWgmmaMaxClusterSlices))
    throw Error(ErrorCode::Internal, "launch_wgmma: this schedule cannot sum its k slices in a cluster");
  if (l.c_transposed && slices.splits < 2 && in != WgmmaIn::TF32)
    throw Error(ErrorCode::Internal, "launch_wgmma: C^T in one k slice is stored by the TF32 kernel only");
  const void* kernel = l.run_time              ? detail::jit_kernel(detail::current_device_context(), wgmma_jit_request(l))
                       : in == WgmmaIn::F16    ? compiled_wgmma_kernel_f16(l)
                       : in == WgmmaIn::TF32x3 ? compiled_wgmma_kernel_tf32x3(l)
                       : in == WgmmaIn::TF32   ? compiled_wgmma_kernel_tf32(l)
                                               : compiled_wgmma_kernel_bf16(l);
  const int smem = wgmma_smem_bytes(sc, in);
  detail::ensure_smem_opt_in(kernel, smem);
  // FP32 B converted first (wgmma_converts_b): TMA loads its K-major copy, lines of planes x k.
  const bool convert_b = wgmma_converts_b(in, l.b_mn_major);
  if (convert_b && !l.b_parts) throw Error(ErrorCode::Internal, "launch_wgmma: the FP32 B to convert needs b_parts");
  const int64_t parts_ld = wgmma_parts_ld(l.k, in);
  const int64_t batches_a = wgmma_operand_batches(l.batch, l.stride_a),
                batches_b = wgmma_operand_batches(l.batch, l.stride_b);
  if (convert_b)
    convert_operand(l.b, l.ldb, l.b_mn_major, l.n, l.k, batches_b, l.stride_b, l.b_parts,
                    in == WgmmaIn::TF32x3 ? b_keys(l, in) : nullptr, in, l.sm_count, stream);
  // K-major: boxes of a k step (bk) x the rows a block loads (all of A's tile, B's tile over the
  // cluster's blocks); MN-major: boxes of bk of m or n x bk of k. A converted B's batches lie one
  // after the other.
  const int b_rows = sc.bn / sc.cluster;
  CUtensorMap map_a = l.a_mn_major ? tensor_map(l.a, l.in, l.k, l.m, l.lda, bk, batches_a, l.stride_a)
                                    : tensor_map(l.a, l.in, l.m, l.k, l.lda, sc.bm, batches_a, l.stride_a);
  CUtensorMap map_b = convert_b      ? tensor_map(l.b_parts, l.in, l.n, parts_ld, parts_ld, b_rows, batches_b, l.n * parts_ld)
                      : l.b_mn_major ? tensor_map(l.b, l.in, l.k, l.n, l.ldb, bk, batches_b, l.stride_b)
                                     : tensor_map(l.b, l.in, l.n, l.k, l.ldb, b_rows, batches_b, l.stride_b);
  // Work units of a cluster (a block without clusters), and the grid: one cluster per unit up to
  // as many as the device holds at once; summed in a cluster, one block per unit.
  const int64_t rows = int64_t(sc.bm) * sc.cluster;
  const int threads = kernels::wgmma_threads(sc.bm);
  const int64_t units = l.batch * ((l.m + rows - 1) / rows) * ((l.n + sc.bn - 1) / sc.bn) * slices.splits;
  const int64_t resident =
      sc.cluster > 1 ? detail::resident_clusters(kernel, threads, smem, sc.cluster) : l.sm_count;
  const unsigned grid =
      static_cast<unsigned>(sum_in_cluster ? units : (units < resident ? units : resident) * sc.cluster);
  const int out_bytes = dtype_bytes(l.out);
  kernels::WgmmaParams p{};
  p.c = l.c;
  p.m = static_cast<int>(l.m);
  p.n = static_cast<int>(l.n);
  p.k = static_cast<int>(l.k);
  p.ldc = l.ldc;
  p.alpha = l.alpha;
  p.beta = l.beta;
  // Column pairs are one access when C's address, row pitch and batch stride keep them aligned.
  const int64_t c_step = l.batch > 1 ? l.stride_c : 0;
  p.pairs = l.ldc % 2 == 0 && c_step % 2 == 0 && reinterpret_cast<uintptr_t>(l.c) % (2 * out_bytes) == 0;
  p.rows16 = (l.ldc * out_bytes) % 16 == 0 && (c_step * out_bytes) % 16 == 0 &&
             reinterpret_cast<uintptr_t>(l.c) % 16 == 0;
  // C written over in one k slice: TMA stores (boxes of 64 rows x one 128-byte line, the kernel's
  // store_slice_tma; store_slice_transposed on C^T's tiles, C n x m, boxes of 32 rows on 32-column
  // tiles); else an unused map.
  const bool c_transposed = l.c_transposed && !sum_in_cluster && slices.splits == 1;
  p.tma_c = c_transposed ? wgmma_tma_stores_c_transposed(l.beta == 0.0f, p.rows16, l.m, l.out, slices.splits,
                                                         l.epi.plain())
                         : wgmma_tma_stores_c(l.beta == 0.0f, p.rows16, l.n, l.out, slices.splits, sc.bn);
  CUtensorMap map_c{};
  if (p.tma_c)
    map_c = c_transposed ? tensor_map(l.c, l.out, l.n, l.m, l.ldc, std::min(64, sc.bn), l.batch, l.stride_c)
                         : tensor_map(l.c, l.out, l.m, l.n, l.ldc, 64, l.batch, l.stride_c);
  p.splits = slices.splits;
  p.kt_per_split = slices.steps_per_split;
  p.partial = l.partial;
  p.ld_partial = wgmma_partial_ld(l.n);
  p.sum_in_cluster = sum_in_cluster;
  p.c_transposed = l.c_transposed;
  p.a = static_cast<const float*>(l.a);
  p.b = static_cast<const float*>(l.b);
  p.lda = l.lda;
  p.ldb = l.ldb;
  p.b_keys = in == WgmmaIn::TF32x3 ? b_keys(l, in) : nullptr;
  // Split-K through workspace: the reduction applies the epilogue (on C, whichever way the product ran).
  p.epi = slices.splits > 1 && !sum_in_cluster ? kernels::FusedEpilogue{nullptr, kernels::kBiasNone,
                                                                          kernels::kActNone, false}
                                               : l.epi;
  p.batch = static_cast<int>(l.batch);
  p.a_batched = batches_a > 1;
  p.b_batched = batches_b > 1;
  p.stride_c = l.stride_c;
  p.stride_a = l.stride_a;
  p.stride_b = l.stride_b;
  p.key_stride = wgmma_key_count(l.n);
  void* args[] = {&map_a, &map_b, &map_c, &p};
  if (sc.cluster > 1 || sum_in_cluster)
    detail::launch_kernel_in_clusters(kernel, dim3(grid), dim3(threads), smem, stream,
                                      sum_in_cluster ? slices.splits : sc.cluster, args);
  else
    detail::launch_kernel(kernel, dim3(grid), dim3(threads), smem, stream, false, args);
  if (slices.splits > 1 && !sum_in_cluster) {
    if (l.out == DType::F32) reduce_splits<float>(l, p, stream);
    else if (l.out == DType::F16) reduce_splits<kernels::f16_t>(l, p, stream);
    else reduce_splits<kernels::bf16_t>(l, p, stream);
  }
}

}  // namespace ops
}  // namespace tilegemm
