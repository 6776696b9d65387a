#include "sparse/config.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

#include "core/config_text.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

namespace {

std::string n(int v) { return std::to_string(v); }

// The wx D chunk's row length: kernel 03 keeps rows of kTileJ floats; kernel 04 pads them by 8
// (fragment reads in distinct banks).
int d_ld(BsrFamily f, const BsrTile& t) { return f == BsrFamily::TiledTf32x3 ? t.tj + 8 : t.tj; }

// The host mirror of BsrRowCopier's static_assert: each thread owns whole inner positions of
// whole rows.
std::string copier_problem(const char* what, int inner, int threads, int width) {
  const int per_row = inner / width;
  const int threads_per_row = std::min(per_row, threads);
  if (inner % width || threads % threads_per_row || per_row % threads_per_row)
    return std::string("the ") + what + " copy (" + n(inner) + " floats per row, " + n(width) +
           " per copy) does not split into whole positions per thread (" + n(threads) + " threads)";
  return "";
}

}  // namespace

const char* family_name(BsrFamily f) {
  switch (f) {
    case BsrFamily::Reduction: return "bsr-reduction";
    case BsrFamily::SmallM: return "bsr-small-m";
    case BsrFamily::Tiled: return "bsr-tiled";
    case BsrFamily::TiledTf32x3: return "bsr-tf32x3";
  }
  return "?";
}

std::string to_string(const BsrConfig& c) {
  std::ostringstream o;
  o << family_name(c.family);
  if (c.is_tiled()) {
    const BsrTile& t = c.tile;
    o << ':' << t.ti << 'x' << t.tj << 'x' << t.kc << ':' << (c.family == BsrFamily::Tiled ? 't' : 'w') << t.a
      << 'x' << t.b << ":s" << t.stages << (c.jit ? ":jit" : "");
  }
  return o.str();
}

BsrConfig parse_bsr_config(const std::string& text, const char* what) {
  auto bad = [&](const std::string& why) -> BsrConfig {
    config_text_error(what, text, "BSR", why,
                      "bsr-tiled:32x128x16:t4x8:s4, bsr-tf32x3:16x256x16:w1x4:s3, bsr-small-m, bsr-reduction");
  };
  const std::vector<std::string> f = lowered_fields(text);
  BsrConfig c;
  if (f[0] == "bsr-reduction" || f[0] == "bsr-small-m") {
    c.family = f[0] == "bsr-reduction" ? BsrFamily::Reduction : BsrFamily::SmallM;
    if (f.size() > 1) return bad(f[0] + " takes no fields");
    return c;
  }
  if (f[0] == "bsr-tiled") c.family = BsrFamily::Tiled;
  else if (f[0] == "bsr-tf32x3") c.family = BsrFamily::TiledTf32x3;
  else return bad("unknown family '" + f[0] + "': expected bsr-tiled, bsr-tf32x3, bsr-small-m or bsr-reduction");
  const char per = c.family == BsrFamily::Tiled ? 't' : 'w';
  if (f.size() < 4 || f.size() > 5) return bad("a tiled config has tile, " + std::string(per == 't' ? "thread" : "warp") +
                                               " and stage fields, and may end in :jit");
  int v[3];
  if (!numbers(f[1], "", 3, v)) return bad("tile field '" + f[1] + "' is not TIxTJxKC");
  c.tile.ti = v[0], c.tile.tj = v[1], c.tile.kc = v[2];
  if (!numbers(f[2], std::string(1, per), 2, v))
    return bad(std::string(per == 't' ? "thread" : "warp") + " field '" + f[2] + "' is not " + per + "AxB");
  c.tile.a = v[0], c.tile.b = v[1];
  if (!numbers(f[3], "s", 1, v)) return bad("stage field '" + f[3] + "' is not sSTAGES");
  c.tile.stages = v[0];
  if (f.size() == 5) {
    if (f[4] != "jit") return bad("unexpected field '" + f[4] + "'");
    c.jit = true;
  }
  const std::string why = bsr_tile_problem(c.family, c.tile);
  if (!why.empty()) return bad(why);
  if (bsr_schedule_index(c.family, c.tile) < 0) c.jit = true;
  return c;
}

int bsr_threads(BsrFamily f, const BsrTile& t) {
  if (t.a <= 0 || t.b <= 0) return 0;
  return f == BsrFamily::Tiled ? (t.ti / t.a) * (t.tj / t.b) : 32 * t.a * t.b;
}

