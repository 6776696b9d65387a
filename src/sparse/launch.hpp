// Launchers of the BSR kernels (one .cu per kernel file) and the problem description they take
// (built from the operation model's Problem by ops::bsr_problem). Host code; the public entry points
// are in bsr_products.cpp, the families in src/ops/families/bsr_*.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "jit/jit.hpp"
#include "sparse/config.hpp"
#include "kernels/bsr/params.hpp"
#include "tilegemm/bsr_gpu.hpp"

namespace tilegemm {
namespace detail {

struct BsrProblem {
  kernels::BsrParams p;
  bool xwt = true;  // orientation (kernels/bsr/params.hpp)
  const std::vector<int32_t>* row_lengths = nullptr;  // block counts in p.row_order's order
  long long nnzb = 0;
  // 16-byte copies of both operands' rows: W rows when C % 4 == 0, X rows when x and ldx allow.
  bool vec() const { return p.w_vec4 && p.x_vec4; }
};

// Why `c` cannot run `prob` ("" when it can): a tiled schedule whose copies do not split for this
// product's orientation and copy width.
std::string bsr_can_implement(const BsrProblem& prob, const BsrConfig& c);
// Runs `c` (bsr_can_implement accepted it): a tiled schedule through its ahead-of-time kernel where
// kBsrSchedules holds it for this product and c.jit is false, else compiled at run time.
void launch_bsr_config(const BsrProblem& prob, const BsrConfig& c, cudaStream_t stream);
// Device memory `c` takes from the workspace pool on `prob` (split-K partial tiles and counters of a
// tiled schedule; 0 for the reduction and small-m kernels). A tiled schedule's kernel is looked up
// (or compiled) for its occupancy, which decides the split.
size_t bsr_workspace_bytes(const BsrProblem& prob, const BsrConfig& c);

void launch_bsr_reduction(const BsrProblem& prob, cudaStream_t stream);
void launch_bsr_small_m(const BsrProblem& prob, cudaStream_t stream);

// A tiled schedule's kernel for one product: the function and what its launch needs.
struct BsrTiledKernel {
  const void* fn = nullptr;
  int threads = 0, smem_bytes = 0;
  int tile_i = 0, tile_j = 0;
};
// The ahead-of-time kernel of kBsrSchedules[index] for the product: fn == nullptr where the entry is
// not compiled for it (launch_tiled_table.cpp; the kernels in one generated file per entry).
BsrTiledKernel compiled_bsr_kernel(int index, bool xwt, bool vec);

// The NVRTC request of a tiled schedule's kernel (launch_config.cpp).
JitRequest bsr_tiled_jit_request(BsrFamily f, const BsrTile& t, bool xwt, bool vec);
// The kernel a tiled config runs: the ahead-of-time one unless c.jit or not compiled for the product,
// else compiled at run time (or loaded from the cache).
BsrTiledKernel bsr_tiled_kernel(const BsrProblem& prob, const BsrConfig& c);

// What the launch plan every tiled kernel shares decides (longest rows first, split-K of rows that
// would be the critical path): the kernel's extra parameters, the grid and the scratch memory.
// Pure host arithmetic over the problem's row lengths and the kernel's residency.
struct BsrTiledPlan {
  int heavy_slots = 0, split_slots = 0, split_piece_blocks = 1, split_ctas = 0;
  unsigned grid = 0;
  size_t counter_bytes = 0, partial_bytes = 0;  // partial_bytes == 0: no split
  size_t workspace_bytes() const { return counter_bytes + partial_bytes; }
};
BsrTiledPlan plan_bsr_tiled(const BsrProblem& prob, int sm_count, int blocks_per_sm, int tile_i, int tile_j);
// The plan for `k` on the current device: its residency (after the shared-memory opt-in above 48 KB,
// which residency needs) and the device's SM count.
BsrTiledPlan plan_bsr_tiled(const BsrProblem& prob, const BsrTiledKernel& k);
// Plans and launches `k` (launch_tiled_plan.cpp).
void launch_bsr_tiled_at(const BsrProblem& prob, const BsrTiledKernel& k, cudaStream_t stream);

}  // namespace detail
}  // namespace tilegemm
