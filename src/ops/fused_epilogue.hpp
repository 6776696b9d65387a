// A kernel's fused-epilogue parameters from the operation model's (Problem::bias, bias_type,
// activation on the canonical C; Operands::bias): one conversion for every family that fuses it and
// for the elementwise pass after those that do not; and the one rule for a bias on a transposed C.
#pragma once
#include "kernels/common/fused_epilogue.hpp"
#include "tilegemm/gemm.hpp"
#include "tilegemm/types.hpp"

namespace tilegemm {
namespace ops {

// The bias kind of the transposed C: a row's bias runs along a column (a column-major C is the
// canonical C transposed; skinny16's C with n short is too).
inline BiasKind transposed(BiasKind b) {
  return b == BiasKind::PerRow ? BiasKind::PerColumn : b == BiasKind::PerColumn ? BiasKind::PerRow : b;
}

// `swap`: the kernel's C is the canonical C transposed (its rows are the canonical columns).
inline kernels::FusedEpilogue fused_epilogue(BiasKind bias, const void* vector, DType bias_type, Activation act,
                                             bool swap = false) {
  const BiasKind kind = swap ? transposed(bias) : bias;
  kernels::FusedEpilogue e{};
  e.bias = vector;
  e.bias_kind = kind == BiasKind::None     ? kernels::kBiasNone
                : kind == BiasKind::PerRow ? kernels::kBiasRow
                                           : kernels::kBiasColumn;
  e.bias_f32 = bias_type == DType::F32;
  e.activation = static_cast<int>(act);
  return e;
}

}  // namespace ops
}  // namespace tilegemm
