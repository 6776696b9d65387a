// Kernel::Auto: enumerates the configs that can run a problem (every compiled tiled schedule with
// each split count, whole or tail-only, and the GEMV kernel when one output dimension is <= 16) and
// scores each with an analytic time model: waves of thread blocks and the last wave's fill, the
// per-schedule FMA rate (measured), bytes moved against DRAM and L2 bandwidth, and the split-K
// partial-tile traffic. The fastest predicted config wins. Pure host code: the CPU tests check its
// decisions on a table of shapes. docs/shapes.md describes the model and its calibration.
#pragma once
#include <functional>
#include <optional>
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

struct ConfigChoice {
  ScoredConfig best;
  std::vector<ScoredConfig> ranked;  // every legal candidate, fastest first (best is ranked[0])
};

// The model's time for one config (can_implement must hold).
ScoredConfig score_config(const GemmProblem& p, const GemmConfig& c, const DeviceFacts& d);
// All legal candidates, ranked. p.k > 0.
ConfigChoice choose_config(const GemmProblem& p, const DeviceFacts& d);
// The fastest predicted GEMV config (min(M, N) <= kGemvMaxS): Auto's GEMV candidates, and the GEMV
// launch of a tiled config's edge columns (GemmConfig::edge).
ScoredConfig best_gemv_config(const GemmProblem& p, const DeviceFacts& d);
// Kernel::Auto's config, remembered per problem and device (the hot path of every Auto call): the
// tuning database's entry when `tuned` returns one (tuned_gemm_config returns only configs that can run
// the problem), else the model's best;
// none when no config can run the problem (A or B too large for the tiled kernels, no GEMV shape).
// `tuned` is asked only when the problem is not remembered yet.
using TunedLookup = std::function<std::optional<GemmConfig>(const GemmProblem&)>;
std::optional<GemmConfig> cached_choice(const GemmProblem& p, const DeviceFacts& d, const TunedLookup& tuned = {});
// Forgets every remembered choice (after the tuning database changed).
void clear_choice_cache();

// A config's class, for logs and tests: "gemv", "split-k", "stream-k", "small-tile" (tiles under
// 128 x 128) or "big-tile".
std::string config_class(const GemmProblem& p, const GemmConfig& c, const DeviceFacts& d);

}  // namespace detail
}  // namespace tilegemm
