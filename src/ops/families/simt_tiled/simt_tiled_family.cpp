// Family simt-tiled: level 6's warp-tiled blocks on CUDA cores (FFMA) under the split-K / stream-K
// tile scheduler (kernels/gemm/split_tiled.cuh). Configs "tiled:BMxBNxBK:wWMxWN:tTMxTN:s<stages>:
// b<blocks>:k<splits>:<raster>[:pack-a|b|ab][:edge][:jit]".
#include "dense/choose.hpp"
#include "ops/families/dense_f32/dense_f32_family.hpp"

namespace tilegemm {
namespace ops {
namespace {

class SimtTiledFamily final : public DenseF32Family {
 public:
  std::string_view name() const override { return "simt-tiled"; }
  bool claims(std::string_view text) const override {
    return text.substr(0, text.find(':')) == "tiled" && text.find(":tf32x3") == std::string_view::npos;
  }
  std::vector<Config> candidates(const Problem& p, const DeviceFacts& d) const override {
    return wrap(detail::tiled_candidates(gemm_problem(p), d, /*tensor_cores=*/false));
  }

 protected:
  bool owns(const detail::GemmConfig& g) const override {
    return g.family == detail::GemmFamily::Tiled && g.tile.math == detail::TileMath::Ffma;
  }
  std::string declines(const Problem&) const override { return ""; }
};

}  // namespace

std::unique_ptr<Family> make_simt_tiled_family() { return std::make_unique<SimtTiledFamily>(); }

}  // namespace ops
}  // namespace tilegemm
