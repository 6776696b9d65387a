// Family bsr-tf32x3: BSR kernel 04, kernel 03's tiles on tensor cores with 3xTF32 (FP32 accuracy:
// each operand split into a TF32 part and its rest, three products; kernels/bsr/04_tiled_tf32x3.cuh).
// Configs "bsr-tf32x3:<ti>x<tj>x<kc>:w<a>x<b>:s<stages>[:jit]".
#include "ops/families/bsr_common/bsr_family.hpp"

namespace tilegemm {
namespace ops {
namespace {

// bench/fit_bsr_model.py, H100 80GB HBM3, 2026-11-27.
constexpr TiledCalibration kCalibration[] = {
    //               height launch ktiles 10k-steps GMAC  100 longest-row steps
    {OpKind::BsrXwt, 8, 0.9755, 9.319, 40.29, 0, 48.21},
    {OpKind::BsrXwt, 16, 1.45, 9.664, 22.38, 34.15, 71.26},
    {OpKind::BsrXwt, 32, 3.23, 9.403, 20.12, 38.78, 35.37},
    {OpKind::BsrXwt, 64, 4.983, 12.55, 46.88, 17.88, 55.24},
    {OpKind::BsrWx, 8, 2.109, 1.691, 40.81, 0, 47.07},
    {OpKind::BsrWx, 16, 2.374, 7.715, 19.51, 29.78, 73.06},
    {OpKind::BsrWx, 32, 4.235, 7.359, 21.53, 34.71, 33.69},
    {OpKind::BsrWx, 64, 5.843, 12.23, 46.25, 17.64, 61.07},
};

}  // namespace

std::unique_ptr<Family> make_bsr_tf32x3_family() {
  return std::make_unique<BsrTiledFamily>(detail::BsrFamily::TiledTf32x3, kCalibration);
}

}  // namespace ops
}  // namespace tilegemm
