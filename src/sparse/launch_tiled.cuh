// Launches one instantiation of the tiled BSR kernel (shared by the library's launcher and the
// schedule candidates the bench measures).
#pragma once
#include <cstdint>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_checks.hpp"
#include "sparse/kernels/03_tiled.cuh"
#include "sparse/launch.hpp"

namespace tilegemm {
namespace detail {

// Block rows (a prefix of row_order) whose thread blocks are launched first, all column tiles at
// once. A thread block's work is its row's block count; a resident slot's share of the whole run is
// W = nnzb * ctas_per_row / (SMs * blocks_per_sm). A thread block longer than W / 8 started in the
// last wave would stretch the run by up to that much (skewed rows: the longest row of a Zipf
// matrix can hold 40x the mean), so those rows go first. With uniform rows none qualifies unless
// the whole run is under 8 waves, where every row does and the order is simply row by row.
inline long long heavy_rows(const BsrProblem& prob, int blocks_per_sm, long long ctas_per_row) {
  if (prob.row_lengths == nullptr || prob.row_lengths->empty()) return 0;
  const int sms = current_sm_count();
  const double share = static_cast<double>(prob.nnzb) * static_cast<double>(ctas_per_row) /
                       (static_cast<double>(sms) * blocks_per_sm);
  const std::vector<int32_t>& len = *prob.row_lengths;  // non-increasing
  long long heavy = 0;
  while (heavy < static_cast<long long>(len.size()) && len[heavy] > share / 8) ++heavy;
  return heavy;
}

template <class S, bool kXwt, bool kVec>
void launch_bsr_tiled_kernel(const BsrProblem& prob, cudaStream_t stream) {
  const kernels::BsrParams& p = prob.p;
  constexpr int kSmem = S::template smem_bytes<kXwt>();
  auto kernel = kernels::bsr_tiled<S, kXwt, kVec>;
  static const bool configured = [&] {  // above 48 KB needs an opt-in, once per kernel
    TILEGEMM_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
    return true;
  }();
  (void)configured;
  static const int blocks_per_sm = [&] {
    int n = 0;
    TILEGEMM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, S::kThreads, kSmem));
    return n > 0 ? n : 1;
  }();
  const long long subtiles = (p.block_r + S::kTileI - 1) / S::kTileI;
  const long long j_tiles = (p.cols_j + S::kTileJ - 1) / S::kTileJ;
  const unsigned grid = static_cast<unsigned>(j_tiles * p.block_row_count * subtiles);
  kernels::BsrParams q = p;
  q.heavy_slots = static_cast<int>(heavy_rows(prob, blocks_per_sm, subtiles * j_tiles) * subtiles);
  kernel<<<grid, S::kThreads, kSmem, stream>>>(q);
  TILEGEMM_CHECK_LAUNCH();
}

}  // namespace detail
}  // namespace tilegemm
