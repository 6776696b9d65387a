// Family skinny16: bf16/f16 products with a short side of at most 16 (kSkinny16MaxRows) on mma.sync
// tensor cores, the long operand streamed once (kernels/gemm/skinny_16bit.cuh): decode and the
// few-token or few-column products of a model, with the long operand stored along k or along its
// lines, the short one in any layout. Configs "skinny16" and "skinny16:k<N>" (N = 2, 4: k cut
// into N slices, one thread-block cluster per tile, summed in the kernel). The long operand must
// have 16-byte aligned rows;
// otherwise the product runs on wgmma, which packs it.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/config_text.hpp"
#include "ops/families/skinny16/skinny16_launch.hpp"
#include "ops/family.hpp"
#include "ops/fused_epilogue.hpp"
#include "ops/k_slices.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace ops {
namespace {

struct Skinny16Config {
  int splits = 1;  // k slices ("k<N>")
};

constexpr int kSplitChoices[] = {1, 2, kSkinny16MaxSplits};

// The canonical product C = op(A) op(B) as C(row, line) = sum_k X(row, k) W(line, k): X the short
// side (m when m is short, else n), with each operand's strides in elements (zero where the caller
// passes no leading dimensions: the model needs the shape and W's orientation only).
struct SkinnyView {
  bool m_short = true;
  bool w_k_major = true;  // W contiguous along k
  int64_t rows = 0, lines = 0;
  int64_t w_line = 0, w_k = 0, x_row = 0, x_k = 0, c_row = 0, c_col = 0;
};
bool m_is_short(const Problem& p) { return p.m <= kSkinny16MaxRows && (p.m <= p.n || p.n > kSkinny16MaxRows); }
SkinnyView view(const Problem& p, int64_t lda, int64_t ldb, int64_t ldc) {
  SkinnyView v;
  v.m_short = m_is_short(p);
  // op(A)(i, k) at i * lda + k, or k * lda + i when A is stored transposed; op(B)(k, j) at k * ldb + j,
  // or j * ldb + k.
  const int64_t a_i = p.trans_a ? 1 : lda, a_k = p.trans_a ? lda : 1;
  const int64_t b_j = p.trans_b ? ldb : 1, b_k = p.trans_b ? 1 : ldb;
  v.w_k_major = v.m_short ? p.trans_b : !p.trans_a;
  if (v.m_short) {
    v.rows = p.m, v.lines = p.n;
    v.x_row = a_i, v.x_k = a_k, v.w_line = b_j, v.w_k = b_k;
    v.c_row = ldc, v.c_col = 1;
  } else {
    v.rows = p.n, v.lines = p.m;
    v.x_row = b_j, v.x_k = b_k, v.w_line = a_i, v.w_k = a_k;
    v.c_row = 1, v.c_col = ldc;
  }
  return v;
}
int64_t tiles_of(int64_t lines) { return (lines + kernels::kSkinny16Lines - 1) / kernels::kSkinny16Lines; }

class Skinny16Family final : public Family {
 public:
  std::string_view name() const override { return "skinny16"; }
  bool serves(OpKind kind) const override { return kind == OpKind::Gemm; }
  bool claims(std::string_view text) const override { return text.substr(0, text.find(':')) == "skinny16"; }
  Config parse(const std::string& text, const char* what) const override {
    const std::string lowered = detail::lowered_text(text);
    for (int splits : kSplitChoices)
      if (lowered == print_splits(splits)) return Config(*this, Skinny16Config{splits});
    throw Error(ErrorCode::InvalidArgument, std::string(what) + ": '" + text +
                                                "' is not a skinny16 config (skinny16, or skinny16:k2 or skinny16:k4 "
                                                "for 2 or 4 k slices)");
  }
  std::string print(const Config& c) const override { return print_splits(c.fields<Skinny16Config>().splits); }
  std::string runs_on(const DeviceFacts& d) const override {
    return needs_sm90a(d, "thread-block clusters, distributed shared memory");
  }
  std::string supports(const Problem& p) const override {
    if (p.kind != OpKind::Gemm) return "not a GEMM";
    const std::string types = sixteen_bit_gemm_types(p);
    if (!types.empty()) return types;
    if (std::min(p.m, p.n) > kSkinny16MaxRows)
      return "m and n are both above " + std::to_string(kSkinny16MaxRows) + ": not a skinny product";
    return "";
  }
  // Every split whose slices hold at least two stages of k (one split: always).
  std::vector<Config> candidates(const Problem& p, const DeviceFacts&) const override {
    std::vector<Config> out;
    for (int splits : kSplitChoices)
      if (splits == 1 || k_slices(p.k, splits, kernels::kSkinny16K).steps_per_split >= 2)
        out.push_back(Config(*this, Skinny16Config{splits}));
    return out;
  }
  std::vector<Config> neighbours(const Problem& p, const Config& c) const override {
    std::vector<Config> out;
    const int splits = c.fields<Skinny16Config>().splits;
    for (int s : {splits / 2, splits * 2})
      if (s >= 1 && s <= kSkinny16MaxSplits && k_slices(p.k, s, kernels::kSkinny16K).splits == s)
        out.push_back(Config(*this, Skinny16Config{s}));
    return out;
  }
  std::string can_implement(const Problem& p, const Config& c) const override {
    const std::string why = supports(p);
    if (!why.empty()) return why;
    const bool m_short = m_is_short(p);
    if ((m_short ? p.align_b : p.align_a) < 16)
      return std::string(m_short ? "B" : "A") +
             " (the long operand) must have 16-byte aligned rows: its address and leading dimension a multiple of 8 "
             "elements (other products run on wgmma, which packs it)";
    const int64_t limit = 2147483647;
    if (p.m > limit || p.n > limit || p.k > limit) return "m, n and k must each be below 2^31";
    const int splits = c.fields<Skinny16Config>().splits;
    const int64_t blocks = tiles_of(std::max(p.m, p.n)) * k_slices(p.k, splits, kernels::kSkinny16K).splits;
    if (blocks > limit) return "the grid of " + std::to_string(blocks) + " blocks exceeds 2^31 - 1";
    return "";
  }
  size_t workspace_bytes(const Problem&, const Config&, const Operands&, const DeviceFacts&) const override {
    return 0;
  }
  // The longer of two times: every byte at 85 % of the memory bandwidth, and the busiest SM's blocks
  // at what one SM streams: a block moves one 16 KB stage of W per barrier and ldmatrix/mma round,
  // ~37 GB/s with W stored along its lines, ~23 GB/s along k (each stage reads 256 bytes of 64 rows
  // far apart), at most ~60 GB/s with several (H200, 2026-11-28: 1 x 4096 x 14336 unsplit on 64
  // blocks 55 us along lines, 84 us along k). X is read again by every block (from L2, through
  // shared memory: counted like W). Plus a launch and pipeline fill (~4.5 us) and ~0.5 us per k
  // slice (the cluster's wait and sum, shorter pipelines); the tensor cores never limit it (16 rows:
  // 16 flops per byte of W).
  std::optional<Estimate> estimate(const Problem& p, const Config& c, const DeviceFacts& d) const override {
    const SkinnyView v = view(p, 0, 0, 0);
    const KSlices slices = k_slices(p.k, c.fields<Skinny16Config>().splits, kernels::kSkinny16K);
    const double tiles = static_cast<double>(tiles_of(v.lines));
    const double blocks = tiles * slices.splits;
    const int sms = std::max(1, d.sm_count);
    const double slice_k = std::min<double>(double(kernels::kSkinny16K) * slices.steps_per_split, double(p.k));
    const double block_bytes = 2.0 * (kernels::kSkinny16Lines + v.rows) * slice_k;
    const double busiest = std::ceil(blocks / sms);
    // Blocks per SM by shared memory; clusters of k slices leave some places unused, so a grid near
    // the resident limit runs a second round (2048 x 16 x 4096 in 8 slices: 16.1 us against 12.6
    // in 4, H200, 2026-11-28).
    const int row_groups = skinny16_row_slots(v.rows) / 8;
    const double resident = sms * std::max(1, 227 * 1024 / kernels::skinny16_smem_bytes(row_groups));
    const double rounds = blocks > 0.9 * resident ? 2.0 : 1.0;
    // The busiest SM's blocks run `rounds` at a time; a second block adds ~3/4 of one (1 x 11008 x 4096
    // with W along k: 2 blocks an SM at ~40 GB/s against one at 23; the exponent 0.8 puts 20 of 20
    // measured products x {1, 2, 4 slices} on their fastest split, 1.0 missed that one; H200,
    // 2026-11-29).
    const double per_block = v.w_k_major ? 23e9 : 37e9;
    const double busiest_us =
        busiest * block_bytes / std::min(std::pow(busiest / rounds, 0.8) * per_block, 60e9) * 1e6;
    const double bytes = 2.0 * v.lines * p.k + 2.0 * tiles * v.rows * p.k +
                         dtype_bytes(p.c_type) * double(v.rows) * v.lines * (p.beta_zero ? 1 : 2);
    const double memory_us = bytes / (0.85 * d.mem_bandwidth_gbs * 1e9) * 1e6;
    Estimate e;
    e.us = e.rank_us =
        4.5 + std::max(memory_us, busiest_us) + (slices.splits > 1 ? 0.5 * slices.splits : 0.0);
    e.why = "streams " + std::to_string(v.lines) + " lines of k once for " + std::to_string(v.rows) + " rows in " +
            std::to_string(static_cast<long long>(blocks)) + " blocks" +
            (slices.splits > 1 ? " (" + std::to_string(slices.splits) + " k slices in clusters)" : "");
    return e;
  }
  std::string config_class(const Problem& p, const Config& c, const DeviceFacts&) const override {
    const int splits = c.fields<Skinny16Config>().splits;
    return k_slices(p.k, splits, kernels::kSkinny16K).splits > 1 ? "split-k" : "skinny";
  }
  std::vector<detail::JitRequest> run_time_kernels(const Problem&, const Config&, const DeviceFacts&) const override {
    return {};
  }
  bool fuses_epilogue() const override { return true; }
  void run(const Problem& p, const Config& c, const Operands& o, const DeviceFacts&,
           cudaStream_t stream) const override {
    const SkinnyView v = view(p, o.lda, o.ldb, o.ldc);
    const KSlices slices = k_slices(p.k, c.fields<Skinny16Config>().splits, kernels::kSkinny16K);
    kernels::Skinny16Params k{};
    k.w = v.m_short ? o.b : o.a;
    k.x = v.m_short ? o.a : o.b;
    k.c = o.c;
    k.w_line = v.w_line, k.w_k = v.w_k, k.x_row = v.x_row, k.x_k = v.x_k, k.c_row = v.c_row, k.c_col = v.c_col;
    k.rows = static_cast<int>(v.rows);
    k.lines = static_cast<int>(v.lines);
    k.k = static_cast<int>(p.k);
    k.splits = slices.splits;
    k.k_per_split = kernels::kSkinny16K * slices.steps_per_split;
    k.x_form = x_form(v, k.x, p.k);
    k.alpha = o.alpha;
    k.beta = p.beta_zero ? 0.0f : o.beta;
    // The kernel's C(row, line): rows of X, lines of W; with n short X is B and its rows are C's columns.
    k.epi = fused_epilogue(p.bias, o.bias, p.bias_type, p.activation, !v.m_short);
    launch_skinny16(k, p.a_type, p.c_type, stream);
  }

 private:
  static std::string print_splits(int splits) {
    return splits > 1 ? "skinny16:k" + std::to_string(splits) : "skinny16";
  }
  // How the kernel can copy X (the short operand): 16 bytes at a time along k or along its rows where
  // the address and the other stride allow it, else element by element.
  static kernels::Skinny16X x_form(const SkinnyView& v, const void* x, int64_t k) {
    const bool aligned = reinterpret_cast<uintptr_t>(x) % 16 == 0;
    if (aligned && v.x_k == 1 && (v.rows == 1 || v.x_row % 8 == 0)) return kernels::Skinny16X::KMajor;
    if (aligned && v.x_row == 1 && (k == 1 || v.x_k % 8 == 0)) return kernels::Skinny16X::RowMajor;
    return kernels::Skinny16X::Strided;
  }
};

}  // namespace

std::unique_ptr<Family> make_skinny16_family() { return std::make_unique<Skinny16Family>(); }

}  // namespace ops
}  // namespace tilegemm
