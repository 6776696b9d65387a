#include "ops/keys.hpp"

#include <cstdio>

namespace tilegemm {
namespace ops {

namespace {

// The BSR products' key, the text the BSR tuner has stored since its first database.
std::string bsr_problem_key(const Problem& p) {
  const bool x16 = bsr_x_vec(p) && bsr_w_vec(p), y16 = bsr_y_vec(p);
  char buf[200];
  std::snprintf(buf, sizeof buf, "bsr %s %s %lldx%lldx%lld b%dx%d nnzb%lld long%lld x%d y%d beta%d",
                p.kind == OpKind::BsrXwt ? "xwt" : "wx", dtype_text(p).c_str(), static_cast<long long>(p.m),
                static_cast<long long>(p.n), static_cast<long long>(p.k), p.bsr.block_r, p.bsr.block_c,
                static_cast<long long>(p.bsr.nnzb), static_cast<long long>(p.bsr.longest_row), x16 ? 16 : 4,
                y16 ? 16 : 4, p.beta_zero ? 0 : 1);
  return buf;
}

}  // namespace

std::string problem_key(const Problem& p) {
  if (p.kind != OpKind::Gemm) return bsr_problem_key(p);
  auto copies = [&](DType t, int align, int pitch_align) {
    const bool shifted = align < 16 && pitch_align == 16;
    if (t == DType::F32 || t == DType::TF32) return std::string(align == 16 ? "16" : shifted ? "4s" : "4");
    return std::to_string(align) + (shifted ? "s" : "");
  };
  const bool shift_a = p.align_a < 16 && p.pitch_align_a == 16, shift_b = p.align_b < 16 && p.pitch_align_b == 16;
  const bool same_shift = shift_a && shift_b && p.offset_a == p.offset_b;
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s %s %lldx%lldx%lld %c%c a%s b%s%s beta%d", to_string(p.kind), dtype_text(p).c_str(),
                static_cast<long long>(p.m), static_cast<long long>(p.n), static_cast<long long>(p.k),
                p.trans_a ? 'T' : 'N', p.trans_b ? 'T' : 'N', copies(p.a_type, p.align_a, p.pitch_align_a).c_str(),
                copies(p.b_type, p.align_b, p.pitch_align_b).c_str(), same_shift ? " same-shift" : "",
                p.beta_zero ? 0 : 1);
  std::string key = buf;
  if (p.batch > 1) key += " batch" + std::to_string(p.batch);
  if (!p.plain_epilogue()) {
    key += " epi=";
    if (p.bias != BiasKind::None) key += std::string(to_string(p.bias)) + (p.activation != Activation::None ? "+" : "");
    if (p.activation != Activation::None) key += to_string(p.activation);
  }
  return key;
}

Problem plain_single(const Problem& p) {
  Problem q = p;
  q.batch = 1;
  q.bias = BiasKind::None;
  q.bias_type = DType::F32;
  q.activation = Activation::None;
  return q;
}

OpKind key_kind(const std::string& key) {
  if (key.compare(0, 8, "bsr xwt ") == 0) return OpKind::BsrXwt;
  if (key.compare(0, 7, "bsr wx ") == 0) return OpKind::BsrWx;
  return OpKind::Gemm;
}

}  // namespace ops
}  // namespace tilegemm
