// A GEMM call (tilegemm::GemmArgs, checked) in the operation model's terms: the canonical problem and
// the operands of its batch 0. Column-major C = op(A) op(B) is row-major C^T = op(B)^T op(A)^T over
// the same memory, with the operands swapped and each keeping its op.
#pragma once
#include "ops/problem.hpp"
#include "tilegemm/gemm.hpp"

namespace tilegemm {
namespace ops {

struct GemmCall {
  Problem problem;
  Operands operands;  // batch 0
  // Element offsets from one batch to the next in the canonical operands (A and B swapped for
  // column-major calls).
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
};

GemmCall gemm_call(const GemmArgs& args, const GemmOptions& options);

// The operands of batch `b`.
Operands batch_operands(const GemmCall& call, int64_t b);

}  // namespace ops
}  // namespace tilegemm
