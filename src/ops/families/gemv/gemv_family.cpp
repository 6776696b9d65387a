// Family gemv: products with one output dimension <= 16 as matrix-vector streams over the long operand
// W (kernels/gemm/gemv_rows.cuh, gemv_rows_staged.cuh, gemv_cols.cuh, gemv_cols_one.cuh). Configs
// "gemv-rows:s<bound>:k<splits>[:pack-a|b]", "gemv-cols:s<bound>[:l<lanes>]:k<splits>[:jit]".
#include <algorithm>

#include "dense/choose.hpp"
#include "ops/families/dense_f32/dense_f32_family.hpp"

namespace tilegemm {
namespace ops {
namespace {

class GemvFamily final : public DenseF32Family {
 public:
  std::string_view name() const override { return "gemv"; }
  bool claims(std::string_view text) const override {
    const std::string_view prefix = text.substr(0, text.find(':'));
    return prefix == "gemv-rows" || prefix == "gemv-cols";
  }
  std::vector<Config> candidates(const Problem& p, const DeviceFacts&) const override {  // supports() checked M, N
    return wrap(detail::gemv_candidates(gemm_problem(p)));
  }

 protected:
  bool owns(const detail::GemmConfig& g) const override { return g.family != detail::GemmFamily::Tiled; }
  std::string declines(const Problem& p) const override {
    if (std::min(p.m, p.n) <= detail::kGemvMaxS) return "";
    return "a GEMV config needs M or N <= " + std::to_string(detail::kGemvMaxS) + " (the product is " + std::to_string(p.m) + " x " +
           std::to_string(p.n) + " in its row-major form)";
  }
};

}  // namespace

std::unique_ptr<Family> make_gemv_family() { return std::make_unique<GemvFamily>(); }

}  // namespace ops
}  // namespace tilegemm
