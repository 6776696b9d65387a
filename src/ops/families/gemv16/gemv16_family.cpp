// Family gemv16: decode products in bf16/f16 (kernels/gemm/gemv_16bit.cuh), where one of m and n is
// at most 4 (kGemv16MaxRows) and the other operand is read once at the memory bandwidth: C = op(A) op(B)
// with A and B K-major (row-major A = A, B stored as B^T: torch's x @ W^T), rows 16-byte aligned,
// k a multiple of 8. Config "gemv16". Other layouts and alignments run on wgmma.
#include <algorithm>

#include "core/config_text.hpp"
#include "ops/families/gemv16/gemv16_launch.hpp"
#include "ops/family.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace ops {
namespace {

struct Gemv16Config {};


class Gemv16Family final : public Family {
 public:
  std::string_view name() const override { return "gemv16"; }
  bool serves(OpKind kind) const override { return kind == OpKind::Gemm; }
  bool claims(std::string_view text) const override { return text.substr(0, text.find(':')) == "gemv16"; }
  Config parse(const std::string& text, const char* what) const override {
    if (detail::lowered_text(text) == "gemv16") return Config(*this, Gemv16Config{});
    throw Error(ErrorCode::InvalidArgument, std::string(what) + ": '" + text + "' is not a gemv16 config (gemv16)");
  }
  std::string print(const Config&) const override { return "gemv16"; }
  std::string supports(const Problem& p) const override {
    if (p.kind != OpKind::Gemm) return "not a GEMM";
    const std::string types = sixteen_bit_gemm_types(p);
    if (!types.empty()) return types;
    if (std::min(p.m, p.n) > kGemv16MaxRows)
      return "m and n are both above " + std::to_string(kGemv16MaxRows) + ": not a skinny product";
    return "";
  }
  std::vector<Config> candidates(const Problem&, const DeviceFacts&) const override {
    return {Config(*this, Gemv16Config{})};
  }
  std::vector<Config> neighbours(const Problem&, const Config&) const override { return {}; }
  std::string can_implement(const Problem& p, const Config&) const override {
    const std::string why = supports(p);
    if (!why.empty()) return why;
    if (p.trans_a || !p.trans_b)
      return "A and B must both be contiguous along k (row-major: op(A) = N, op(B) = T); other layouts run on wgmma";
    if (p.k % 8 != 0) return "k must be a multiple of 8 (16-byte loads)";
    if (p.align_a < 16 || p.align_b < 16) return "A's and B's rows must be 16-byte aligned";
    if (p.m > 2147483647 || p.n > 2147483647 || p.k > 2147483647) return "m, n and k must each be below 2^31";
    return "";
  }
  size_t workspace_bytes(const Problem&, const Config&, const Operands&, const DeviceFacts&) const override {
    return 0;
  }
  // The long operand and C at 85 % of the memory bandwidth (the measured copy rate of an H100 is
  // ~90 % of its nominal bandwidth), or the CUDA-core FMAs (each also converts its X element: half
  // the FP32 rate), plus a launch.
  std::optional<Estimate> estimate(const Problem& p, const Config&, const DeviceFacts& d) const override {
    const double rows = static_cast<double>(std::min(p.m, p.n)), lines = static_cast<double>(std::max(p.m, p.n));
    const double bytes = 2.0 * (rows + lines) * p.k + dtype_bytes(p.c_type) * rows * lines * (p.beta_zero ? 1 : 2);
    const double memory_us = bytes / (0.85 * d.mem_bandwidth_gbs * 1e9) * 1e6;
    const double fma_us = 2.0 * rows * lines * p.k / (0.5 * 2.0 * 128 * 1.755e9 * std::max(1, d.sm_count)) * 1e6;
    Estimate e;
    e.us = e.rank_us = 3.0 + std::max(memory_us, fma_us);
    e.why = "streams " + std::to_string(static_cast<long long>(lines)) + " lines of k once for " +
            std::to_string(static_cast<long long>(rows)) + " rows";
    return e;
  }
  std::string config_class(const Problem&, const Config&, const DeviceFacts&) const override { return "gemv"; }
  std::vector<detail::JitRequest> run_time_kernels(const Problem&, const Config&, const DeviceFacts&) const override {
    return {};
  }
  void run(const Problem& p, const Config&, const Operands& o, const DeviceFacts& d,
           cudaStream_t stream) const override {
    kernels::Gemv16Params g{};
    // C(i, j) at i * ldc + j. m short: X = A, lines of W = B's rows (j); else X = B, lines = A's rows (i).
    const bool m_short = p.m <= kGemv16MaxRows;
    g.x = m_short ? o.a : o.b;
    g.w = m_short ? o.b : o.a;
    g.x_ld = m_short ? o.lda : o.ldb;
    g.w_ld = m_short ? o.ldb : o.lda;
    g.rows = static_cast<int>(m_short ? p.m : p.n);
    g.lines = static_cast<int>(m_short ? p.n : p.m);
    g.c = o.c;
    g.c_row = m_short ? o.ldc : 1;
    g.c_col = m_short ? 1 : o.ldc;
    g.k = static_cast<int>(p.k);
    g.alpha = o.alpha;
    g.beta = p.beta_zero ? 0.0f : o.beta;
    launch_gemv16(g, p.a_type, p.c_type, std::max(1, d.sm_count), stream);
  }
};

}  // namespace

std::unique_ptr<Family> make_gemv16_family() { return std::make_unique<Gemv16Family>(); }

}  // namespace ops
}  // namespace tilegemm