int bsr_smem_bytes(BsrFamily f, const BsrTile& t, bool xwt) {
  const int row = t.kc + 4;  // padded k-contiguous rows (W, and D for xwt)
  const int d = xwt ? t.tj * row : t.kc * d_ld(f, t);
  return t.stages * (t.ti * row + d) * 4;
}

std::string bsr_tile_problem(BsrFamily f, const BsrTile& t) {
  if (f != BsrFamily::Tiled && f != BsrFamily::TiledTf32x3) return "not a tiled family";
  if (t.ti <= 0 || t.tj <= 0 || t.kc <= 0 || t.a <= 0 || t.b <= 0 || t.stages <= 0)
    return "every tile, " + std::string(f == BsrFamily::Tiled ? "thread tile" : "warp") + " and stage count must be positive";
  if (t.stages < 2) return "at least 2 pipeline stages";
  const int threads = bsr_threads(f, t);
  if (f == BsrFamily::Tiled) {
    if (t.ti % t.a || t.tj % t.b) return "the thread tile " + n(t.a) + "x" + n(t.b) + " must divide the tile";
    if ((t.ti / t.a) % 4 || (t.tj / t.b) % 8)
      return "whole warps: a warp is 4 (i) x 8 (j) threads, so TI / " + n(t.a) + " must be a multiple of 4 and TJ / " +
             n(t.b) + " of 8";
    if (t.b % 4 || t.kc % 4) return "128-bit groups along j and k: the thread tile's j side and KC must be multiples of 4";
    if (threads > 1024) return n(threads) + " threads: at most 1024";
  } else {
    if (t.ti % t.a || t.tj % t.b) return "the warps " + n(t.a) + "x" + n(t.b) + " must split the tile";
    if ((t.ti / t.a) % 16 || (t.tj / t.b) % 16)
      return "a warp's part (" + n(t.ti / t.a) + "x" + n(t.tj / t.b) + ") must be whole 16-row MMA tiles either way";
    if (t.kc % 8) return "K-chunks of whole m16n8k8 steps: KC must be a multiple of 8";
    // The kernel asks for one block per SM at >= 128 registers per thread.
    if (threads * 128 > 65536) return n(threads) + " threads: at most 512 (128 registers each)";
  }
  const int smem = std::max(bsr_smem_bytes(f, t, true), bsr_smem_bytes(f, t, false));
  if (smem + 1024 > 228 * 1024) return n(smem) + " bytes of shared memory: at most 227 KB per block";
  return "";
}

std::string bsr_tile_problem(BsrFamily f, const BsrTile& t, bool xwt, bool vec) {
  std::string why = bsr_tile_problem(f, t);
  if (!why.empty()) return why;
  const int threads = bsr_threads(f, t), width = vec ? 4 : 1;
  why = copier_problem("W", t.kc, threads, width);
  if (why.empty()) why = xwt ? copier_problem("X", t.kc, threads, width) : copier_problem("X", t.tj, threads, width);
  return why;
}

int bsr_schedule_index(BsrFamily f, const BsrTile& t) {
  for (int i = 0; i < kNumBsrSchedules; ++i)
    if (kBsrSchedules[i].family == f && kBsrSchedules[i].tile == t) return i;
  return -1;
}

bool bsr_compiled(BsrFamily f, const BsrTile& t, bool xwt, bool vec) {
  const int i = bsr_schedule_index(f, t);
  return i >= 0 && (kBsrSchedules[i].every_product || (xwt && vec));
}

BsrTile default_bsr_tile(BsrFamily f, int block_r, int block_c, double row_cols) {
  const bool k32 = block_c % 32 == 0;
  if (f == BsrFamily::Tiled) {
    if (block_r >= 64) return k32 ? kBsrTiled64K32 : kBsrTiled64;
    if (block_r >= 32) return kBsrTiled32;
    return block_r >= 16 ? kBsrTiled16 : kBsrTiled8;
  }
  constexpr double kShortRowCols = 48;
  if (block_r >= 64) return k32 ? (row_cols >= kShortRowCols ? kBsrMma64K32 : kBsrMma64K32Short) : kBsrMma64;
  if (block_r >= 32) return k32 ? kBsrMma32K32 : kBsrMma32;
  return kBsrMma16;
}

}  // namespace detail
}  // namespace tilegemm
