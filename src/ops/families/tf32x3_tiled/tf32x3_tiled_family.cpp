// Family tf32x3-tiled: level 7's blocks on tensor cores, FP32 accuracy by 3xTF32 split operands (with
// the FFMA recomputation of outputs the split cannot represent, docs/api.md), under the split-K /
// stream-K tile scheduler. Configs "tiled:BMxBNxBK:wWMxWN:tf32x3[c<N>]:s<stages>:b<blocks>:k<splits>:
// <raster>[:pack-...][:edge][:jit]". Declines math = ffma (GemmOptions::math = Math::FfmaOnly).
#include "dense/choose.hpp"
#include "ops/families/dense_f32/dense_f32_family.hpp"

namespace tilegemm {
namespace ops {
namespace {

class Tf32x3TiledFamily final : public DenseF32Family {
 public:
  std::string_view name() const override { return "tf32x3-tiled"; }
  bool claims(std::string_view text) const override {
    return text.substr(0, text.find(':')) == "tiled" && text.find(":tf32x3") != std::string_view::npos;
  }
  std::vector<Config> candidates(const Problem& p, const DeviceFacts& d) const override {
    return wrap(detail::tiled_candidates(gemm_problem(p), d, /*tensor_cores=*/true));
  }

 protected:
  bool owns(const detail::GemmConfig& g) const override {
    return g.family == detail::GemmFamily::Tiled && g.tile.math == detail::TileMath::Tf32x3;
  }
  std::string declines(const Problem& p) const override {
    return p.math == Math::FfmaOnly ? "math = ffma keeps the product on CUDA cores (this family runs tensor cores)" : "";
  }
};

}  // namespace

std::unique_ptr<Family> make_tf32x3_tiled_family() { return std::make_unique<Tf32x3TiledFamily>(); }

}  // namespace ops
}  // namespace tilegemm
