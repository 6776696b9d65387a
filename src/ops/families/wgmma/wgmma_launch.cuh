// The launch template of ladder level 8 (wgmma_launch.hpp), instantiated per input type in
// wgmma_launch_bf16.cu and wgmma_launch_f16.cu so the two compile in parallel.
#pragma once
#include <cuda.h>
#include <cudaTypedefs.h>

#include <iterator>
#include <string>
#include <utility>

#include "core/cuda_check.hpp"
#include "core/device_context.hpp"
#include "core/kernel_launch.hpp"
#include "core/with_bool.hpp"
#include "kernels/gemm/08_wgmma_tma.cuh"
#include "kernels/gemm/split_reduce_16bit.cuh"
#include "ops/families/wgmma/wgmma_launch.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace ops {

namespace wgmma_launch_detail {

// cuTensorMapEncodeTiled from the driver through the runtime (the library does not link libcuda).
// A process-wide function pointer, looked up once: not per-device state.
inline PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
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

// A rows x cols row-major 16-bit matrix, ld elements apart, in boxes of box_rows x 64 (128-byte rows,
// 128-byte swizzle: the layout the kernel's shared-memory descriptors read). Reads past the matrix
// return zeros.
inline CUtensorMap tensor_map(const void* base, DType t, int64_t rows, int64_t cols, int64_t ld, int box_rows) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * 2};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(kernels::kWgmmaBK), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  auto encode = [&] {
    return encode_tiled()(&map, t == DType::F16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2,
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
    throw Error(ErrorCode::Internal, "cuTensorMapEncodeTiled refused a " + std::to_string(rows) + " x " +
                                         std::to_string(cols) + " operand (ld " + std::to_string(ld) +
                                         "): CUresult " + std::to_string(static_cast<int>(r)));
  return map;
}

template <bool kF16, class OutT, int BN, int kStages, bool kAMn, bool kBMn, int kCluster, bool kPingPong>
void launch(const WgmmaLaunch& l, cudaStream_t stream) {
  auto kernel = kernels::gemm_wgmma_tma<kF16, OutT, BN, kStages, kAMn, kBMn, kCluster, kPingPong>;
  constexpr int smem = kernels::wgmma_smem_bytes<BN, kStages>();
  detail::ensure_smem_opt_in(kernel, smem);
  // K-major: boxes of 64 k x the rows a block loads (all of A's tile, B's tile over the cluster's
  // blocks); MN-major: boxes of 64 of m or n x 64 k.
  const CUtensorMap map_a =
      kAMn ? tensor_map(l.a, l.in, l.k, l.m, l.lda, 64) : tensor_map(l.a, l.in, l.m, l.k, l.lda, kernels::kWgmmaBM);
  const CUtensorMap map_b =
      kBMn ? tensor_map(l.b, l.in, l.k, l.n, l.ldb, 64) : tensor_map(l.b, l.in, l.n, l.k, l.ldb, BN / kCluster);
  const KSlices slices = k_slices(l.k, l.splits, 64);
  // Work units of a cluster (a block without clusters), and the grid: one cluster per unit up to
  // as many as the device holds at once.
  constexpr int64_t kRows = int64_t(kernels::kWgmmaBM) * kCluster;
  const int64_t units = ((l.m + kRows - 1) / kRows) * ((l.n + BN - 1) / BN) * slices.splits;
  const int64_t resident =
      kCluster > 1 ? detail::resident_clusters(kernel, kernels::kWgmmaThreads, smem, kCluster) : l.sm_count;
  const unsigned grid = static_cast<unsigned>((units < resident ? units : resident) * kCluster);
  // Column pairs are one access when C's address and row pitch keep them aligned.
  const bool pairs = l.ldc % 2 == 0 && reinterpret_cast<uintptr_t>(l.c) % (2 * sizeof(OutT)) == 0;
  kernels::WgmmaParams p{};
  p.c = l.c;
  p.m = static_cast<int>(l.m);
  p.n = static_cast<int>(l.n);
  p.k = static_cast<int>(l.k);
  p.ldc = l.ldc;
  p.alpha = l.alpha;
  p.beta = l.beta;
  p.pairs = pairs;
  p.rows16 = (l.ldc * sizeof(OutT)) % 16 == 0 && reinterpret_cast<uintptr_t>(l.c) % 16 == 0;
  p.splits = slices.splits;
  p.kt_per_split = slices.steps_per_split;
  p.partial = l.partial;
  p.ld_partial = wgmma_partial_ld(l.n);
  if (kCluster > 1) {
    detail::launch_kernel_in_clusters(kernel, grid, kernels::kWgmmaThreads, smem, stream, kCluster, map_a, map_b, p);
  } else {
    kernel<<<grid, kernels::kWgmmaThreads, smem, stream>>>(map_a, map_b, p);
    TILEGEMM_CHECK_LAUNCH();
  }
  if (slices.splits > 1) {
    kernels::split_reduce_16bit<OutT><<<detail::grid_stride_blocks(l.m * l.n, 256, 8, l.sm_count), 256, 0, stream>>>(
        l.partial, slices.splits, p.m, p.n, p.ld_partial, static_cast<OutT*>(l.c), l.ldc, l.alpha, l.beta);
    TILEGEMM_CHECK_LAUNCH();
  }
}

template <bool kF16, class OutT, int BN, int kStages, int kCluster, bool kPingPong>
void launch_layout(const WgmmaLaunch& l, cudaStream_t stream) {
  detail::with_bool(l.a_mn_major, [&](auto a_mn) {
    detail::with_bool(l.b_mn_major, [&](auto b_mn) {
      launch<kF16, OutT, BN, kStages, a_mn(), b_mn(), kCluster, kPingPong>(l, stream);
    });
  });
}
// The compiled schedules: one instantiation per entry of kWgmmaSchedules (wgmma_launch.hpp), the
// one equal to l.schedule launched.
template <bool kF16, class OutT, size_t... kIndex>
void launch_schedule(const WgmmaLaunch& l, cudaStream_t stream, std::index_sequence<kIndex...>) {
  const WgmmaSchedule& sc = l.schedule;
  auto same = [&](const WgmmaSchedule& t) {
    return t.bn == sc.bn && t.cluster == sc.cluster && t.pingpong == sc.pingpong && t.stages == sc.stages;
  };
  const bool launched =
      ((same(kWgmmaSchedules[kIndex]) &&
        (launch_layout<kF16, OutT, kWgmmaSchedules[kIndex].bn, kWgmmaSchedules[kIndex].stages,
                       kWgmmaSchedules[kIndex].cluster, kWgmmaSchedules[kIndex].pingpong>(l, stream),
         true)) ||
       ...);
  if (!launched)
    throw Error(ErrorCode::Internal, "level 8 has no compiled schedule 128x" + std::to_string(sc.bn) + "x64:s" +
                                         std::to_string(sc.stages) + (sc.pingpong ? ":pp" : "") + ":c" +
                                         std::to_string(sc.cluster));
}
template <bool kF16, class OutT>
void launch_tile(const WgmmaLaunch& l, cudaStream_t stream) {
  launch_schedule<kF16, OutT>(l, stream, std::make_index_sequence<std::size(kWgmmaSchedules)>());
}

template <bool kF16, class In>
void launch_in(const WgmmaLaunch& l, cudaStream_t stream) {
  if (l.out == DType::F32) launch_tile<kF16, float>(l, stream);
  else launch_tile<kF16, In>(l, stream);
}

}  // namespace wgmma_launch_detail
}  // namespace ops
}  // namespace tilegemm
