// Launches one instantiation of the tiled BSR kernel (shared by the library's launcher and the
// schedule candidates the bench measures).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/cuda_check.hpp"
#include "sparse/kernels/03_tiled.cuh"
#include "sparse/launch.hpp"

namespace tilegemm {
namespace detail {

// The tiled kernel's work order for one launch (03_tiled.cuh). A thread block's work is its row's
// block count; a resident slot's share of the whole run is
// W = nnzb * ctas_per_row / (SMs * blocks_per_sm).
// - heavy rows (a prefix of row_order): longer than W / 8, so a thread block of theirs started in
//   the last wave would stretch the run by up to that much (skewed rows: the longest row of a Zipf
//   matrix can hold 40x the mean). They are launched first, all column tiles at once. With uniform
//   rows none qualifies unless the whole run is under 8 waves, where every row does and the order
//   is simply row by row.
// - split rows (a prefix of the heavy rows): longer than W / 4 and than 4x the mean row. Even
//   started first, one thread block walking the whole row would be the critical path, so the row
//   is cut into pieces of at most max(4, W / 8) blocks, each piece a thread block writing a
//   partial tile; bsr_tiled_split_reduce adds them up. Uniform rows are never split.
struct TiledWorkOrder {
  long long heavy_rows = 0, split_rows = 0;
  std::vector<int> items;  // 3 per piece: {slot, first block, end block} (relative to the row)
  std::vector<int> first;  // per split slot: its first piece; one extra entry at the end
};

inline TiledWorkOrder plan_work_order(const BsrProblem& prob, int blocks_per_sm, long long subtiles,
                                      long long j_tiles) {
  TiledWorkOrder w;
  if (prob.row_lengths == nullptr || prob.row_lengths->empty()) return w;
  int device = 0, sms = 0;
  TILEGEMM_CUDA_CHECK(cudaGetDevice(&device));
  TILEGEMM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::vector<int32_t>& len = *prob.row_lengths;  // non-increasing
  const double share = static_cast<double>(prob.nnzb) * static_cast<double>(subtiles * j_tiles) /
                       (static_cast<double>(sms) * blocks_per_sm);
  const double mean = static_cast<double>(prob.nnzb) / static_cast<double>(len.size());
  const long long rows = static_cast<long long>(len.size());
  while (w.heavy_rows < rows && len[w.heavy_rows] > share / 8) ++w.heavy_rows;
  while (w.split_rows < w.heavy_rows && len[w.split_rows] > share / 4 &&
         len[w.split_rows] > 4 * mean)
    ++w.split_rows;
  const int piece = static_cast<int>(std::max(4.0, std::ceil(share / 8)));
  for (long long r = 0; r < w.split_rows; ++r)
    for (long long st = 0; st < subtiles; ++st) {
      w.first.push_back(static_cast<int>(w.items.size() / 3));
      for (int b = 0; b < len[r]; b += piece) {
        w.items.push_back(static_cast<int>(r * subtiles + st));
        w.items.push_back(b);
        w.items.push_back(std::min(b + piece, static_cast<int>(len[r])));
      }
    }
  w.first.push_back(static_cast<int>(w.items.size() / 3));
  return w;
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
  const TiledWorkOrder order = plan_work_order(prob, blocks_per_sm, subtiles, j_tiles);
  kernels::BsrParams q = p;
  q.heavy_slots = static_cast<int>(order.heavy_rows * subtiles);
  q.split_slots = static_cast<int>(order.split_rows * subtiles);
  q.split_items = static_cast<int>(order.items.size() / 3);
  const long long whole_slots = (p.block_row_count - order.split_rows) * subtiles;
  const unsigned grid = static_cast<unsigned>((q.split_items + whole_slots) * j_tiles);

  // Split rows: the piece list and the partial tiles live in one stream-ordered allocation, freed
  // after the reduction (the library keeps no workspace between calls).
  void* scratch = nullptr;
  if (q.split_items > 0) {
    const size_t index_bytes = (order.items.size() + order.first.size()) * sizeof(int);
    const size_t partial_offset = (index_bytes + 255) / 256 * 256;
    const size_t partial_bytes = static_cast<size_t>(q.split_items) * j_tiles * S::kTileI *
                                 S::kTileJ * sizeof(float);
    TILEGEMM_CUDA_CHECK(cudaMallocAsync(&scratch, partial_offset + partial_bytes, stream));
    int* idx = static_cast<int*>(scratch);
    std::vector<int> host(order.items);
    host.insert(host.end(), order.first.begin(), order.first.end());
    TILEGEMM_CUDA_CHECK(
        cudaMemcpyAsync(idx, host.data(), index_bytes, cudaMemcpyHostToDevice, stream));
    q.split_item = idx;
    q.split_first = idx + order.items.size();
    q.split_partials = reinterpret_cast<float*>(static_cast<char*>(scratch) + partial_offset);
    // `host` is pageable: cudaMemcpyAsync has copied it out before returning.
  }
  kernel<<<grid, S::kThreads, kSmem, stream>>>(q);
  TILEGEMM_CHECK_LAUNCH();
  if (q.split_items > 0) {
    kernels::bsr_tiled_split_reduce<S, kXwt>
        <<<static_cast<unsigned>(q.split_slots * j_tiles), 256, 0, stream>>>(q);
    TILEGEMM_CHECK_LAUNCH();
    TILEGEMM_CUDA_CHECK(cudaFreeAsync(scratch, stream));
  }
}

}  // namespace detail
}  // namespace tilegemm
