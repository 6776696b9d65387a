#include "ops/keys.hpp"

#include <cstdio>

namespace tilegemm {
namespace ops {

std::string problem_key(const Problem& p) {
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
  return buf;
}

}  // namespace ops
}  // namespace tilegemm
