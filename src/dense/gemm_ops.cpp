#include "dense/gemm_ops.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>

#include "core/device_context.hpp"
#include "core/workspace.hpp"
#include "dense/choose.hpp"
#include "kernels/gemm/params.hpp"

namespace tilegemm {
namespace detail {

namespace {

constexpr int kMaxSplits = 1024;

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// split_k_reduce's group: one level up to 8 slices, else about sqrt(slices) per group, so neither
// level sums more than a handful of partial tiles in one block.
int split_group(int splits) {
  if (splits <= 8) return splits;
  return static_cast<int>(std::ceil(std::sqrt(static_cast<double>(splits))));
}

size_t counters_bytes(long long tiles, int splits, int group) {
  // kernels::split_k_counters per tile (kernels/common/split_k.cuh is device code): one per group, plus one
  // for the groups when there are several.
  const long long groups = ceil_div(splits, group);
  const long long per_tile = groups == 1 ? 1 : groups + 1;
  const size_t bytes = static_cast<size_t>(tiles) * static_cast<size_t>(per_tile) * sizeof(unsigned);
  return (bytes + 255) / 256 * 256;  // the partials start 256-byte aligned
}

}  // namespace

GemmProblem describe(const CanonicalGemm& g) {
  GemmProblem p;
  p.m = g.p.m;
  p.n = g.p.n;
  p.k = g.p.k;
  p.trans_a = g.trans_a;
  p.trans_b = g.trans_b;
  p.vec_a = g.vec_a;
  p.vec_b = g.vec_b;
  p.shift_a = g.shift_a;
  p.shift_b = g.shift_b;
  p.shifts_match = g.shifts_match;
  p.beta_zero = g.p.beta == 0.0f;
  p.tiled_offsets_fit = g.tiled_offsets_fit;
  return p;
}


GemvView gemv_view(const GemmProblem& p) {
  GemvView v;
  v.small_m = p.m <= p.n;
  v.s_count = static_cast<int>(v.small_m ? p.m : p.n);
  v.l_count = static_cast<int>(v.small_m ? p.n : p.m);
  // Small M: W(l, k) = op(B)(k, l), contiguous along k when B is stored transposed. Small N:
  // W(l, k) = op(A)(l, k), contiguous along k unless A is stored transposed.
  v.rows = v.small_m ? p.trans_b : !p.trans_a;
  v.vec_w = v.small_m ? p.vec_b : p.vec_a;
  v.shift_w = v.small_m ? p.shift_b : p.shift_a;
  // Small M: X = op(A), contiguous along k unless A is stored transposed. Small N: X = op(B),
  // contiguous along k when B is stored transposed.
  v.vec_x = v.small_m ? p.vec_a : p.vec_b;
  v.x_along_k = v.small_m ? !p.trans_a : p.trans_b;
  v.x_at_w_shift = p.shifts_match;
  return v;
}

GemvForm gemv_form(const GemvView& v, const GemmConfig& c) {
  GemvForm f;
  f.vec_w = v.vec_w;
  f.shift_w = c.family == GemmFamily::GemvCols && !v.vec_w && v.shift_w;
  if (c.family == GemmFamily::GemvRows && c.gemv_s == 16) {
    f.staging = v.x_along_k ? GemvStaging::XRowsAlongK : GemvStaging::XRowsAlongS;
    // X along k behind unaligned W is copied as each row's offset allows, not 16 bytes at a time: the
    // stages start at W's 128-byte boundaries, not X's (gemv_rows_staged.cuh); unless its rows sit
    // at W's offset, or the prologue packed it as four shifted copies (plan_pack), one of which every
    // block finds aligned.
    f.vec_x = v.x_along_k && !v.vec_w ? (v.vec_x && (c.pack_a || c.pack_b)) || v.x_at_w_shift : v.vec_x;
  }
  return f;
}

SplitPlan plan_split(const GemmProblem& p, const GemmConfig& c, const DeviceFacts& d) {
  SplitPlan s;
  if (c.family == GemmFamily::Tiled) {
    const TileShape& t = c.tile;
    s.tiles = ceil_div(p.m, t.bm) * ceil_div(p.n, t.bn);
    const long long k_tiles = ceil_div(p.k, t.bk);
    const long long wanted = c.splits < k_tiles ? c.splits : k_tiles;
    s.slice_k = static_cast<int>(ceil_div(k_tiles, wanted));
    s.splits = static_cast<int>(ceil_div(k_tiles, s.slice_k));
    s.dp_tiles = s.tiles;
    if (s.splits > 1) {
      const long long slots = tiled_slots(t, d);
      s.dp_tiles = c.tail_only ? s.tiles / slots * slots : 0;
      if (s.dp_tiles == s.tiles) s.splits = 1;  // whole waves: nothing left to split
    }
    if (s.splits == 1) {
      s.dp_tiles = s.tiles;
      s.slice_k = static_cast<int>(k_tiles);
    }
    s.group = split_group(s.splits);
    const long long split_tiles = s.tiles - s.dp_tiles;
    s.units = s.dp_tiles + split_tiles * s.splits;
    if (split_tiles > 0) {
      s.counter_bytes = counters_bytes(split_tiles, s.splits, s.group);
      s.partial_bytes = static_cast<size_t>(split_tiles) * s.splits * t.bm * t.bn * sizeof(float);
    }
    return s;
  }
  const GemvView v = gemv_view(p);
  const int chunk = gemv_chunk(c);
  const GemvForm form = gemv_form(v, c);
  const bool row_groups = form.staging != GemvStaging::Registers && !v.vec_w;
  // Shifted columns tiles start up to 3 columns before column 0: one tile more at most (a spare one
  // returns at once).
  const int shifted_columns = form.shift_w ? 3 : 0;
  s.tiles = row_groups ? ceil_div(v.l_count, kGemvStagedRowGroup) * (kGemvStagedRowGroup / gemv_block_l(c))
                       : ceil_div(v.l_count + shifted_columns, gemv_block_l(c));
  const long long chunks = ceil_div(p.k, chunk);
  const long long wanted = c.splits < chunks ? c.splits : chunks;
  const long long slice_chunks = ceil_div(chunks, wanted);
  s.splits = static_cast<int>(ceil_div(chunks, slice_chunks));
  s.slice_k = static_cast<int>(slice_chunks * chunk);
  s.group = split_group(s.splits);
  s.units = s.tiles * s.splits;
  if (s.splits > 1) {
    s.counter_bytes = counters_bytes(s.tiles, s.splits, s.group);
    s.partial_bytes = static_cast<size_t>(s.tiles * s.splits * gemv_partial_tile_floats(c)) * sizeof(float);
  }
  return s;
}

bool product_overlaps_packing(const GemmProblem& p, const GemmConfig& c, const SplitPlan& s, const DeviceFacts& d) {
  if (c.family == GemmFamily::Tiled) return s.units >= tiled_slots(c.tile, d);
  // gemv_rows_staged.cuh waits for the packed X after its first copies of W (two blocks per SM).
  return gemv_form(gemv_view(p), c).staging != GemvStaging::Registers && s.units >= 2LL * d.sm_count;
}

PackPlan plan_pack(const GemmProblem& p, const GemmConfig& c) {
  PackPlan plan;
  int64_t rows = p.k;  // of each copy: K rows of M or N, or X's s rows of K
  if (c.family != GemmFamily::Tiled && (c.pack_a || c.pack_b)) {
    const GemvView v = gemv_view(p);
    plan.x_rows_of_k = v.x_along_k;
    if (v.x_along_k) rows = v.s_count;
    if (v.x_along_k && !v.vec_w) plan.x_copies = 4;
  }
  auto buffer = [&](int64_t row_length, int& ld, size_t& bytes) {
    const int64_t ld64 = (row_length + 3) / 4 * 4;  // may pass 2^31 - 1: then bytes is far above kMaxPackBytes
    // Each copy 4 floats longer than its rows, so that the next one starts a float further along.
    const size_t copy_floats = static_cast<size_t>(rows) * static_cast<size_t>(ld64) + (plan.x_copies > 1 ? 4 : 0);
    bytes = (plan.x_copies * copy_floats * sizeof(float) + 255) / 256 * 256;
    ld = ld64 <= INT_MAX ? static_cast<int>(ld64) : 0;
    if (plan.x_copies > 1) plan.x_shift_step = static_cast<long long>(copy_floats) + 1;
  };
  if (c.pack_a) buffer(plan.x_rows_of_k ? p.k : p.m, plan.lda, plan.a_bytes);
  if (c.pack_b) buffer(plan.x_rows_of_k ? p.k : p.n, plan.ldb, plan.b_bytes);
  return plan;
}

GemmProblem packed_problem(const GemmProblem& p, const GemmConfig& c) {
  GemmProblem q = p;
  if (c.family != GemmFamily::Tiled) {  // gemv-rows:s16's X keeps its orientation (plan_pack)
    if (c.pack_a) q.vec_a = true, q.shift_a = false;
    if (c.pack_b) q.vec_b = true, q.shift_b = false;
  } else {
    if (c.pack_a) q.trans_a = true, q.vec_a = true, q.shift_a = false;
    if (c.pack_b) q.trans_b = false, q.vec_b = true, q.shift_b = false;
  }
  if (c.pack_a || c.pack_b) q.shifts_match = false;  // a packed operand is aligned
  return q;
}

int edge_columns(const GemmProblem& p, const GemmConfig& c) {
  return c.family == GemmFamily::Tiled && c.edge ? static_cast<int>(p.n % c.tile.bn) : 0;
}

GemmProblem main_part(const GemmProblem& p, const GemmConfig& c) {
  GemmProblem q = p;
  q.n -= edge_columns(p, c);
  return q;
}

GemmProblem edge_part(const GemmProblem& p, const GemmConfig& c) {
  GemmProblem q = p;
  q.n = edge_columns(p, c);
  return q;
}

GemmProblem tiled_part(const GemmProblem& p, const GemmConfig& c) { return main_part(packed_problem(p, c), c); }

CanonicalGemm packed_flags(const CanonicalGemm& g, const GemmConfig& c) {
  CanonicalGemm h = g;
  const GemmProblem q = packed_problem(describe(g), c);
  h.trans_a = q.trans_a, h.vec_a = q.vec_a;
  h.trans_b = q.trans_b, h.vec_b = q.vec_b;
  return h;
}

GemmConfig level7_config(const GemmProblem& p) {
  GemmConfig c;
  c.tile = kLevel7Tile;
  c.pack_a = !p.vec_a;
  c.pack_b = !p.vec_b;
  return c;
}

namespace {

// Empty, or why the config's packed operands do not fit the scratch packing may take.
std::string pack_too_big(const GemmProblem& p, const GemmConfig& c) {
  const PackPlan pack = plan_pack(p, c);
  if (pack.bytes() <= kMaxPackBytes) return "";
  return "the packed operands take " + std::to_string(pack.bytes() >> 20) + " MB, more than packing may take (" +
         std::to_string(kMaxPackBytes >> 20) + " MB)";
}

}  // namespace

std::string can_implement(const GemmProblem& p, const GemmConfig& c) {
  if (c.splits < 1 || c.splits > kMaxSplits)
    return "splits = " + std::to_string(c.splits) + " is outside 1.." + std::to_string(kMaxSplits);
  if (c.family == GemmFamily::Tiled) {
    if (tiled_schedule_index(c.tile) < 0) {
      const std::string why = tile_shape_problem(c.tile);
      if (!why.empty()) return "the tile schedule cannot be compiled: " + why;
      if (!c.jit) return "a schedule not compiled into this build runs compiled at run time: add ':jit'";
    }
    if (!p.tiled_offsets_fit)
      return "A or B spans more than " + std::to_string(kMaxTiledExtent) + " elements, the tiled kernels' limit (32-bit copies)";
    const int r = static_cast<int>(c.raster);
    if (r < 0 || r > 2) return "raster = " + std::to_string(r) + " is not a Raster value";
    if (c.gemv_s != 0) return "a tiled config has no short dimension (gemv_s)";
    if (c.gemv_lanes != 0) return "a tiled config has no lanes per W row (gemv_lanes)";
    const long long units = ceil_div(p.m, c.tile.bm) * ceil_div(p.n, c.tile.bn) * c.splits;
    if (units > 2147483647LL) return "the launch needs more than 2^31 - 1 thread blocks";
    if (c.edge) {
      const int edge = static_cast<int>(p.n % c.tile.bn);
      if (edge < 1 || edge > kGemvMaxS || p.n < c.tile.bn)
        return "edge needs a ragged last tile column of 1.." + std::to_string(kGemvMaxS) + " columns after at least one whole one (N = " +
               std::to_string(p.n) + ", BN = " + std::to_string(c.tile.bn) + ")";
    }
    return pack_too_big(p, c);
  }
  if (c.tail_only) return "tail splitting applies to tiled configs only";
  if (c.edge) return "edge columns apply to tiled configs only";
  if (std::min(p.m, p.n) > kGemvMaxS)
    return "a GEMV config needs M or N <= " + std::to_string(kGemvMaxS) + " (the problem is " +
           std::to_string(p.m) + " x " + std::to_string(p.n) + " in its row-major form)";
  const GemvView v = gemv_view(p);
  if (c.pack_a || c.pack_b) {  // gemv_rows_staged.cuh copies a packed X 16 bytes at a time
    if (c.family != GemmFamily::GemvRows || c.gemv_s != 16) return "packing applies to tiled configs and gemv-rows:s16 only";
    if (c.pack_a != v.small_m || c.pack_b == v.small_m)
      return std::string("gemv-rows packs its short operand X only: use ") + (v.small_m ? "pack-a" : "pack-b");
    const std::string why = pack_too_big(p, c);
    if (!why.empty()) return why;
  }
  if (c.gemv_s != 1 && c.gemv_s != 2 && c.gemv_s != 4 && c.gemv_s != 8 && c.gemv_s != 16)
    return "short dimension bound s" + std::to_string(c.gemv_s) + " is not 1, 2, 4, 8 or 16";
  if (c.gemv_s < v.s_count)
    return "short dimension bound s" + std::to_string(c.gemv_s) + " is below the problem's " +
           std::to_string(v.s_count) + " (use s" + std::to_string(gemv_bound(v.s_count)) + ")";
  const bool rows = c.family == GemmFamily::GemvRows;
  if (rows != v.rows)
    return std::string("the long operand is contiguous along ") + (v.rows ? "k: use gemv-rows" : "its long dimension: use gemv-cols");
  if (gemv_one_row(c) && c.gemv_lanes != 8 && c.gemv_lanes != 16 && c.gemv_lanes != 32)
    return "gemv-cols:s1 names its lanes per W row: l8, l16 or l32 (e.g. gemv-cols:s1:l16:k2)";
  if (!gemv_one_row(c) && c.gemv_lanes != 0)
    return "lanes per W row (l" + std::to_string(c.gemv_lanes) + ") apply to gemv-cols:s1 only";
  return "";
}

namespace {

// The launches of one config: the tiled or GEMV launch over the whole problem, or with `edge` a tiled
// launch over the whole tile columns and a GEMV launch over the rest; each with its split plan.
struct LaunchParts {
  PackPlan pack;
  GemmProblem main;  // what the first launch computes (the packed problem, less the edge columns)
  SplitPlan main_split;
  int edge = 0;      // columns of the second launch
  GemmConfig edge_config;
  SplitPlan edge_split;
  // One workspace: every part's counters first (the prologue zeroes them), the partial tiles, then
  // the packed operands.
  size_t counter_bytes() const { return main_split.counter_bytes + edge_split.counter_bytes; }
  size_t bytes() const {
    return counter_bytes() + main_split.partial_bytes + edge_split.partial_bytes + pack.bytes();
  }
};

LaunchParts plan_parts(const GemmProblem& p, const GemmConfig& c, const DeviceFacts& d) {
  LaunchParts parts;
  parts.pack = plan_pack(p, c);
  parts.main = tiled_part(p, c);
  parts.main_split = plan_split(parts.main, c, d);
  parts.edge = edge_columns(p, c);
  if (parts.edge > 0) {
    const GemmProblem e = edge_part(packed_problem(p, c), c);
    parts.edge_config = best_gemv_config(e, d).config;
    parts.edge_split = plan_split(e, parts.edge_config, d);
  }
  return parts;
}

// Launches the call's prologue (prologue.cuh): `counter_bytes` of counters zeroed, and op(A) and/or
// op(B) of `g` packed into `to` (plan_pack's buffers, one after the other). Returns the problem the
// product then runs: with packing, packed_flags(g, c) pointing at the copies.
CanonicalGemm run_prologue(const CanonicalGemm& g, const GemmConfig& c, const PackPlan& plan, char* to,
                           unsigned* counters, size_t counter_bytes, cudaStream_t stream) {
  CanonicalGemm h = plan.bytes() > 0 ? packed_flags(g, c) : g;
  const kernels::GemmParams& q = g.p;
  kernels::PrologueParams pp{};
  pp.counters = counters;
  pp.counter_words = static_cast<long long>(counter_bytes / sizeof(unsigned));
  // K rows of the operand's M or N; or (gemv-rows:s16's X along k) its rows of K, as stored.
  auto operand = [&](const float* src, int ld_src, int length, int ld_dst, float* dst) {
    const int rows = plan.x_rows_of_k ? length : q.k, cols = plan.x_rows_of_k ? q.k : length;
    return kernels::PackParams{src,  ld_src, dst, ld_dst, rows, cols, static_cast<int>(ceil_div(cols, kernels::kPackTile)),
                               plan.x_copies, plan.x_shift_step};
  };
  auto tiles = [](const kernels::PackParams& x) { return static_cast<int>(x.col_tiles * ceil_div(x.rows, kernels::kPackTile)); };
  if (plan.a_bytes > 0) {  // A'(k, m) = op(A)(m, k): A's stored rows are the copy's columns unless A is stored transposed
    float* dst = reinterpret_cast<float*>(to);
    pp.a = operand(q.a, q.lda, q.m, plan.lda, dst);
    pp.a_tiles = tiles(pp.a);
    pp.a_transposed = !g.trans_a && !plan.x_rows_of_k;
    h.p.a = dst;
    h.p.lda = plan.lda;
  }
  if (plan.b_bytes > 0) {  // B'(k, n) = op(B)(k, n)
    float* dst = reinterpret_cast<float*>(to + plan.a_bytes);
    pp.b = operand(q.b, q.ldb, q.n, plan.ldb, dst);
    pp.b_tiles = tiles(pp.b);
    pp.b_transposed = g.trans_b && !plan.x_rows_of_k;
    h.p.b = dst;
    h.p.ldb = plan.ldb;
  }
  launch_prologue(pp, stream);
  return h;
}

// The GEMV kernel's view of the canonical problem (gemv_view) and its launch with split plan `s`.
void launch_gemv_config(const CanonicalGemm& g, const GemmConfig& c, const SplitPlan& s, long long x_shift_step,
                        float* partials, unsigned* counters, cudaStream_t stream, bool after_prologue) {
  const GemvView v = gemv_view(describe(g));
  const kernels::GemmParams& q = g.p;
  kernels::GemvParams gp{};
  gp.s_count = v.s_count;
  gp.l_count = v.l_count;
  gp.k = q.k;
  gp.alpha = q.alpha;
  gp.beta = q.beta;
  if (v.small_m) {  // W = op(B), X = op(A) rows, C(s, l) = C[s][l]
    gp.w = q.b;
    gp.ldw = q.ldb;
    gp.x = q.a;
    gp.x_s = g.trans_a ? 1 : q.lda;
    gp.x_k = g.trans_a ? q.lda : 1;
    gp.c_s = q.ldc;
    gp.c_l = 1;
  } else {  // W = op(A), X = op(B) columns, C(s, l) = C[l][s]
    gp.w = q.a;
    gp.ldw = q.lda;
    gp.x = q.b;
    gp.x_s = g.trans_b ? q.ldb : 1;
    gp.x_k = g.trans_b ? 1 : q.ldb;
    gp.c_s = 1;
    gp.c_l = q.ldc;
  }
  gp.c = q.c;
  gp.splits = s.splits;
  gp.slice_k = s.slice_k;
  gp.group = s.group;
  gp.partials = s.partial_bytes > 0 ? partials : nullptr;
  gp.counters = s.partial_bytes > 0 ? counters : nullptr;
  gp.x_shift_step = x_shift_step;
  const GemvForm form = gemv_form(v, c);
  if (c.jit) launch_gemv_jit(c, form, gp, s.units, stream, after_prologue);
  else launch_gemv(c, form, gp, s.units, stream, after_prologue);
}

}  // namespace

size_t workspace_bytes(const GemmProblem& p, const GemmConfig& c, const DeviceFacts& d) {
  return plan_parts(p, c, d).bytes();
}

void run_config(const CanonicalGemm& g, const GemmConfig& c, const DeviceFacts& d, cudaStream_t stream) {
  const LaunchParts parts = plan_parts(describe(g), c, d);
  std::optional<Workspace> ws;  // freed in stream order after the launches
  char* counters = nullptr;     // [main counters | edge counters]
  char* partials = nullptr;     // [main partials | edge partials]
  char* packed = nullptr;
  if (parts.bytes() > 0) {
    ws.emplace(stream, parts.bytes(), /*zeroed by the prologue*/ 0);
    counters = ws->get();
    partials = counters + parts.counter_bytes();
    packed = partials + parts.main_split.partial_bytes + parts.edge_split.partial_bytes;
  }
  // Counters to zero or operands to pack: one prologue launch, which the product's launch overlaps.
  const bool prologue = parts.counter_bytes() > 0 || parts.pack.bytes() > 0;
  CanonicalGemm h = g;
  h.p.raster = static_cast<int>(c.raster);
  if (prologue)
    h = run_prologue(h, c, parts.pack, packed, reinterpret_cast<unsigned*>(counters), parts.counter_bytes(), stream);
  const bool overlap =
      prologue && (parts.pack.bytes() == 0 || product_overlaps_packing(describe(g), c, parts.main_split, d));
  if (c.family != GemmFamily::Tiled) {
    launch_gemv_config(h, c, parts.main_split, parts.pack.x_shift_step, reinterpret_cast<float*>(partials),
                       reinterpret_cast<unsigned*>(counters), stream, overlap);
    return;
  }
  CanonicalGemm main = h;
  main.p.n = static_cast<int>(parts.main.n);
  const SplitPlan& s = parts.main_split;
  const bool split = s.partial_bytes > 0;
  const kernels::SplitTileParams sp{static_cast<int>(s.dp_tiles), s.splits, s.slice_k, s.group,
                                    split ? reinterpret_cast<float*>(partials) : nullptr,
                                    split ? reinterpret_cast<unsigned*>(counters) : nullptr,
                                    parts.pack.bytes() > 0 ? 1 : 0};
  if (c.jit) launch_split_tiled_jit(c.tile, main, sp, s.units, stream, overlap);
  else launch_split_tiled(tiled_schedule_index(c.tile), main, sp, s.units, stream, overlap);
  if (parts.edge > 0) {  // C's last columns from the same (packed) operands: B's and C's columns from main.p.n on
    CanonicalGemm edge = h;
    const int64_t first = main.p.n;
    edge.p.n = parts.edge;
    edge.p.b += h.trans_b ? first * h.p.ldb : first;
    edge.p.c += first;
    // A plain launch: the tiled launch before it waited for the prologue (kernels/common/griddep.cuh).
    launch_gemv_config(edge, parts.edge_config, parts.edge_split, /*x_shift_step*/ 0,
                       reinterpret_cast<float*>(partials + s.partial_bytes),
                       reinterpret_cast<unsigned*>(counters + s.counter_bytes), stream, false);
  }
}

}  // namespace detail
}  // namespace tilegemm
