#include "dense/config.hpp"

#include <sstream>

#include "core/config_text.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

int tiled_schedule_index(const TileShape& t) {
  for (int i = 0; i < kNumTiledSchedules; ++i)
    if (kTiledSchedules[i] == t) return i;
  return -1;
}

int gemv_bound(int s_count) {
  int b = 1;
  while (b < s_count) b *= 2;
  return b;
}

long long gemv_partial_tile_floats(const GemmConfig& c) {
  if (c.family == GemmFamily::GemvRows) {  // kPerLane values of each of the block's threads
    const int warp_outputs = gemv_rows_block_rows(c.gemv_s) / 8 * c.gemv_s;
    return static_cast<long long>((warp_outputs + 31) / 32) * kGemvThreads;
  }
  return gemv_one_row(c) ? 4LL * c.gemv_lanes : 4LL * c.gemv_s * 32;  // 4 columns per owning lane
}

const char* family_name(GemmFamily f) {
  switch (f) {
    case GemmFamily::Tiled: return "tiled";
    case GemmFamily::GemvRows: return "gemv-rows";
    case GemmFamily::GemvCols: return "gemv-cols";
  }
  return "?";
}

std::string to_string(const GemmConfig& c) {
  std::ostringstream o;
  o << family_name(c.family) << ':';
  if (c.family == GemmFamily::Tiled) {
    const TileShape& t = c.tile;
    o << t.bm << 'x' << t.bn << 'x' << t.bk << ":w" << t.wm << 'x' << t.wn;
    if (t.math == TileMath::Ffma) o << ":t" << t.tm << 'x' << t.tn;
    else o << ":tf32x3" << (t.mma_steps > 1 ? "c" + std::to_string(t.mma_steps) : std::string());
    o << ":s" << t.stages << ":b" << t.blocks << ':' << (c.tail_only ? "tail" : "k") << c.splits << ':'
      << tilegemm::to_string(c.raster);
    if (c.pack_a || c.pack_b) o << ":pack-" << (c.pack_a ? "a" : "") << (c.pack_b ? "b" : "");
    o << (c.edge ? ":edge" : "") << (c.jit ? ":jit" : "");
  } else {
    o << 's' << c.gemv_s;
    if (c.gemv_lanes != 0) o << ":l" << c.gemv_lanes;
    o << ":k" << c.splits;
    if (c.pack_a || c.pack_b) o << ":pack-" << (c.pack_a ? "a" : "") << (c.pack_b ? "b" : "");
    o << (c.jit ? ":jit" : "");
  }
  return o.str();
}

