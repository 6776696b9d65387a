#include "ops/families/bsr_common/bsr_family.hpp"

#include <algorithm>

#include "ops/tile_moves.hpp"
#include "tilegemm/bsr_gpu.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace ops {

detail::BsrProblem bsr_problem(const Problem& p, const Operands* o) {
  detail::BsrProblem prob;
  const bool xwt = p.kind == OpKind::BsrXwt;
  prob.xwt = xwt;
  prob.nnzb = p.bsr.nnzb;
  kernels::BsrParams& k = prob.p;
  k.cols_j = static_cast<int>(bsr_dense_batch(p));  // i over W's rows, j over the dense batch
  k.rows_i = static_cast<int>(xwt ? p.n : p.m);
  k.depth_k = static_cast<int>(p.k);
  k.block_r = p.bsr.block_r;
  k.block_c = p.bsr.block_c;
  k.block_row_count = static_cast<int>(p.bsr.block_rows);
  k.x_vec4 = bsr_x_vec(p);
  k.w_vec4 = bsr_w_vec(p);
  k.y_vec4 = bsr_y_vec(p);
  k.beta = p.beta_zero ? 0.0f : 1.0f;
  if (o == nullptr) return prob;
  const BsrView v = o->w->view();
  k.w = v.block_data;
  k.w_cols = v.block_indices;
  k.w_rowptr = v.index_pointer;
  k.row_order = o->w->row_order();
  prob.row_lengths = &o->w->row_lengths_longest_first();
  k.x = static_cast<const float*>(o->a);
  k.ldx = static_cast<int>(o->lda);  // <= the extent, checked to fit in int
  k.y = static_cast<float*>(o->c);
  k.ldy = static_cast<int>(o->ldc);
  k.alpha = o->alpha;
  k.beta = o->beta;
  return prob;
}

double stored_row_cols(const Problem& p) {
  return p.bsr.block_rows > 0 ? static_cast<double>(p.bsr.nnzb) * p.bsr.block_c / p.bsr.block_rows : 0.0;
}

namespace {

bool needs_jit(const detail::BsrProblem& prob, const detail::BsrConfig& c) {
  return c.is_tiled() && (c.jit || !detail::bsr_compiled(c.family, c.tile, prob.xwt, prob.vec()));
}

// Tiles taller than a block row (kernel 04's are 16 rows at least) pad every tile.
int tallest_tile(const Problem& p) { return std::max(p.bsr.block_r, 16); }

}  // namespace

bool BsrFamilyBase::claims(std::string_view text) const { return text.substr(0, text.find(':')) == name(); }

Config BsrFamilyBase::parse(const std::string& text, const char* what) const {
  const detail::BsrConfig r = detail::parse_bsr_config(text, what);
  if (r.family != family_)  // claims() saw this family's prefix
    throw Error(ErrorCode::Internal, std::string(what) + ": '" + text + "' parsed to another family");
  return make(r);
}

std::string BsrFamilyBase::print(const Config& c) const { return detail::to_string(record(c)); }

std::string BsrFamilyBase::supports(const Problem& p) const {
  if (!serves(p.kind)) return std::string("computes block-sparse products, not ") + to_string(p.kind);
  if (p.a_type != DType::F32 || p.b_type != DType::F32 || p.c_type != DType::F32)
    return "computes F32 X, W and Y only (the product is " + dtype_text(p) + ")";
  return "";
}

Config BsrFamilyBase::default_config(const Problem& p) const {
  detail::BsrConfig r;
  r.family = family_;
  if (r.is_tiled())
    r.tile = detail::default_bsr_tile(family_, p.bsr.block_r, p.bsr.block_c, stored_row_cols(p));
  return make(r);
}

std::vector<Config> BsrTiledFamily::candidates(const Problem& p, const DeviceFacts&) const {
  std::vector<Config> out = {default_config(p)};
  const detail::BsrProblem prob = bsr_problem(p);
  for (const detail::CompiledBsrSchedule& s : detail::kBsrSchedules) {
    if (s.every_product) continue;  // a default: only the problem's own is a candidate
    if (s.family != record(out.front()).family || s.tile.ti > tallest_tile(p) ||
        !detail::bsr_compiled(s.family, s.tile, prob.xwt, prob.vec()))
      continue;
    detail::BsrConfig r;
    r.family = s.family;
    r.tile = s.tile;
    if (!(r == record(out.front()))) out.push_back(make(r));
  }
  return out;
}

std::optional<Estimate> BsrTiledFamily::estimate(const Problem& p, const Config& c, const DeviceFacts& d) const {
  if (!is_default(p, c)) return std::nullopt;  // the model is fitted to the defaults only
  return tiled_estimate(p, record(c).tile, rows_, row_count_, d);
}

// The tiled schedules one move away from `c`: the tile height, tile width, outputs per thread or warps
// along either side halved or doubled, the other K-chunks (8, 16, 32), a pipeline stage more or fewer.
// Only those that compile and can run `p`, marked ':jit' where not compiled ahead.
std::vector<Config> BsrFamilyBase::neighbours(const Problem& p, const Config& c) const {
  std::vector<Config> out;
  const detail::BsrConfig& base = record(c);
  if (!base.is_tiled()) return out;
  TileMoves<detail::BsrTile> moves(base.tile);
  moves.scale(&detail::BsrTile::ti)
      .scale(&detail::BsrTile::tj)
      .scale(&detail::BsrTile::a)
      .scale(&detail::BsrTile::b)
      .set(&detail::BsrTile::kc, {8, 16, 32})
      .shift(&detail::BsrTile::stages, {-1, 1});
  const detail::BsrProblem prob = bsr_problem(p);
  for (const detail::BsrTile& t : moves.moves()) {
    if (t.ti > tallest_tile(p) || !detail::bsr_tile_problem(family_, t).empty()) continue;
    detail::BsrConfig n = base;
    n.tile = t;
    n.jit = detail::bsr_schedule_index(family_, t) < 0;
    if (!detail::bsr_can_implement(prob, n).empty()) continue;
    const Config made = make(n);
    if (std::find(out.begin(), out.end(), made) == out.end()) out.push_back(made);
  }
  return out;
}

std::string BsrFamilyBase::can_implement(const Problem& p, const Config& c) const {
  const std::string unsupported = supports(p);
  if (!unsupported.empty()) return unsupported;
  return detail::bsr_can_implement(bsr_problem(p), record(c));
}

size_t BsrFamilyBase::workspace_bytes(const Problem& p, const Config& c, const Operands& o, const DeviceFacts&) const {
  return detail::bsr_workspace_bytes(bsr_problem(p, &o), record(c));
}

std::string BsrFamilyBase::config_class(const Problem& p, const Config& c, const DeviceFacts&) const {
  return needs_jit(bsr_problem(p), record(c)) ? std::string(name()) + ", run-time compiled" : std::string(name());
}

std::vector<detail::JitRequest> BsrFamilyBase::run_time_kernels(const Problem& p, const Config& c,
                                                                const DeviceFacts&) const {
  const detail::BsrProblem prob = bsr_problem(p);
  const detail::BsrConfig& r = record(c);
  if (!needs_jit(prob, r)) return {};
  return {detail::bsr_tiled_jit_request(r.family, r.tile, prob.xwt, prob.vec())};
}

void BsrFamilyBase::run(const Problem& p, const Config& c, const Operands& o, const DeviceFacts&,
                        cudaStream_t stream) const {
  detail::launch_bsr_config(bsr_problem(p, &o), record(c), stream);
}

}  // namespace ops
}  // namespace tilegemm
