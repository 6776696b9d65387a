// Family wgmma-tf32: FP32 products on TF32 tensor cores, one product of operands cut to TF32's 10-bit
// mantissa (truncated by the tensor core), FP32 accumulation: ladder level 8
// (kernels/gemm/08_wgmma_tma.cuh with WgmmaIn::TF32) reading the operands' tiles as TMA stores them:
// an MN-major A through registers, an MN-major B copied K-major first or, as C^T, read as A
// (unaligned operands packed, as the other families' are). Runs only under math = tf32
// (Math::Tf32), never for FP32 calls that did not ask. Its configs, model and launch are level 8's
// (wgmma/wgmma_family.cpp).
#include "ops/families/wgmma/wgmma_family.hpp"

namespace tilegemm {
namespace ops {

std::unique_ptr<Family> make_wgmma_tf32_family() { return make_level8_family(kernels::WgmmaIn::TF32); }

}  // namespace ops
}  // namespace tilegemm
