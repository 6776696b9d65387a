// A GEMM call (tilegemm::GemmArgs, checked) in the operation model's terms: the canonical problem (its
// batch the call's) and the operands of its batch 0 with the batch strides. Column-major C = op(A) op(B) is row-major C^T = op(B)^T op(A)^T over
// the same memory, with the operands swapped and each keeping its op.
#pragma once
#include "ops/problem.hpp"
#include "tilegemm/gemm.hpp"

namespace tilegemm {
namespace ops {

struct GemmCall {
  Problem problem;
  // Batch 0; stride_a, stride_b, stride_c are the canonical operands' (A and B swapped for
  // column-major calls), 0 with one batch.
  Operands operands;
};

GemmCall gemm_call(const GemmArgs& args, const GemmOptions& options);

// The operands of batch `b`.
Operands batch_operands(const GemmCall& call, int64_t b);

}  // namespace ops
}  // namespace tilegemm
