// The launch plan the tiled BSR kernels (03, 04) share: block rows longest first, the heaviest
// launched first with all their column tiles, split-K of rows that would be the critical path.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_context.hpp"
#include "core/workspace.hpp"
#include "sparse/launch.hpp"

namespace tilegemm {
namespace detail {

namespace {

// A resident slot's share of the whole run, in stored blocks walked: W = nnzb * ctas_per_row /
// (SMs * blocks_per_sm).
double slot_share(const BsrProblem& prob, int sm_count, int blocks_per_sm, long long ctas_per_row) {
  return static_cast<double>(prob.nnzb) * static_cast<double>(ctas_per_row) /
         (static_cast<double>(sm_count) * blocks_per_sm);
}

// Block rows (a prefix of row_order) whose thread blocks are launched first, all column tiles at
// once. A thread block's work is its row's block count. A thread block longer than W / 8 started in
// the last wave would stretch the run by up to that much (skewed rows: the longest row of a Zipf
// matrix can hold 40x the mean), so those rows go first. With uniform rows none qualifies unless
// the whole run is under 8 waves, where every row does and the order is simply row by row.
long long heavy_rows(const BsrProblem& prob, double share) {
  if (prob.row_lengths == nullptr) return 0;
  const std::vector<int32_t>& len = *prob.row_lengths;  // non-increasing
  long long heavy = 0;
  while (heavy < static_cast<long long>(len.size()) && len[heavy] > share / 8) ++heavy;
  return heavy;
}

// Split-K for rows that even launched first would be the critical path: longer than W / 2 and at
// least two pieces long. Pieces hold max(kMinPiece, W / 4) blocks (a row's last piece may be
// shorter); at most kernels::kMaxSplitSlots slots are split (the longest ones).
struct SplitPlan {
  long long rows = 0;
  int piece_blocks = 1;
  long long pieces = 0;  // over all split rows
};
SplitPlan split_rows(const BsrProblem& prob, double share, long long subtiles) {
  constexpr int kMinPiece = 4;
  SplitPlan plan;
  if (prob.row_lengths == nullptr) return plan;
  const std::vector<int32_t>& len = *prob.row_lengths;  // non-increasing
  const double piece = share / 4 > kMinPiece ? share / 4 : kMinPiece;
  plan.piece_blocks = static_cast<int>(piece);
  const long long max_rows = kernels::kMaxSplitSlots / subtiles;
  while (plan.rows < static_cast<long long>(len.size()) && plan.rows < max_rows &&
         len[plan.rows] > share / 2 && len[plan.rows] >= 2 * plan.piece_blocks) {
    plan.pieces += (len[plan.rows] + plan.piece_blocks - 1) / plan.piece_blocks;
    ++plan.rows;
  }
  return plan;
}

}  // namespace

BsrTiledPlan plan_bsr_tiled(const BsrProblem& prob, int sm_count, int blocks_per_sm, int tile_i, int tile_j) {
  const kernels::BsrParams& p = prob.p;
  const long long subtiles = (p.block_r + tile_i - 1) / tile_i;
  const long long j_tiles = (p.cols_j + tile_j - 1) / tile_j;
  const double share = slot_share(prob, sm_count, blocks_per_sm, subtiles * j_tiles);
  const SplitPlan split = split_rows(prob, share, subtiles);
  BsrTiledPlan plan;
  plan.heavy_slots = static_cast<int>(heavy_rows(prob, share) * subtiles);
  const size_t partial_bytes = static_cast<size_t>(split.pieces * subtiles * j_tiles) * tile_i *
                               tile_j * sizeof(float);
  constexpr size_t kMaxPartialBytes = size_t(256) << 20;  // a few MB on the skewed transformer shapes
  if (split.rows > 0 && partial_bytes <= kMaxPartialBytes) {
    plan.split_slots = static_cast<int>(split.rows * subtiles);
    plan.split_piece_blocks = split.piece_blocks;
    plan.split_ctas = static_cast<int>(split.pieces * subtiles * j_tiles);  // partial tiles = thread blocks
    if (plan.heavy_slots < plan.split_slots) plan.heavy_slots = plan.split_slots;
    // Counters first (zeroed for the launch; the kernel does not rely on them staying zero), then
    // the partial tiles. One counter per split tile: its pieces sum in one level (kernels/common/split_k.cuh).
    const size_t counters = static_cast<size_t>(plan.split_slots) * static_cast<size_t>(j_tiles);
    plan.counter_bytes = (counters * sizeof(unsigned) + 255) / 256 * 256;
    plan.partial_bytes = partial_bytes;
  }
  // Split slots launch split_ctas thread blocks instead of j_tiles each.
  plan.grid = static_cast<unsigned>(j_tiles * (p.block_row_count * subtiles - plan.split_slots) + plan.split_ctas);
  return plan;
}

BsrTiledPlan plan_bsr_tiled(const BsrProblem& prob, const BsrTiledKernel& k) {
  // Above 48 KB needs an opt-in; both it and the occupancy are per device (the device context).
  ensure_smem_opt_in(k.fn, k.smem_bytes);
  return plan_bsr_tiled(prob, current_device_context().sm_count, resident_blocks_per_sm(k.fn, k.threads, k.smem_bytes),
                        k.tile_i, k.tile_j);
}

void launch_bsr_tiled_at(const BsrProblem& prob, const BsrTiledKernel& k, cudaStream_t stream) {
  const BsrTiledPlan plan = plan_bsr_tiled(prob, k);
  kernels::BsrParams q = prob.p;
  q.heavy_slots = plan.heavy_slots;
  q.split_slots = plan.split_slots;
  q.split_piece_blocks = plan.split_piece_blocks;
  q.split_ctas = plan.split_ctas;
  std::optional<Workspace> workspace;  // freed (stream-ordered) after the launch below
  if (plan.partial_bytes > 0) {
    workspace.emplace(stream, plan.workspace_bytes(), plan.counter_bytes);
    q.split_counters = reinterpret_cast<unsigned*>(workspace->get());
    q.split_partials = reinterpret_cast<float*>(workspace->get() + plan.counter_bytes);
  }
  void* args[] = {&q};
  TILEGEMM_CUDA_CHECK(cudaLaunchKernel(k.fn, dim3(plan.grid), dim3(k.threads), args, k.smem_bytes, stream));
}

}  // namespace detail
}  // namespace tilegemm