GemmConfig parse_gemm_config(const std::string& text, const char* what) {
  auto bad = [&](const std::string& why) -> GemmConfig {
    config_text_error(what, text, "GEMM", why, "tiled:128x256x32:w64x64:t16x8:s4:b1:k1:hilbert, gemv-cols:s1:l16:k2");
  };
  const std::vector<std::string> f = lowered_fields(text);
  GemmConfig c;
  size_t next = 0;
  if (f[0] == "tiled") {
    int v[3];
    if (f.size() < 6) return bad("a tiled config has tile, warp, thread, stage and block fields");
    if (!numbers(f[1], "", 3, v)) return bad("tile field '" + f[1] + "' is not BMxBNxBK");
    c.tile.bm = v[0], c.tile.bn = v[1], c.tile.bk = v[2];
    if (!numbers(f[2], "w", 2, v)) return bad("warp field '" + f[2] + "' is not wWMxWN");
    c.tile.wm = v[0], c.tile.wn = v[1];
    if (f[3] == "tf32x3") {
      c.tile.math = TileMath::Tf32x3;
      c.tile.mma_steps = 1;
    } else if (f[3].compare(0, 7, "tf32x3c") == 0) {
      if (!numbers(f[3], "tf32x3c", 1, v) || v[0] < 1) return bad("thread field '" + f[3] + "' is not tf32x3cN");
      c.tile.math = TileMath::Tf32x3;
      c.tile.mma_steps = v[0];
    } else {
      if (!numbers(f[3], "t", 2, v)) return bad("thread field '" + f[3] + "' is not tTMxTN or tf32x3");
      c.tile.tm = v[0], c.tile.tn = v[1];
    }
    if (!numbers(f[4], "s", 1, v)) return bad("stage field '" + f[4] + "' is not sSTAGES");
    c.tile.stages = v[0];
    if (!numbers(f[5], "b", 1, v)) return bad("block field '" + f[5] + "' is not bBLOCKS");
    c.tile.blocks = v[0];
    next = 6;
  } else if (f[0] == "gemv-rows" || f[0] == "gemv-cols") {
    int v[1];
    c.family = f[0] == "gemv-rows" ? GemmFamily::GemvRows : GemmFamily::GemvCols;
    if (f.size() < 2 || !numbers(f[1], "s", 1, v)) return bad("a GEMV config names its short dimension, sN");
    c.gemv_s = v[0];
    next = 2;
    if (next < f.size() && f[next].size() > 1 && f[next][0] == 'l') {  // lanes per W row
      if (!numbers(f[next], "l", 1, v)) return bad("lanes field '" + f[next] + "' is not lN");
      c.gemv_lanes = v[0];
      ++next;
    }
  } else {
    return bad("unknown family '" + f[0] + "': expected tiled, gemv-rows or gemv-cols");
  }
  if (next < f.size()) {  // the split field
    const std::string& s = f[next];
    const bool tail = s.compare(0, 4, "tail") == 0;
    int v[1];
    if (!numbers(s, tail ? "tail" : "k", 1, v)) return bad("split field '" + s + "' is not kN or tailN");
    if (tail && c.family != GemmFamily::Tiled) return bad("tailN applies to tiled configs only");
    c.splits = v[0];
    c.tail_only = tail;
    ++next;
  }
  if (next < f.size() && c.family == GemmFamily::Tiled && f[next] != "jit" && f[next] != "edge" &&
      f[next].compare(0, 5, "pack-") != 0) {
    const std::string& r = f[next];
    if (r == "rowmajor") c.raster = Raster::RowMajor;
    else if (r == "grouped") c.raster = Raster::Grouped;
    else if (r == "hilbert") c.raster = Raster::Hilbert;
    else return bad("raster '" + r + "' is not rowmajor, grouped or hilbert");
    ++next;
  }
  if (next < f.size() && f[next].compare(0, 5, "pack-") == 0) {
    const std::string& pk = f[next];
    if (c.family == GemmFamily::GemvCols) return bad("packing applies to tiled and gemv-rows configs only");
    if (pk != "pack-a" && pk != "pack-b" && pk != "pack-ab") return bad("pack field '" + pk + "' is not pack-a, pack-b or pack-ab");
    c.pack_a = pk != "pack-b";
    c.pack_b = pk != "pack-a";
    ++next;
  }
  if (next < f.size() && f[next] == "edge") {
    if (c.family != GemmFamily::Tiled) return bad("edge applies to tiled configs only");
    c.edge = true;
    ++next;
  }
  if (next < f.size() && f[next] == "jit") {
    c.jit = true;
    ++next;
  }
  if (next < f.size()) return bad("unexpected field '" + f[next] + "'");
  if (c.family == GemmFamily::Tiled && tiled_schedule_index(c.tile) < 0) c.jit = true;
  return c;
}

