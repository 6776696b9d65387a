// Family bsr-tiled: BSR kernel 03, output tiles of W rows x dense columns on CUDA cores (FFMA), a
// cp.async pipeline over each block row's stored blocks (kernels/bsr/03_tiled.cuh). Configs
// "bsr-tiled:<ti>x<tj>x<kc>:t<a>x<b>:s<stages>[:jit]".
#include "ops/families/bsr_common/bsr_family.hpp"

namespace tilegemm {
namespace ops {
namespace {

// bench/fit_bsr_model.py, H100 80GB HBM3, 2026-11-27.
constexpr TiledCalibration kCalibration[] = {
    //               height launch ktiles 10k-steps GMAC  100 longest-row steps
    {OpKind::BsrXwt, 8, 1.055, 7.619, 21.83, 0, 25.15},
    {OpKind::BsrXwt, 16, 1.257, 7.85, 24.84, 37.91, 68.98},
    {OpKind::BsrXwt, 32, 2.632, 6.386, 38.66, 0, 33.17},
    {OpKind::BsrXwt, 64, 4.719, 11.83, 67.29, 25.67, 74.05},
    {OpKind::BsrWx, 8, 2.088, 0, 19.83, 0, 26.59},
    {OpKind::BsrWx, 16, 1.985, 5.237, 22.29, 34.01, 70.85},
    {OpKind::BsrWx, 32, 3.195, 4.39, 35.18, 0, 32.8},
    {OpKind::BsrWx, 64, 4.79, 9.223, 61.98, 23.64, 77.18},
};

}  // namespace

std::unique_ptr<Family> make_bsr_tiled_family() {
  return std::make_unique<BsrTiledFamily>(detail::BsrFamily::Tiled, kCalibration);
}

}  // namespace ops
}  // namespace tilegemm
