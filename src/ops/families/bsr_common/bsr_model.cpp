#include "ops/families/bsr_common/bsr_model.hpp"

#include <cstdio>

namespace tilegemm {
namespace ops {

int height_class(int block_r) { return block_r >= 64 ? 64 : block_r >= 32 ? 32 : block_r >= 16 ? 16 : 8; }

namespace {
double ceil_div(double a, double b) { return static_cast<double>(static_cast<long long>((a + b - 1) / b)); }
}  // namespace

std::optional<Estimate> tiled_estimate(const Problem& p, const detail::BsrTile& t, const TiledCalibration* rows,
                                       int row_count, const DeviceFacts& d) {
  const TiledCalibration* cal = nullptr;
  for (int i = 0; i < row_count; ++i)
    if (rows[i].kind == p.kind && rows[i].height_class == height_class(p.bsr.block_r)) cal = &rows[i];
  if (cal == nullptr) return std::nullopt;
  const double j = static_cast<double>(bsr_dense_batch(p));
  const double col_tiles = ceil_div(j, t.tj), row_tiles = ceil_div(p.bsr.block_r, t.ti);
  const double nnzb = static_cast<double>(p.bsr.nnzb);
  const double tiles = col_tiles * static_cast<double>(p.bsr.block_rows) * row_tiles;
  const double steps = col_tiles * nnzb * row_tiles * ceil_div(p.bsr.block_c, t.kc);
  const double macs = col_tiles * t.tj * nnzb * row_tiles * t.ti * p.bsr.block_c;
  const double longest_steps =
      tiles < 2.0 * sm_count(d) ? static_cast<double>(p.bsr.longest_row) * ceil_div(p.bsr.block_c, t.kc) : 0.0;
  const double scale = work_scale(d);
  const double tile_us = scale * cal->per_ktiles_us * tiles / 1e3;
  const double step_us = scale * cal->per_10k_steps_us * steps / 1e4;
  const double mac_us = scale * cal->per_gmac_us * macs / 1e9;
  const double longest_us = cal->per_100_longest_steps_us * longest_steps / 1e2;
  Estimate e;
  e.us = e.rank_us = cal->launch_us + tile_us + step_us + mac_us + longest_us;
  char buf[240];
  std::snprintf(buf, sizeof buf,
                "%.1f us: launch %.1f + %.0f tiles %.1f + %.0f K-steps %.1f + padded MACs %.1f + longest row %.1f",
                e.us, cal->launch_us, tiles, tile_us, steps, step_us, mac_us, longest_us);
  e.why = buf;
  return e;
}

}  // namespace ops
}  // namespace tilegemm
