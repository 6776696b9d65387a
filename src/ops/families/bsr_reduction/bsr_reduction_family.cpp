// Family bsr-reduction: BSR kernel 01, one warp per output element (kernels/bsr/01_reduction.cuh):
// the ladder's first rung and the tests' reference kernel. No model: Auto never picks it; the tuner
// measures it for batches of up to 16 columns. Config "bsr-reduction".
#include "ops/families/bsr_common/bsr_family.hpp"

namespace tilegemm {
namespace ops {
namespace {

constexpr int64_t kMaxBatch = 16;  // a warp per output: the report's kernel for decode

class BsrReductionFamily final : public BsrFamilyBase {
 public:
  BsrReductionFamily() : BsrFamilyBase(detail::BsrFamily::Reduction) {}
  std::vector<Config> candidates(const Problem& p, const DeviceFacts&) const override {
    if (bsr_dense_batch(p) > kMaxBatch) return {};
    return {default_config(p)};
  }
  std::optional<Estimate> estimate(const Problem&, const Config&, const DeviceFacts&) const override {
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Family> make_bsr_reduction_family() { return std::make_unique<BsrReductionFamily>(); }

}  // namespace ops
}  // namespace tilegemm