namespace {

// Why a copy of `outer` rows of `inner` contiguous floats would not split into whole rows per
// thread with copies of 1 and 4 floats (kernels/common/tile_copy.cuh), or "".
std::string copy_split_problem(int outer, int inner, int threads) {
  auto n = [](int v) { return std::to_string(v); };
  for (int width : {1, 4}) {
    const int per_row = inner / width;
    const int threads_per_row = per_row < threads ? per_row : threads;
    if (inner % width || threads % threads_per_row || per_row % threads_per_row || per_row != threads_per_row ||
        outer % (threads / threads_per_row))
      return "a copy of " + n(outer) + " rows of " + n(inner) + " floats does not split into whole rows per thread (" +
             n(threads) + " threads)";
  }
  return "";
}

// The host mirror of MmaTf32x3Schedule's static_asserts and its copiers'.
std::string mma_shape_problem(const TileShape& t) {
  auto n = [](int v) { return std::to_string(v); };
  if (t.bm <= 0 || t.bn <= 0 || t.bk <= 0 || t.wm <= 0 || t.wn <= 0) return "every tile and warp size must be positive";
  if (t.tm != 0 || t.tn != 0) return "a tensor-core schedule has no thread tile";
  if (t.bm % t.wm || t.bn % t.wn) return "the warp tile " + n(t.wm) + "x" + n(t.wn) + " must divide the block tile";
  if (t.wm % 16 || t.wn % 8) return "the warp tile must be whole 16 x 8 MMA tiles";
  if (t.mma_steps < 1) return "a tensor-core schedule sums at least one k8 step per add";
  if (t.bk % 8 || (t.bk / 8) % t.mma_steps)
    return "BK must be whole k8 steps, a multiple of the " + n(t.mma_steps) + " summed per add";
  const int threads = t.threads();
  if (threads > 1024) return n(threads) + " threads: at most 1024";
  if (t.stages < 2) return "at least 2 pipeline stages";
  if (t.blocks < 1 || t.blocks > 32) return "blocks per SM must be 1..32";
  for (int cols : {t.bm, t.bn}) {  // each operand is staged [col][k] or [k][col], by its orientation
    std::string why = copy_split_problem(cols, t.bk, threads);
    if (why.empty()) why = copy_split_problem(t.bk, cols, threads);
    if (!why.empty()) return why;
  }
  if (t.smem_bytes() > 227 * 1024) return n(t.smem_bytes()) + " bytes of shared memory: at most 227 KB per block";
  return "";
}

}  // namespace

std::string tile_shape_problem(const TileShape& t) {
  if (t.math == TileMath::Tf32x3) return mma_shape_problem(t);
  if (t.mma_steps != 0) return "an FFMA schedule sums no k8 steps";
  auto n = [](int v) { return std::to_string(v); };
  if (t.bm <= 0 || t.bn <= 0 || t.bk <= 0 || t.wm <= 0 || t.wn <= 0 || t.tm <= 0 || t.tn <= 0)
    return "every tile, warp and thread size must be positive";
  if (t.bm % t.wm || t.bn % t.wn) return "the warp tile " + n(t.wm) + "x" + n(t.wn) + " must divide the block tile";
  if (t.wm % t.tm || t.wn % t.tn) return "the thread tile " + n(t.tm) + "x" + n(t.tn) + " must divide the warp tile";
  const int lanes_m = t.wm / t.tm, lanes_n = t.wn / t.tn;
  if (lanes_m * lanes_n != 32)
    return "a warp tile must be covered by exactly 32 lanes (" + n(lanes_m) + " x " + n(lanes_n) + ")";
  if (t.tm % 4 || t.tn % 4) return "the thread tile's sides must be multiples of 4 (fragments are read 4 floats at a time)";
  if (lanes_m > 8 || lanes_n > 8) return "at most 8 lanes along a warp tile's side";
  const int threads = t.threads();
  if (threads > 1024) return n(threads) + " threads: at most 1024";
  if (t.stages < 2) return "at least 2 pipeline stages";
  if (t.blocks < 1 || t.blocks > 32) return "blocks per SM must be 1..32";
  if (t.tm % 2) return "the FMA order's bands of 2 rows must divide the thread tile";
  // The transposing copies move 8 k x (threads / 8) columns per pass; the as-is copies give each
  // thread one inner position of whole rows, with 16-byte or 4-byte copies.
  if (t.bk % 8 || (t.bm * 8) % threads || (t.bn * 8) % threads || t.bm % 32 || t.bn % 32)
    return "the transposing copies need BK a multiple of 8, BM and BN multiples of 32, and 8 x BM and 8 x BN "
           "multiples of the " + n(threads) + " threads";
  if ((t.bm * t.bk) % threads || (t.bn * t.bk) % threads || (t.bm * t.bk / 4) % threads || (t.bn * t.bk / 4) % threads)
    return "the tile copies must split evenly over the " + n(threads) + " threads";
  for (int cols : {t.bm, t.bn})
    for (int width : {1, 4}) {
      const int per_row = cols / width;
      if (threads % per_row || t.bk % (threads / per_row))
        return "a copy of " + n(cols) + " columns x " + n(t.bk) + " k does not split into whole rows per thread (" +
               n(threads) + " threads)";
    }
  if (t.bk % 8) return "BK must be a multiple of 8 (8 k steps per pass)";
  if (t.smem_bytes() > 227 * 1024) return n(t.smem_bytes()) + " bytes of shared memory: at most 227 KB per block";
  return "";
}

}  // namespace detail
}  // namespace tilegemm
