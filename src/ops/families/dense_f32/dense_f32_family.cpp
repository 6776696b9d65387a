#include "ops/families/dense_f32/dense_f32_family.hpp"

#include <algorithm>
#include <cstdint>

#include "dense/choose.hpp"
#include "dense/launch.hpp"
#include "ops/tile_moves.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace ops {

detail::GemmProblem gemm_problem(const Problem& p) {
  detail::GemmProblem g;
  g.m = p.m;
  g.n = p.n;
  g.k = p.k;
  g.trans_a = p.trans_a;
  g.trans_b = p.trans_b;
  g.vec_a = p.align_a == 16;
  g.vec_b = p.align_b == 16;
  g.shift_a = !g.vec_a && p.pitch_align_a == 16;
  g.shift_b = !g.vec_b && p.pitch_align_b == 16;
  g.shifts_match = g.shift_a && g.shift_b && p.offset_a == p.offset_b;
  g.beta_zero = p.beta_zero;
  g.tiled_offsets_fit = p.offsets_fit_32bit;
  g.ffma_only = p.math == Math::FfmaOnly;
  return g;
}

detail::CanonicalGemm canonical_gemm(const Problem& p, const Operands& o) {
  const detail::GemmProblem g = gemm_problem(p);
  detail::CanonicalGemm c;
  kernels::GemmParams& k = c.p;
  k.m = static_cast<int>(p.m);
  k.n = static_cast<int>(p.n);
  k.k = static_cast<int>(p.k);
  k.alpha = o.alpha;
  k.beta = o.beta;
  k.a = static_cast<const float*>(o.a);
  k.b = static_cast<const float*>(o.b);
  k.c = static_cast<float*>(o.c);
  // A leading dimension beyond 2^31 - 1 only occurs with a single stored row or column (never used).
  auto clamp = [](int64_t ld) { return ld > INT32_MAX ? INT32_MAX : static_cast<int>(ld); };
  k.lda = clamp(o.lda);
  k.ldb = clamp(o.ldb);
  k.ldc = clamp(o.ldc);
  k.raster = static_cast<int>(o.raster);
  const auto c_addr = reinterpret_cast<std::uintptr_t>(o.c);
  k.c_vec4 = c_addr % 16 == 0 && k.ldc % 4 == 0;
  k.c_vec8 = c_addr % 32 == 0 && k.ldc % 8 == 0;
  c.trans_a = g.trans_a;
  c.trans_b = g.trans_b;
  c.vec_a = g.vec_a;
  c.vec_b = g.vec_b;
  c.shift_a = g.shift_a;
  c.shift_b = g.shift_b;
  c.shifts_match = g.shifts_match;
  c.tiled_offsets_fit = g.tiled_offsets_fit;
  return c;
}

std::string f32_operands(const Problem& p) {
  auto one = [](const char* name, DType t) {
    return t == DType::F32 ? std::string()
                           : std::string(name) + " is " + tilegemm::to_string(t) + ": this family computes F32 A, B and C only";
  };
  std::string why = one("A", p.a_type);
  if (why.empty()) why = one("B", p.b_type);
  if (why.empty()) why = one("C", p.c_type);
  return why;
}

Config DenseF32Family::parse(const std::string& text, const char* what) const {
  const detail::GemmConfig g = detail::parse_gemm_config(text, what);
  if (!owns(g))
    throw Error(ErrorCode::InvalidArgument, std::string(what) + ": '" + text + "' is not a " + std::string(name()) + " config");
  return make(g);
}

std::string DenseF32Family::print(const Config& c) const { return detail::to_string(record(c)); }

std::vector<Config> DenseF32Family::wrap(const std::vector<detail::GemmConfig>& records) const {
  std::vector<Config> out;
  out.reserve(records.size());
  for (const detail::GemmConfig& g : records) out.push_back(make(g));
  return out;
}

