// A kernel's fused-epilogue parameters from the operation model's (Problem::bias, bias_type,
// activation on the canonical C; Operands::bias): one conversion for every family that fuses it and
// for the elementwise pass after those that do not.
#pragma once
#include "kernels/common/fused_epilogue.hpp"
#include "tilegemm/gemm.hpp"
#include "tilegemm/types.hpp"

namespace tilegemm {
namespace ops {

// `swap`: the kernel's C is the canonical C transposed (its rows are the canonical columns).
inline kernels::FusedEpilogue fused_epilogue(BiasKind bias, const void* vector, DType bias_type, Activation act,
                                             bool swap = false) {
  kernels::FusedEpilogue e{};
  e.bias = vector;
  e.bias_kind = bias == BiasKind::None                     ? kernels::kBiasNone
                : (bias == BiasKind::PerRow) != swap ? kernels::kBiasRow
                                                           : kernels::kBiasColumn;
  e.bias_f32 = bias_type == DType::F32;
  e.activation = static_cast<int>(act);
  return e;
}

}  // namespace ops
}  // namespace tilegemm
