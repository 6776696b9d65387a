// Ladder level 8's family class (wgmma_family.cpp), made for one kind of operands: WgmmaIn::BF16 is
// family "wgmma" (BF16 or F16 operands, by the problem), WgmmaIn::TF32x3 family "wgmma-3xtf32" (FP32
// operands at FP32 accuracy, src/ops/families/wgmma_tf32x3/), WgmmaIn::TF32 family "wgmma-tf32" (FP32
// operands as TF32 under math = tf32, src/ops/families/wgmma_tf32/).
#pragma once
#include <memory>

#include "kernels/gemm/wgmma_in.hpp"
#include "ops/family.hpp"

namespace tilegemm {
namespace ops {

std::unique_ptr<Family> make_level8_family(kernels::WgmmaIn in);

}  // namespace ops
}  // namespace tilegemm