std::vector<Config> DenseF32Family::neighbours(const Problem& p, const Config& c) const {
  // A tiled config's schedule one move away, compiled at run time: a pipeline stage more or fewer,
  // the other K-tile depth (16 <-> 32), a block per SM more or fewer (its register cap). Only those
  // that compile and differ from every compiled schedule.
  const detail::GemmConfig& base = record(c);
  std::vector<Config> out;
  if (base.family != detail::GemmFamily::Tiled) return out;
  TileMoves<detail::TileShape> moves(base.tile);
  moves.shift(&detail::TileShape::stages, {-1, 1})
      .set(&detail::TileShape::bk, {base.tile.bk == 16 ? 32 : 16})
      .shift(&detail::TileShape::blocks, {-1, 1});
  const detail::GemmProblem g = gemm_problem(p);
  for (const detail::TileShape& shape : moves.moves()) {
    detail::GemmConfig v = base;
    v.tile = shape;
    v.jit = true;
    if (detail::tiled_schedule_index(shape) >= 0 || !detail::can_implement(g, v).empty()) continue;
    out.push_back(make(v));
  }
  return out;
}

std::string DenseF32Family::error_group(const Config& c) const {
  // A tiled config's schedule without its split and raster; a GEMV config's kernel and bound.
  detail::GemmConfig whole = record(c);
  if (whole.family != detail::GemmFamily::Tiled) return std::string(detail::family_name(whole.family)) + std::to_string(whole.gemv_s);
  whole.splits = 1;
  whole.tail_only = false;
  whole.raster = Raster::Hilbert;
  return detail::to_string(whole);
}

std::string DenseF32Family::supports(const Problem& p) const {
  if (p.kind != OpKind::Gemm) return "not a GEMM";
  const std::string why = f32_operands(p);
  return why.empty() ? declines(p) : why;
}

std::string DenseF32Family::can_implement(const Problem& p, const Config& c) const {
  const std::string why = supports(p);
  return why.empty() ? detail::can_implement(gemm_problem(p), record(c)) : why;
}

size_t DenseF32Family::workspace_bytes(const Problem& p, const Config& c, const Operands&, const DeviceFacts& d) const {
  return detail::workspace_bytes(gemm_problem(p), record(c), d);
}

std::optional<Estimate> DenseF32Family::estimate(const Problem& p, const Config& c, const DeviceFacts& d) const {
  const detail::GemmProblem g = gemm_problem(p);
  detail::ScoredConfig s = detail::score_config(g, record(c), d);
  Estimate e;
  e.us = s.predicted_us;
  e.rank_us = detail::rank_cost(g, s, d);
  e.why = std::move(s.why);
  return e;
}

std::string DenseF32Family::config_class(const Problem& p, const Config& c, const DeviceFacts& d) const {
  return detail::config_class(gemm_problem(p), record(c), d);
}

std::vector<detail::JitRequest> DenseF32Family::run_time_kernels(const Problem& p, const Config& c,
                                                                 const DeviceFacts& d) const {
  const detail::GemmConfig& r = record(c);
  if (!r.jit) return {};
  const detail::GemmProblem g = gemm_problem(p);
  const detail::CanonicalGemm canonical = canonical_gemm(p, Operands{});
  if (r.family == detail::GemmFamily::Tiled) {
    const detail::SplitPlan sp = detail::plan_split(detail::tiled_part(g, r), r, d);
    return {detail::tiled_jit_request(r.tile, detail::packed_flags(canonical, r), sp.dp_tiles != sp.units)};
  }
  return {detail::gemv_jit_request(r, detail::gemv_form(detail::gemv_view(detail::packed_problem(g, r)), r))};
}

void DenseF32Family::run(const Problem& p, const Config& c, const Operands& o, const DeviceFacts& d,
                         cudaStream_t stream) const {
  detail::run_config(canonical_gemm(p, o), record(c), d, stream);
}

}  // namespace ops
}  // namespace tilegemm
