// A BSR product (tilegemm::bsr_xwt / bsr_wx, checked) in the operation model's terms: the problem with
// W's block facts, and the operands (X, W, Y).
#pragma once
#include <cstdint>

#include "ops/problem.hpp"

namespace tilegemm {
namespace ops {

struct BsrCall {
  Problem problem;
  Operands operands;
};

// m x n x k of the public product; W is n x k (xwt) or m x k (wx).
BsrCall bsr_call(OpKind kind, int64_t m, int64_t n, int64_t k, float alpha, const float* x, int64_t ldx,
                 const DeviceBsrMatrix& w, float beta, float* y, int64_t ldy);

}  // namespace ops
}  // namespace tilegemm
