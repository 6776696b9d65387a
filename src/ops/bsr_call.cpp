#include "ops/bsr_call.hpp"

#include <cstdint>

#include "tilegemm/bsr_gpu.hpp"

namespace tilegemm {
namespace ops {

BsrCall bsr_call(OpKind kind, int64_t m, int64_t n, int64_t k, float alpha, const float* x, int64_t ldx,
                 const DeviceBsrMatrix& w, float beta, float* y, int64_t ldy) {
  BsrCall call;
  Problem& p = call.problem;
  p.kind = kind;
  p.m = m;
  p.n = n;
  p.k = k;
  const BsrView v = w.view();
  auto address = [](const void* ptr) { return static_cast<uint64_t>(reinterpret_cast<std::uintptr_t>(ptr)); };
  p.pitch_align_a = alignment_of(static_cast<uint64_t>(ldx) * 4);
  p.align_a = alignment_of(address(x) | static_cast<uint64_t>(p.pitch_align_a));
  p.align_b = alignment_of(address(v.block_data));
  p.pitch_align_b = p.align_b;
  p.align_c = alignment_of(address(y) | static_cast<uint64_t>(ldy) * 4);
  p.beta_zero = beta == 0.0f;
  p.bsr.block_r = v.block_rows;
  p.bsr.block_c = v.block_cols;
  p.bsr.block_rows = w.block_row_count();
  p.bsr.nnzb = w.nnzb();
  p.bsr.longest_row = w.max_row_blocks();
  Operands& o = call.operands;
  o.a = x;
  o.c = y;
  o.w = &w;
  o.lda = ldx;
  o.ldc = ldy;
  o.alpha = alpha;
  o.beta = beta;
  return call;
}

}  // namespace ops
}  // namespace tilegemm
