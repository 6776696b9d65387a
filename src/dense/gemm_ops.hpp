// The dense GEMM operation model: what a config needs to know about a problem, whether it can run it
// (and why not), the launch geometry and scratch memory it needs, and running it. can_implement and
// the plans are pure host code (CPU-tested); run_config launches.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/device_facts.hpp"
#include "dense/config.hpp"
#include "dense/launch.hpp"

namespace tilegemm {
namespace detail {

struct DeviceContext;

// The facts of the canonical row-major problem (launch.hpp, CanonicalGemm) a config's legality and
// cost depend on; no pointers.
struct GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  bool vec_a = false, vec_b = false;  // 16-byte copies allowed along the operand's contiguous dimension
  bool shift_a = false, shift_b = false;  // CanonicalGemm::shift_a: unaligned rows, all at one offset
  bool shifts_match = false;              // CanonicalGemm::shifts_match: A's and B's the same offset
  bool beta_zero = true;              // C is not read
  bool tiled_offsets_fit = true;      // CanonicalGemm::tiled_offsets_fit: A and B small enough for the tiled kernels
  bool ffma_only = false;             // GemmOptions::math = FfmaOnly: the chooser keeps to FFMA configs
};
GemmProblem describe(const CanonicalGemm& g);

// Ladder level 7 as a config: its compiled schedule (kLevel7Tile) over whole tiles, with the
// operands that are not 16-byte aligned packed first.
GemmConfig level7_config(const GemmProblem& p);


// The GEMV view of a product with one output dimension <= kGemvMaxS: the short side s (the smaller
// of M and N; M on a tie) and the long side l; the long operand W is contiguous along k (rows
// kernel) or along l (columns kernel).
struct GemvView {
  bool small_m = true;  // s = M (W is B), else s = N (W is A)
  bool rows = false;    // W contiguous along k
  int s_count = 0, l_count = 0;
  bool vec_w = false;
  bool shift_w = false;    // W's rows unaligned, all at one offset (GemmProblem::shift_a)
  bool vec_x = false;      // X 16-byte aligned along its contiguous dimension
  bool x_along_k = false;  // X contiguous along k (its rows are rows of k), else along s
  bool x_at_w_shift = false;  // W's and X's rows unaligned at one offset (GemmProblem::shifts_match)
};
GemvView gemv_view(const GemmProblem& p);
// How config c's GEMV kernel reaches the operands of a problem with view v (config.hpp).
GemvForm gemv_form(const GemvView& v, const GemmConfig& c);

// Launch geometry. Slices that would be empty are dropped (splits is the effective count).
struct SplitPlan {
  long long tiles = 0;     // output tiles (blocks along l for GEMV)
  long long dp_tiles = 0;  // tiled: tiles computed whole
  int splits = 1;
  int slice_k = 0;         // tiled: K-tiles per slice; GEMV: K elements per slice
  int group = 1;           // split_k_reduce's first-level group
  long long units = 0;     // thread blocks launched
  size_t counter_bytes = 0, partial_bytes = 0;
};
// Thread blocks of a tiled schedule that run at once on the device (its design occupancy).
inline long long tiled_slots(const TileShape& t, const DeviceFacts& d) {
  return static_cast<long long>(d.sm_count) * t.blocks;
}
SplitPlan plan_split(const GemmProblem& p, const GemmConfig& c, const DeviceFacts& d);
// Whether a packed config's product is launched to overlap its packing prologue (programmatic
// dependent launch): tiled grids and gemv-rows:s16 grids that fill every block slot. A grid of fewer
// blocks, launched while the packing runs, lands where it leaves room, two to an SM, and runs on
// half the SMs (1000^3 ld + 7 on 64x128 tiles, 128 blocks: 84 us packed and overlapped, 54.5 as-is;
// perf notes #52, #57).
bool product_overlaps_packing(const GemmProblem& p, const GemmConfig& c, const SplitPlan& s, const DeviceFacts& d);

// The packed copies of a config with pack_a / pack_b: op(A) as K rows of M (A^T, m-contiguous), op(B)
// as K rows of N, each row length rounded up to 4 floats and each buffer to 256 bytes. The tiled kernel
// then runs the packed problem: those operands copied as-is with 16-byte copies. gemv-rows:s16 packs
// its short operand X in the orientation it is stored: as K rows of s, or, where X runs along k
// (x_rows_of_k: A not transposed, or B transposed), as s rows of K; those behind W rows that are
// not 16-byte aligned as four copies, each one float further past a 16-byte boundary
// (gemv_rows_staged.cuh reads the one its block's stages find aligned).
struct PackPlan {
  int lda = 0, ldb = 0;          // the packed leading dimensions (0: not packed)
  size_t a_bytes = 0, b_bytes = 0;
  bool x_rows_of_k = false;
  int x_copies = 1;
  long long x_shift_step = 0;    // floats from one copy to the next (a multiple of 4, plus 1); 0: one copy
  size_t bytes() const { return a_bytes + b_bytes; }
};
PackPlan plan_pack(const GemmProblem& p, const GemmConfig& c);
GemmProblem packed_problem(const GemmProblem& p, const GemmConfig& c);
// The canonical problem's copy flags as the tiled kernel sees them after packing (which variant it
// runs; run_config also points it at the packed buffers).
CanonicalGemm packed_flags(const CanonicalGemm& g, const GemmConfig& c);
// A config with `edge` splits the (packed) problem at the last whole tile column: the tiled part takes
// N rounded down to BN, the GEMV kernel the remaining N mod BN columns (1..16). edge_columns is that
// remainder (0 without `edge`); main_part and edge_part are the two problems.
int edge_columns(const GemmProblem& p, const GemmConfig& c);
GemmProblem main_part(const GemmProblem& p, const GemmConfig& c);
GemmProblem edge_part(const GemmProblem& p, const GemmConfig& c);
// What a tiled config's tiled launch computes: the packed problem less the edge columns (its split
// plan is plan_split(tiled_part(p, c), c, d)).
GemmProblem tiled_part(const GemmProblem& p, const GemmConfig& c);

// The most scratch memory packing may take (both operands): what the workspace pool keeps reserved
// between calls (core/workspace.hpp), so that repeated calls reuse it instead of allocating.
inline constexpr size_t kMaxPackBytes = size_t(256) << 20;

// Empty when `c` can run `p`, else why not (one sentence naming the field). k must be > 0.
std::string can_implement(const GemmProblem& p, const GemmConfig& c);
// Scratch memory (split-K partials and counters, packed operands) the config needs on the problem
// (with `edge`, the edge's GEMV config is best_gemv_config's: dense/choose.hpp).
size_t workspace_bytes(const GemmProblem& p, const GemmConfig& c, const DeviceFacts& d);

// Runs C = alpha * op(A) op(B) + beta * C with `c` (can_implement checked by the caller; k > 0 and
// alpha != 0). Scratch memory comes from the device's workspace pool (core/workspace.hpp).
void run_config(const CanonicalGemm& g, const GemmConfig& c, const DeviceFacts& d, cudaStream_t stream);

}  // namespace detail
}  // namespace tilegemm
