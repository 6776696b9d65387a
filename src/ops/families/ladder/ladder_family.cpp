// Family ladder: the numbered optimization steps run as named (GemmOptions::kernel, docs/ladder.md),
// each on its own launcher: levels 1-5 (dense/launch_ladder.cu), level 6 with its Large/Small plan
// (launch_warp_tiled.cu), level 7 as its tensor-core config over whole tiles. Configs
// "ladder:<level>" ("ladder:06-warp-tiled", "ladder:6"). Auto never ranks them (no estimate), except
// level 5 where nothing else can run: A or B beyond the tiled kernels' 32-bit copies and no GEMV shape.
#include "dense/choose.hpp"
#include "dense/launch.hpp"
#include "ops/families/dense_f32/dense_f32_family.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace ops {
namespace {

struct LadderConfig {
  Kernel level = Kernel::Vectorized;
};

class LadderFamily final : public Family {
 public:
  std::string_view name() const override { return "ladder"; }
  bool serves(OpKind kind) const override { return kind == OpKind::Gemm; }
  bool claims(std::string_view text) const override { return text.substr(0, text.find(':')) == "ladder"; }
  Config parse(const std::string& text, const char* what) const override {
    const size_t colon = text.find(':');
    const std::string level_text = colon == std::string::npos ? "" : text.substr(colon + 1);
    const Kernel level = parse_kernel(level_text, what);  // names `what` on an unknown level
    if (level == Kernel::Auto)
      throw Error(ErrorCode::InvalidArgument, std::string(what) + ": '" + text + "' names no ladder level (1-" +
                                                  std::to_string(kNumLadderLevels) + ")");
    return of(level);
  }
  std::string print(const Config& c) const override { return "ladder:" + tilegemm::to_string(level(c)); }
  std::vector<Config> candidates(const Problem& p, const DeviceFacts&) const override {
    if (p.offsets_fit_32bit) return {};
    return {of(Kernel::Vectorized)};  // 64-bit offsets throughout
  }
  std::vector<Config> neighbours(const Problem&, const Config&) const override { return {}; }
  std::string supports(const Problem& p) const override {
    return p.kind != OpKind::Gemm ? "not a GEMM" : f32_operands(p);
  }
  std::string can_implement(const Problem& p, const Config& c) const override {
    const std::string why = supports(p);
    if (!why.empty()) return why;
    if (level(c) == Kernel::MmaTf32x3) {
      const detail::GemmProblem g = gemm_problem(p);
      return detail::can_implement(g, detail::level7_config(g));
    }
    if (level(c) == Kernel::WarpTiled && !p.offsets_fit_32bit)
      return "A and B may span at most " + std::to_string(detail::kMaxTiledExtent) +
             " elements each (32-bit offsets in its copies; C may be larger): use Kernel::Auto, which runs level 5 or "
             "the GEMV kernels on larger operands";
    return "";
  }
  size_t workspace_bytes(const Problem& p, const Config& c, const Operands&, const DeviceFacts& d) const override {
    if (level(c) != Kernel::MmaTf32x3) return 0;
    const detail::GemmProblem g = gemm_problem(p);
    return detail::workspace_bytes(g, detail::level7_config(g), d);
  }
  std::optional<Estimate> estimate(const Problem&, const Config&, const DeviceFacts&) const override {
    return std::nullopt;  // measured by `tilegemm bench`, never modelled
  }
  std::string config_class(const Problem&, const Config&, const DeviceFacts&) const override { return "ladder"; }
  std::vector<detail::JitRequest> run_time_kernels(const Problem&, const Config&, const DeviceFacts&) const override {
    return {};
  }
  void run(const Problem& p, const Config& c, const Operands& o, const DeviceFacts& d,
           cudaStream_t stream) const override {
    const detail::CanonicalGemm g = canonical_gemm(p, o);
    switch (level(c)) {
      case Kernel::WarpTiled: detail::launch_warp_tiled(g, detail::plan_warp_tiled(g, d.sm_count), stream); break;
      case Kernel::MmaTf32x3: detail::run_config(g, detail::level7_config(gemm_problem(p)), d, stream); break;
      default: detail::launch_ladder(level(c), g, stream); break;
    }
  }

 private:
  Config of(Kernel level) const { return Config(*this, LadderConfig{level}); }
  static Kernel level(const Config& c) { return c.fields<LadderConfig>().level; }
};

}  // namespace

std::unique_ptr<Family> make_ladder_family() { return std::make_unique<LadderFamily>(); }

}  // namespace ops
}  // namespace tilegemm
