// Family bsr-small-m: BSR kernel 02, one warp per W row computing up to 16 dense columns per pass, so
// W streams once per 16 columns (kernels/bsr/02_small_m.cuh). Config "bsr-small-m".
#include <cmath>
#include <cstdio>

#include "ops/families/bsr_common/bsr_family.hpp"

namespace tilegemm {
namespace ops {
namespace {

// Past this batch the kernel reads W J / 16 times and the tiled families (once per 128-256 columns)
// win: the fastest family up to J = 128 with 4 x 4 blocks, never measured so past it (perf note B12).
constexpr int64_t kMaxBatch = 128;

// The model's coefficients per orientation (bench/fit_bsr_model.py, H100 80GB HBM3, 2026-11-27): the
// microseconds of a launch, of a pass over W, of a pass's 16 columns (the warps' reductions and
// stores: a pass of 1 or 8 columns costs 1/16 or 1/2 of it), of 10^6 stored elements per pass (W's
// stream), of 10^6 stored elements per dense column (X's loads and the FMAs) and of 1000 elements of
// the longest W row per pass (the last warp's serial work).
struct Calibration {
  OpKind kind;
  double launch_us, pass_us, pass_columns_us, per_m_elements_us, per_m_element_columns_us, longest_row_us;
};
constexpr Calibration kCalibration[] = {
    {OpKind::BsrXwt, 0, 1.553, 2.763, 0, 0.335, 4.295},
    {OpKind::BsrWx, 1.643, 0, 1.898, 0, 3.504, 0},
};

class BsrSmallMFamily final : public BsrFamilyBase {
 public:
  BsrSmallMFamily() : BsrFamilyBase(detail::BsrFamily::SmallM) {}
  std::vector<Config> candidates(const Problem& p, const DeviceFacts&) const override {
    if (bsr_dense_batch(p) > kMaxBatch) return {};
    return {default_config(p)};
  }
  std::optional<Estimate> estimate(const Problem& p, const Config&, const DeviceFacts& d) const override {
    const Calibration& cal = kCalibration[p.kind == OpKind::BsrXwt ? 0 : 1];
    const double j = static_cast<double>(bsr_dense_batch(p));
    const double passes = std::ceil(j / 16);
    const double columns = j == 1 ? 1 : j <= 8 ? 8 : 16;  // per pass (02_small_m.cuh)
    const double elements = static_cast<double>(p.bsr.nnzb) * p.bsr.block_r * p.bsr.block_c;
    const double scale = work_scale(d);
    const double stream_us = scale * (cal.per_m_elements_us * elements * passes + cal.per_m_element_columns_us * elements * j) / 1e6;
    const double row_us = cal.longest_row_us * static_cast<double>(p.bsr.longest_row) * p.bsr.block_c * passes / 1e3;
    Estimate e;
    const double pass_us = (cal.pass_us + cal.pass_columns_us * columns / 16) * passes;
    e.us = e.rank_us = cal.launch_us + pass_us + stream_us + row_us;
    char buf[200];
    std::snprintf(buf, sizeof buf, "%.1f us: launch %.1f + %.0f passes %.1f + stream %.1f + longest row %.1f", e.us,
                  cal.launch_us, passes, pass_us, stream_us, row_us);
    e.why = buf;
    return e;
  }
};

}  // namespace

std::unique_ptr<Family> make_bsr_small_m_family() { return std::make_unique<BsrSmallMFamily>(); }

}  // namespace ops
}  // namespace tilegemm
