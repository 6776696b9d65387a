// The BSR families' time model: a few terms each kernel's time is made of, with coefficients fitted to
// measurements of every family's default config on an H100 (bench/fit_bsr_model.py over
// tests/cpu/data/bsr_measured_h100.txt: a grid over the dense batch J, block shape, sparsity and the
// transformer-sparse and seed-sparse presets, both orientations; perf note B12). Auto takes the family
// with the lowest estimate: over the 628 measured products its pick is 0.8 % slower than the fastest
// family (geomean; 613 within 10 %); the block-height and batch thresholds it replaced were 6.7 %
// slower (560 within 10 %).
#pragma once
#include <optional>

#include "ops/family.hpp"
#include "sparse/config.hpp"

namespace tilegemm {
namespace ops {

// The rows of a tiled family's calibration: per orientation and block-height class (8: R < 16, 16,
// 32, 64: R >= 64) the microseconds of a launch, of 1000 output tiles (prologue, epilogue), of 10^4
// K-steps (one tile's pass over one K-chunk of a block: loads, barrier), of 10^9 multiply-adds of
// the padded tiles, and of 100 K-steps of the longest block row when there are fewer tiles than two
// per SM (that row's tile is then the critical path).
struct TiledCalibration {
  OpKind kind;
  int height_class;
  double launch_us, per_ktiles_us, per_10k_steps_us, per_gmac_us, per_100_longest_steps_us;
};

// The model's throughput terms scale with 132 / the device's SM count (the H100 it was fitted on);
// sm_count() is that count, 132 where the facts hold none.
inline int sm_count(const DeviceFacts& d) { return d.sm_count > 0 ? d.sm_count : 132; }
inline double work_scale(const DeviceFacts& d) { return 132.0 / sm_count(d); }

// The block-height class of R x C blocks.
int height_class(int block_r);

// The estimate of tile `t` on `p` from its family's calibration rows (nullopt when none matches). The
// terms are counted for the padded tiles: ceil(J / tile j) column tiles of every block row, each
// covering ceil(R / tile i) row tiles; the work scales with work_scale(d).
std::optional<Estimate> tiled_estimate(const Problem& p, const detail::BsrTile& t, const TiledCalibration* rows,
                                       int row_count, const DeviceFacts& d);

}  // namespace ops
}  // namespace tilegemm
