#include "ops/problem.hpp"

#include <functional>

namespace tilegemm {
namespace ops {

const char* to_string(OpKind k) {
  switch (k) {
    case OpKind::Gemm: return "gemm";
    case OpKind::BsrXwt: return "bsr-xwt";
    case OpKind::BsrWx: return "bsr-wx";
  }
  return "?";
}

bool Problem::operator==(const Problem& o) const {
  return kind == o.kind && a_type == o.a_type && b_type == o.b_type && c_type == o.c_type && math == o.math &&
         m == o.m && n == o.n && k == o.k && batch == o.batch && trans_a == o.trans_a && trans_b == o.trans_b &&
         align_a == o.align_a && align_b == o.align_b && align_c == o.align_c && pitch_align_a == o.pitch_align_a &&
         pitch_align_b == o.pitch_align_b && offset_a == o.offset_a && offset_b == o.offset_b &&
         beta_zero == o.beta_zero && epilogue == o.epilogue && offsets_fit_32bit == o.offsets_fit_32bit && bsr == o.bsr &&
         bias == o.bias && bias_type == o.bias_type && activation == o.activation;
}

size_t ProblemHash::operator()(const Problem& p) const {
  // The small fields packed into one word (alignments and offsets are < 32), then mixed with the sizes.
  uint64_t bits = static_cast<uint64_t>(p.kind) | static_cast<uint64_t>(p.a_type) << 2 |
                  static_cast<uint64_t>(p.b_type) << 5 | static_cast<uint64_t>(p.c_type) << 8 |
                  static_cast<uint64_t>(p.math) << 11 | uint64_t(p.trans_a) << 13 | uint64_t(p.trans_b) << 14 |
                  uint64_t(p.beta_zero) << 15 | uint64_t(p.offsets_fit_32bit) << 16 |
                  static_cast<uint64_t>(p.epilogue) << 17 | static_cast<uint64_t>(p.align_a) << 20 |
                  static_cast<uint64_t>(p.align_b) << 25 | static_cast<uint64_t>(p.align_c) << 30 |
                  static_cast<uint64_t>(p.pitch_align_a) << 35 | static_cast<uint64_t>(p.pitch_align_b) << 40 |
                  static_cast<uint64_t>(p.offset_a) << 45 | static_cast<uint64_t>(p.offset_b) << 50 |
                  static_cast<uint64_t>(p.bias) << 55 | static_cast<uint64_t>(p.bias_type) << 57 |
                  static_cast<uint64_t>(p.activation) << 60;
  uint64_t h = bits * 0x9E3779B97F4A7C15ull;
  auto mix = [&h](int64_t v) { h = (h ^ static_cast<uint64_t>(v)) * 0x100000001B3ull + (h >> 29); };
  for (int64_t v : {p.m, p.n, p.k, p.batch}) mix(v);
  if (p.kind != OpKind::Gemm)
    for (int64_t v : {int64_t{p.bsr.block_r} << 32 | p.bsr.block_c, p.bsr.nnzb, p.bsr.longest_row}) mix(v);
  return static_cast<size_t>(h);
}

int alignment_of(uint64_t v) {
  int a = 16;
  while (a > 1 && v % a != 0) a /= 2;
  return a;
}

std::string sixteen_bit_gemm_types(const Problem& p) {
  if (p.a_type != DType::BF16 && p.a_type != DType::F16)
    return "A is " + tilegemm::to_string(p.a_type) + ": this family computes bf16 or f16 A and B";
  if (p.b_type != p.a_type)
    return "B is " + tilegemm::to_string(p.b_type) + ", A " + tilegemm::to_string(p.a_type) +
           ": A and B must have one type";
  if (p.c_type != p.a_type && p.c_type != DType::F32)
    return "C is " + tilegemm::to_string(p.c_type) + ": C must be " + tilegemm::to_string(p.a_type) + " or f32";
  return "";
}

std::string dtype_text(const Problem& p) {
  if (p.a_type == DType::F32 && p.b_type == DType::F32 && p.c_type == DType::F32)
    return p.math == Math::Tf32 ? "tf32" : "f32";
  return tilegemm::to_string(p.a_type) + "." + tilegemm::to_string(p.b_type) + "." + tilegemm::to_string(p.c_type);
}

}  // namespace ops
}  // namespace tilegemm
