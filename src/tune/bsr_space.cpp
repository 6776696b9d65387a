#include "tune/bsr_space.hpp"

#include <algorithm>

namespace tilegemm {
namespace detail {

namespace {

constexpr int kSmallMMaxBatch = 64;     // kernel 02 reads W once per 16 columns: hopeless past this
constexpr int kReductionMaxBatch = 16;  // kernel 01, one warp per output: the report's kernel for decode

// Run-time variants of a tiled schedule: one pipeline stage more or fewer, the other K-chunk (16 <-> 32,
// 32 only for blocks whose width it divides), half or twice the tile width (kernel 03 keeps its
// thread tile, kernel 04 its warps' parts).
std::vector<BsrTile> variants(const BsrConfig& base, int block_c) {
  std::vector<BsrTile> out;
  for (int ds : {-1, 1}) {
    BsrTile t = base.tile;
    t.stages += ds;
    out.push_back(t);
  }
  BsrTile t = base.tile;
  t.kc = base.tile.kc == 32 ? 16 : 32;
  if (t.kc == 16 || block_c % 32 == 0) out.push_back(t);
  for (int scale : {2, -2}) {
    t = base.tile;
    t.tj = scale > 0 ? t.tj * 2 : t.tj / 2;
    if (base.family == BsrFamily::TiledTf32x3) t.b = scale > 0 ? t.b * 2 : t.b / 2;
    out.push_back(t);
  }
  return out;
}

// Appends `c` to `out` unless it is there already, cannot compile, cannot run `prob`, or (without
// run-time configs) has no ahead-of-time kernel for the product; a tiled schedule is marked ':jit'
// as the parser marks it.
void admit(const BsrProblem& prob, BsrConfig c, bool run_time_configs, std::vector<BsrConfig>& out) {
  if (c.is_tiled()) {
    if (!bsr_tile_problem(c.family, c.tile).empty()) return;
    c.jit = bsr_schedule_index(c.family, c.tile) < 0;
    if (!run_time_configs && bsr_needs_jit(prob, c)) return;
  }
  if (!bsr_can_implement(prob, c).empty()) return;
  if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
}

// Tiles taller than a block row (kernel 04's are 16 rows at least) pad every tile.
int tallest_tile(const BsrProblem& prob) { return std::max(prob.p.block_r, 16); }

}  // namespace

std::vector<BsrConfig> bsr_neighbours(const BsrProblem& prob, const BsrConfig& c) {
  std::vector<BsrConfig> out;
  if (!c.is_tiled()) return out;
  std::vector<BsrTile> moves;
  const BsrTile base = c.tile;
  auto scaled = [&](int BsrTile::*field) {
    BsrTile t = base;
    t.*field *= 2;
    moves.push_back(t);
    t = base;
    t.*field /= 2;
    moves.push_back(t);
  };
  scaled(&BsrTile::ti);
  scaled(&BsrTile::tj);
  scaled(&BsrTile::a);
  scaled(&BsrTile::b);
  for (int kc : {8, 16, 32})
    if (kc != base.kc) {
      BsrTile t = base;
      t.kc = kc;
      moves.push_back(t);
    }
  for (int ds : {-1, 1}) {
    BsrTile t = base;
    t.stages += ds;
    moves.push_back(t);
  }
  for (const BsrTile& t : moves) {
    if (t.ti > tallest_tile(prob)) continue;
    BsrConfig n = c;
    n.tile = t;
    admit(prob, n, true, out);
  }
  return out;
}

bool bsr_needs_jit(const BsrProblem& prob, const BsrConfig& c) {
  return c.is_tiled() && (c.jit || !bsr_compiled(c.family, c.tile, prob.xwt, prob.vec()));
}

std::vector<BsrConfig> bsr_search_space(const BsrProblem& prob, bool run_time_configs) {
  std::vector<BsrConfig> out;
  auto add = [&](const BsrConfig& c) { admit(prob, c, run_time_configs, out); };
  add(bsr_kernel_config(prob, BsrKernel::Auto));  // untuned Auto's pick, measured first
  const BsrConfig defaults[] = {bsr_kernel_config(prob, BsrKernel::Tiled), bsr_kernel_config(prob, BsrKernel::TiledTf32x3)};
  for (const BsrConfig& c : defaults) add(c);
  for (int i = kFirstBsrCandidate; i < kNumBsrSchedules; ++i) {
    if (kBsrSchedules[i].tile.ti > tallest_tile(prob)) continue;
    BsrConfig c;
    c.family = kBsrSchedules[i].family;
    c.tile = kBsrSchedules[i].tile;
    add(c);
  }
  if (run_time_configs)
    for (const BsrConfig& base : defaults)
      for (const BsrTile& t : variants(base, prob.p.block_c)) {
        BsrConfig c = base;
        c.tile = t;
        add(c);
      }
  BsrConfig simple;
  simple.family = BsrFamily::SmallM;
  if (prob.p.cols_j <= kSmallMMaxBatch) add(simple);
  simple.family = BsrFamily::Reduction;
  if (prob.p.cols_j <= kReductionMaxBatch) add(simple);
  return out;
}

}  // namespace detail
}  // namespace tilegemm
