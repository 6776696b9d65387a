// Family wgmma-3xtf32: FP32 products at FP32 accuracy on ladder level 8 (kernels/gemm/08_wgmma_tma.cuh
// with WgmmaIn::TF32x3): the consumers split A (in registers) and B (into shared tiles) into TF32 big
// and small parts, three wgmma products per k step, FP32 adds between stages, and the FFMA guard of
// kernels/common/mma_tf32x3.cuh. Its configs, model and launch are level 8's (wgmma/wgmma_family.cpp).
#include "ops/families/wgmma/wgmma_family.hpp"

namespace tilegemm {
namespace ops {

std::unique_ptr<Family> make_wgmma_tf32x3_family() { return make_level8_family(kernels::WgmmaIn::TF32x3); }

}  // namespace ops
}  // namespace tilegemm
