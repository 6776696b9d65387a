// The dense analytic time model, shared by the dense kernel families (src/ops/families/simt_tiled,
// tf32x3_tiled, gemv): their candidates, and each config's time from waves of thread blocks and the last wave's fill, the
// per-schedule FMA rate (measured), bytes moved against DRAM and L2 bandwidth, and the split-K
// partial-tile traffic. Auto (src/ops/choose.hpp) ranks them. Pure host code: the CPU tests
// check its decisions on a table of shapes. docs/shapes.md describes the model and its calibration.
#pragma once
#include <string>
#include <vector>

#include "dense/config.hpp"
#include "dense/gemm_ops.hpp"

namespace tilegemm {
namespace detail {

struct ScoredConfig {
  GemmConfig config;
  double predicted_us = 0;
  std::string why;  // the model's terms, e.g. "144 blocks = 1.09 waves on 132 SMs, compute 81 us"
};

// The model's time for one config (can_implement must hold).
ScoredConfig score_config(const GemmProblem& p, const GemmConfig& c, const DeviceFacts& d);
// What Auto ranks a scored config by: its time, a split config's (split-K, stream-K) handicapped by
// a 1 % margin, so that a tie goes to the simpler launch (perf note #32).
double rank_cost(const GemmProblem& p, const ScoredConfig& s, const DeviceFacts& d);
// The tiled candidates of a problem, FFMA schedules or tensor-core ones (src/ops/families/simt_tiled,
// tf32x3_tiled): every compiled schedule of that math with each split count up to one K-tile per
// slice, whole or tail-only (a partial last wave after whole ones), each packing worth trying, and
// with edge columns on the GEMV kernel where the last tile column would be mostly empty. In the order
// Auto breaks ties by: schedules in kTiledSchedules order, fewer splits first.
std::vector<GemmConfig> tiled_candidates(const GemmProblem& p, const DeviceFacts& d, bool tensor_cores);
// The GEMV family's candidates for a problem with min(M, N) <= kGemvMaxS: its kernel (rows or
// columns) at the compiled bound, each split count up to one chunk per slice; gemv-rows:s16 also
// with X packed where it would be copied 4 bytes at a time.
std::vector<GemmConfig> gemv_candidates(const GemmProblem& p);
// The fastest predicted GEMV config (min(M, N) <= kGemvMaxS): the GEMV launch of a tiled config's
// edge columns (GemmConfig::edge).
ScoredConfig best_gemv_config(const GemmProblem& p, const DeviceFacts& d);

// Whether the model holds measured rates for tile shape `t` (every compiled schedule must; a run-time
// compiled one borrows the nearest calibrated shape's).
bool calibrated(const TileShape& t);

// A config's class, for logs and tests: "gemv", "split-k", "stream-k", "small-tile" (tiles under
// 128 x 128) or "big-tile".
std::string config_class(const GemmProblem& p, const GemmConfig& c, const DeviceFacts& d);

}  // namespace detail
}  // namespace tilegemm
