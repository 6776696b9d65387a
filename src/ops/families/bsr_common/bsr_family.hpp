// What the BSR families (bsr_reduction, bsr_small_m, bsr_tiled, bsr_tf32x3) share: their configs are
// the BSR config record (sparse/config.hpp, one text grammar), their legality, plans and launch are
// sparse/launch.hpp's. Each family names its record's BsrFamily, lists its candidates and owns its
// model (bsr_model.hpp).
#pragma once
#include <string>
#include <vector>

#include "ops/families/bsr_common/bsr_model.hpp"
#include "ops/family.hpp"
#include "sparse/config.hpp"
#include "sparse/launch.hpp"

namespace tilegemm {
namespace ops {

// The sparse layer's view of a BSR problem: pointer-free without operands (legality, the model),
// with them what a launch needs (W's arrays and row lengths, X, Y, the scalars).
detail::BsrProblem bsr_problem(const Problem& p, const Operands* o = nullptr);
// W's block rows hold this many stored columns on average.
double stored_row_cols(const Problem& p);

class BsrFamilyBase : public Family {
 public:
  explicit BsrFamilyBase(detail::BsrFamily f) : family_(f) {}
  std::string_view name() const override { return detail::family_name(family_); }
  bool serves(OpKind kind) const override { return kind == OpKind::BsrXwt || kind == OpKind::BsrWx; }
  bool claims(std::string_view text) const override;
  Config parse(const std::string& text, const char* what) const override;
  std::string print(const Config& c) const override;
  std::string supports(const Problem& p) const override;
  std::vector<Config> neighbours(const Problem& p, const Config& c) const override;
  std::string can_implement(const Problem& p, const Config& c) const override;
  size_t workspace_bytes(const Problem& p, const Config& c, const Operands& o, const DeviceFacts& d) const override;
  std::string config_class(const Problem& p, const Config& c, const DeviceFacts& d) const override;
  std::vector<detail::JitRequest> run_time_kernels(const Problem& p, const Config& c,
                                                   const DeviceFacts& d) const override;
  void run(const Problem& p, const Config& c, const Operands& o, const DeviceFacts& d,
           cudaStream_t stream) const override;

  static const detail::BsrConfig& record(const Config& c) { return c.fields<detail::BsrConfig>(); }
  Config make(const detail::BsrConfig& r) const { return Config(*this, r); }
  // The config this family runs on `p` when named explicitly (BsrOptions::kernel) and the one its
  // model estimates: a tiled family's default schedule for the block shape.
  Config default_config(const Problem& p) const;

 protected:
  // Whether a tiled config is the family's default on `p` (the model is fitted to the defaults only).
  bool is_default(const Problem& p, const Config& c) const { return record(c) == record(default_config(p)); }

 private:
  detail::BsrFamily family_;
};

// A tiled BSR family (bsr_tiled: kernel 03, bsr_tf32x3: kernel 04), given its calibration rows.
// Candidates: its default schedule for the block shape (estimated), then the compiled extra
// schedules that fit the problem (the tuner measures them; Auto does not estimate them).
class BsrTiledFamily final : public BsrFamilyBase {
 public:
  template <size_t N>
  BsrTiledFamily(detail::BsrFamily f, const TiledCalibration (&rows)[N])
      : BsrFamilyBase(f), rows_(rows), row_count_(static_cast<int>(N)) {}
  std::vector<Config> candidates(const Problem& p, const DeviceFacts& d) const override;
  std::optional<Estimate> estimate(const Problem& p, const Config& c, const DeviceFacts& d) const override;

 private:
  const TiledCalibration* rows_;
  int row_count_;
};

}  // namespace ops
}  // namespace tilegemm
