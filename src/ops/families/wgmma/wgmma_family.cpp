// Family wgmma: ladder level 8, 16-bit GEMM on Hopper tensor cores (kernels/gemm/08_wgmma_tma.cuh):
// A and B in bf16 or f16, FP32 accumulation, C in the input type or f32. Configs
// "wgmma:<BM>x<BN>x64:s4" for the compiled tiles, 128 x 256, 128 x 192, 128 x 128 and 192 x 128 (three
// consumer warpgroups), "wgmma:128x64x64:s8", and the 64-row tiles (one consumer warpgroup)
// "wgmma:64x32x64:s12", "wgmma:64x64x64:s13" and "wgmma:64x128x64:s8"; "wgmma:128x128x64:s6:pp" has the
// two consumer warpgroups take turns on whole tiles (ping-pong); ":c2" runs clusters of two blocks
// sharing B's tile (TMA multicast); ":k<N>" splits k (the slices' sums through workspace and a second
// kernel), ":kc<N>" too with the slices of a tile as one cluster summing through distributed shared
// memory (N up to 8, without ":c2" or ":pp"); ":t" computes C^T = B^T A^T (the operands trading
// places, transposed_problem), which the k slices' sum writes into C (":k<N>:t", ":kc<N>:t"): a
// product of few rows puts the long operand's lines on the tile's rows; TF32 also in one k slice,
// the kernel storing C^T's tiles into C (store_slice_transposed), where it reads an MN-major B as A
// through registers instead of copying it. Other stage counts and combinations
// (wgmma_schedule_problem says which are valid) compile at run time and print with ":jit", which
// also asks for a compiled schedule's run-time twin.
//
// Every layout and op combination (each operand K-major or MN-major in shared memory) and any
// alignment of 16-bit elements: an operand whose address or leading dimension is not a multiple of
// 16 bytes (which TMA cannot load) is first packed into workspace rows that are
// (kernels/gemm/pack_16bit.cuh); the user's data is only read. Strided batches run in one launch
// (runs_batches): the persistent grid walks the tiles of every batch, and packing, FP32 conversion
// and split-K's sums take one launch each for all batches (an operand of stride 0 is packed or
// converted once).
//
// The same class, made for FP32 operands (make_level8_family), is family wgmma-3xtf32 (its folder
// src/ops/families/wgmma_tf32x3/): FP32 A, B and C at FP32 accuracy by 3xTF32 with the FFMA guard
// (kernels/common/wgmma_tf32.cuh), configs "wgmma-3xtf32:128x128x32:s4" with ":c2", ":k<N>", ":kc<N>";
// and family wgmma-tf32 (src/ops/families/wgmma_tf32/): FP32 data as TF32, one product, only under
// math = tf32 (Math::Tf32), configs "wgmma-tf32:<BM>x<BN>x32:s4" with ":c2", ":k<N>", ":kc<N>", ":t".
#include <algorithm>
#include <utility>
#include <cmath>
#include <iterator>
#include <string>
#include <vector>

#include "core/config_text.hpp"
#include "core/workspace.hpp"
#include "dense/matrix_extent.hpp"
#include "ops/families/dense_f32/dense_f32_family.hpp"
#include "ops/families/wgmma/wgmma_family.hpp"
#include "ops/families/wgmma/wgmma_launch.hpp"
#include "ops/family.hpp"
#include "ops/fused_epilogue.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace ops {
namespace {

struct WgmmaConfig {
  WgmmaSchedule schedule;       // "<bm>x<bn>x64:s<stages>", ":pp", ":c2" in the text
  int splits = 1;               // k slices per tile (split-K, ":k<N>" or ":kc<N>")
  bool run_time = false;        // ":jit": the kernel compiled at run time (implied for a schedule not compiled ahead)
  bool sum_in_cluster = false;  // ":kc<N>": the slices summed inside a cluster (WgmmaLaunch::sum_in_cluster)
  bool transposed = false;      // ":t": C^T = B^T A^T computed and written into C (transposed_problem)
};
// "" when c's slices can be summed inside a cluster, else why not.
std::string cluster_sum_problem(const WgmmaConfig& c) {
  if (c.splits > kWgmmaMaxClusterSlices)
    return "k slices summed in a cluster (:kc) are at most " + std::to_string(kWgmmaMaxClusterSlices);
  if (c.schedule.cluster != 1) return "k slices summed in a cluster (:kc) take the cluster that :c2 shares B in";
  if (c.schedule.pingpong) return "k slices summed in a cluster (:kc) run one tile per block: not ping-pong (:pp)";
  if (!wgmma_sums_fit_stages(c.schedule))
    return "k slices summed in a cluster (:kc) keep the tile's FP32 sums in the stages: s3 or more";
  return "";
}

constexpr int kSplitChoices[] = {2, 4, 8, 16, 32, 64};

// The product as its transpose, C^T = op(B)^T op(A)^T (n x m): B's storage read as A, A's as B, each
// with the other orientation. A side of m rows of X against n lines of W, run this way, puts W's lines
// on the tile's 128 rows and X on its columns (the wgmma n side), where m on the rows would leave the
// tiles mostly padding (":t").
Problem transposed_problem(const Problem& p) {
  Problem t = p;
  std::swap(t.m, t.n);
  std::swap(t.a_type, t.b_type);
  t.trans_a = !p.trans_b;
  t.trans_b = !p.trans_a;
  std::swap(t.align_a, t.align_b);
  std::swap(t.pitch_align_a, t.pitch_align_b);
  std::swap(t.offset_a, t.offset_b);
  t.bias = transposed(p.bias);
  return t;
}
Operands transposed_operands(const Operands& o) {
  Operands t = o;
  std::swap(t.a, t.b);
  std::swap(t.lda, t.ldb);
  std::swap(t.stride_a, t.stride_b);
  return t;
}
// The products offered ":t" with split-K: a short m (X's rows, up to the widest tile's 64-column wgmma
// side) against a long n.
bool offers_transposed(const Problem& p) { return p.m <= 64 && p.n >= 4 * p.m; }
// "" when c may run C^T (":t") on operands `in`, else why not: the kernel stores C^T's tiles into C
// itself for TF32 only (its MN-major B read as C^T's register A); the others write C^T through
// split-K's sum.
std::string transposed_problem_text(const WgmmaConfig& c, WgmmaIn in) {
  if (in != WgmmaIn::TF32 && c.splits < 2) return "C^T (:t) is written by split-K's sum: it takes :k<N> or :kc<N>";
  return "";
}

// An operand as stored: `lines` lines of `inner` elements. A: m x k (MN-major: k x m); B: n x k
// (MN-major: k x n). It is packed (TMA reads only addresses and leading dimensions that are multiples
// of 16 bytes) unless `align` is 16.
// `inner` counts 16-bit halves (an FP32 element is two): the packing kernel moves 16-bit elements.
// `batches` copies of it (1 where every batch shares the operand), one after the other.
struct StoredOperand {
  int64_t lines, inner;
  bool packed;
  int64_t batches = 1;
  int64_t packed_stride() const { return lines * packed_ld(inner); }  // halves from one copy to the next
  size_t packed_bytes() const {  // rounded to 256 bytes, so the next one starts aligned
    return packed ? (static_cast<size_t>(batches * packed_stride()) * 2 + 255) / 256 * 256 : 0;
  }
};
StoredOperands stored(const Problem& p) {
  return stored_shapes(p.trans_a ? Op::T : Op::N, p.trans_b ? Op::T : Op::N, p.m, p.n, p.k);
}
int halves(const Problem& p) { return dtype_bytes(p.a_type) / 2; }
// A converted B (FP32: wgmma_converts_b) is never packed: the conversion reads it at any alignment.
// Canonical A is MN-major when trans_a, B when !trans_b. `batches`: the operand's matrices (p.batch,
// or 1 where its batch stride is 0).
StoredOperand stored_a(const Problem& p, int64_t batches) {
  const StoredMatrix a = stored(p).a;
  return {a.rows, a.cols * halves(p), p.align_a < 16, batches};
}
StoredOperand stored_b(const Problem& p, WgmmaIn in, int64_t batches) {
  const StoredMatrix b = stored(p).b;
  return {b.rows, b.cols * halves(p), p.align_b < 16 && !wgmma_converts_b(in, !p.trans_b), batches};
}

// The SMs of the H100 the rates in estimate() were measured on.
constexpr double kMeasuredSms = 132;

class WgmmaFamily final : public Family {
 public:
  // in: WgmmaIn::BF16 for the 16-bit family (BF16 or F16 operands, by the problem), TF32x3 for FP32.
  explicit WgmmaFamily(WgmmaIn in)
      : in_(in),
        name_(in == WgmmaIn::TF32x3 ? "wgmma-3xtf32" : in == WgmmaIn::TF32 ? "wgmma-tf32" : "wgmma"),
        bk_(kernels::wgmma_bk(in)) {}
  std::string_view name() const override { return name_; }
  bool serves(OpKind kind) const override { return kind == OpKind::Gemm; }
  bool runs_batches() const override { return true; }
  bool fuses_epilogue() const override { return true; }
  bool claims(std::string_view text) const override { return text.substr(0, text.find(':')) == name_; }
  Config parse(const std::string& text, const char* what) const override {
    const char* const examples =
        in_ == WgmmaIn::TF32x3
            ? "wgmma-3xtf32:128x128x32:s4, wgmma-3xtf32:128x128x32:s4:c2, each with :k2 ... :k64 for split-K "
              "(:kc2 ... :kc8 summed in a cluster); wgmma-3xtf32:128x128x32:s3:jit compiles at run time"
        : in_ == WgmmaIn::TF32
            ? "wgmma-tf32:128x256x32:s4, wgmma-tf32:128x256x32:s4:c2, wgmma-tf32:128x128x32:s4, each with :k2 ... "
              ":k64 for split-K (:kc2 ... :kc8 summed in a cluster) and :t for C^T; wgmma-tf32:128x256x32:s3:jit "
              "compiles at run time"
            : "wgmma:128x256x64:s4, wgmma:128x256x64:s4:c2, wgmma:128x192x64:s4, wgmma:192x128x64:s4, "
              "wgmma:128x128x64:s4, wgmma:128x64x64:s8, wgmma:128x128x64:s6:pp:c2, each "
                 "with :k2 ... :k64 for split-K (:kc2 ... :kc8 summed in a cluster; :k<N>:t computes C^T); "
                 "wgmma:128x128x64:s5:jit compiles at run time";
    const char* family = name_.c_str();
    const std::vector<std::string> f = detail::lowered_fields(text);
    int tile[3] = {0, 0, 0};
    if (f.size() < 3 || f[0] != name_ || !detail::numbers(f[1], "", 3, tile) || (tile[0] != 64 && tile[0] != 128 && tile[0] != 192) ||
        tile[2] != bk_)
      detail::config_text_error(what, text, family, "the tile is <64|128|192>x<columns>x" + std::to_string(bk_), examples);
    WgmmaConfig c;
    c.schedule = {tile[1], 1, false, 0, tile[0]};
    size_t i = 2;
    if (f[i].size() < 2 || f[i][0] != 's' || (c.schedule.stages = detail::small_number(f[i].substr(1))) <= 0)
      detail::config_text_error(what, text, family, "pipeline stages ':s<N>' follow the tile", examples);
    ++i;
    if (i < f.size() && f[i] == "pp") c.schedule.pingpong = true, ++i;
    if (i < f.size() && f[i].size() > 1 && f[i][0] == 'c')
      c.schedule.cluster = detail::small_number(f[i].substr(1)), ++i;
    if (i < f.size() && f[i].size() > 1 && f[i][0] == 'k') {
      c.sum_in_cluster = f[i][1] == 'c';
      c.splits = detail::small_number(f[i].substr(c.sum_in_cluster ? 2 : 1));
      if (std::find(std::begin(kSplitChoices), std::end(kSplitChoices), c.splits) == std::end(kSplitChoices))
        detail::config_text_error(what, text, family, "split-K takes :k2, :k4, ... :k64 (or :kc2 ... :kc8)",
                                  examples);
      ++i;
    }
    if (i < f.size() && f[i] == "t") c.transposed = true, ++i;
    if (i < f.size() && f[i] == "jit") c.run_time = true, ++i;
    if (i != f.size())
      detail::config_text_error(what, text, family,
                                "'" + f[i] + "' is not a field here (order: :pp :c2 :k<N> :t :jit)", examples);
    if (c.transposed && !transposed_problem_text(c, in_).empty())
      detail::config_text_error(what, text, family, transposed_problem_text(c, in_), examples);
    const std::string why = wgmma_schedule_problem(c.schedule, in_);
    if (!why.empty()) detail::config_text_error(what, text, family, why, examples);
    const std::string sum = c.sum_in_cluster ? cluster_sum_problem(c) : "";
    if (!sum.empty()) detail::config_text_error(what, text, family, sum, examples);
    if (!wgmma_compiled(c.schedule, in_)) c.run_time = true;
    return Config(*this, c);
  }
  std::string print(const Config& c) const override {
    const WgmmaConfig& f = c.fields<WgmmaConfig>();
    const WgmmaSchedule& sc = f.schedule;
    return name_ + ":" + std::to_string(sc.bm) + "x" + std::to_string(sc.bn) + "x" + std::to_string(bk_) + ":s" +
           std::to_string(sc.stages) +
           (sc.pingpong ? ":pp" : "") +
           (sc.cluster > 1 ? ":c" + std::to_string(sc.cluster) : "") +
           (f.splits > 1 ? (f.sum_in_cluster ? ":kc" : ":k") + std::to_string(f.splits) : "") +
           (f.transposed ? ":t" : "") + (f.run_time ? ":jit" : "");
  }
  std::string runs_on(const DeviceFacts& d) const override { return needs_sm90a(d, "wgmma, TMA"); }
  std::string supports(const Problem& p) const override {
    if (p.kind != OpKind::Gemm) return "not a GEMM";
    const std::string types = fp32() ? f32_operands(p) : sixteen_bit_gemm_types(p);
    if (!types.empty()) return types;
    if (in_ == WgmmaIn::TF32x3 && p.math == Math::FfmaOnly)
      return "math = ffma keeps the product on CUDA cores (this family runs tensor cores)";
    // TF32 is never chosen for FP32 data on its own (cuBLAS's and torch's rule too).
    if (in_ == WgmmaIn::TF32 && p.math != Math::Tf32)
      return "math = " + to_string(p.math) + ": TF32 products (10-bit mantissas) run only where the caller names "
             "math = tf32";
    return "";
  }
  // Both tiles; split-K where the work units (tiles x slices) still fit one wave and every slice keeps
  // 2 k steps or more (a second wave of half slices measured slower than one of whole tiles:
  // 1 x 14336 x 4096 on 112 tiles, 0.76 -> 0.59x cuBLAS, H100, 2026-11-28).
  // Clusters of two where m has two tile rows or more and B's tile more than 128 columns to share
  // (2048 x 16 x 4096 on 128 x 256 tiles in clusters: 0.51x cuBLAS; 128 x 128 alone: 0.78x);
  // ping-pong where blocks have several tiles, never split. Up to 8 slices are offered both ways,
  // through workspace and summed in a cluster.
  // A short m against a long n also as C^T (offers_transposed): the same splits on the transposed
  // product (":t"), through workspace, and summed in a cluster on 64-row tiles only (32 x 4096 x 4096
  // on 64 x 32 15.3 us against 16.9 through workspace, 64 x 4096 x 4096 on 64 x 64 16.9 against 18.0;
  // 128 x 64 tiles summed in clusters of 2 ran 1.3-6.6 us slower than through workspace on 32 and 64
  // rows, bf16, H200, 2026-11-29). TF32 with an MN-major B: every config also as C^T, split or not,
  // where B's lines are the register A and nothing is copied.
  std::vector<Config> candidates(const Problem& p, const DeviceFacts& d) const override {
    std::vector<Config> out = candidates_as_stored(p, d);
    const bool saves_b_copy = in_ == WgmmaIn::TF32 && !p.trans_b;
    if (offers_transposed(p) || saves_b_copy)
      for (const Config& c : candidates_as_stored(transposed_problem(p), d)) {
        WgmmaConfig f = c.fields<WgmmaConfig>();
        if ((f.splits < 2 && !saves_b_copy) || (f.sum_in_cluster && f.schedule.bm != 64)) continue;
        f.transposed = true;
        out.push_back(Config(*this, f));
      }
    return out;
  }
  std::vector<Config> candidates_as_stored(const Problem& p, const DeviceFacts& d) const {
    std::vector<Config> out;
    for (const WgmmaSchedule& sc : schedules()) {
      const int bm = sc.bm, bn = sc.bn, cluster = sc.cluster;
      if (cluster == 2 && (p.m <= bm || p.n <= 128)) continue;
      // 64-row tiles: 64 x 32 and 64 x 64 for as few columns as theirs (C^T's few rows; their wgmmas
      // are a quarter or half of 128 x 64's), 64 x 128 for 17-64 rows as stored, the long operand on
      // the tile's columns in one wave of tiles (64 x 14336 x 4096 on 112 of them 33.2 us, 45.4 on 128
      // x 128; 64 x 11008 x 4096 28.6 against 36.3 in 2 slices of 128 x 192). Not the other way round:
      // 64 x 64 as stored on 64 x 4096 x 14336 42.7 us against 36.8 as C^T; TF32 64 x 128 on 4096 x
      // 64 x 4096 NT 40.6 against 26.0 on 128 x 64 (half its columns padding); and up to 16 rows
      // skinny16 streams faster (16 x 14336 x 4096 32.9 against 35.3; bf16 and TF32, H200, 2026-11-29).
      // skinny16 is 16-bit only: TF32 takes 64 x 128 from 1 row (16 x 14336 x 4096 NT 65.5 us against
      // 110.0 on 128 x 128, 8 rows 67.6 against 118.7, H200, 2026-11-30).
      const bool skinny16_rows = p.m <= 16 && !fp32();
      if (bm == 64 && (bn < 128 ? p.n > bn : p.m > bm || skinny16_rows || p.n <= bn)) continue;
      const int64_t units = p.batch * ((p.m + bm * cluster - 1) / (bm * cluster)) * ((p.n + bn - 1) / bn);
      // Ping-pong needs two tiles per block to alternate (512 x 512 x 65536 in 8 slices, one unit per
      // block: 0.55-0.64x cuBLAS against 0.74x on 128 x 128 tiles alone).
      if (sc.pingpong && units * cluster <= d.sm_count) continue;
      out.push_back(of(sc, 1));
      // 64 x 128 over few rows as stored unsplit: 2 slices summed in clusters ran slower (64 x 6144 x
      // 4096 21.1 us against 19.4, 32 rows 21.2 against 20.9).
      if (sc.pingpong || (bm == 64 && bn >= 128)) continue;
      const int64_t steps = (p.k + bk_ - 1) / bk_;
      for (int splits : kSplitChoices) {
        if (units * splits * cluster > d.sm_count || steps < 2 * splits) continue;
        // 64-row tiles in 2 slices at most: 4 ran 2.1-3.0 us behind 2 summed in the cluster (2048 x
        // 16 x 4096 NT 13.1 and 15.0 against 11.0 us, 4096 x 16 x 4096 NT 17.5 and 21.2 against 14.5;
        // bf16, H200, 2026-11-29).
        if (bm == 64 && splits > 2) continue;
        out.push_back(of(sc, splits));
        // Summed in a cluster: only where the clusters all run at once (they leave SMs idle in each
        // GPC: 512 x 512 x 65536 in clusters of 8 ran in two waves, 0.43x cuBLAS against 0.75x, H200)
        // and each slice keeps 4 k steps (256^3 in 2 slices of 2: 9.1 us against 7.8 unsplit).
        const WgmmaConfig in_cluster{sc, splits, false, true};
        if (cluster_sum_problem(in_cluster).empty() && units <= d.clusters_at_once(splits) && steps >= 4 * splits)
          out.push_back(Config(*this, in_cluster));
      }
    }
    return out;
  }
  // One move: a stage more or fewer, another tile width (64 columns from 128), 128 or 192 rows (128
  // columns), clusters on or off, ping-pong on or off (its 128 x 128 tile), with the same split and,
  // for a larger tile, as many of the stages as its shared memory holds (128 x 64's eight are four
  // of 128 x 256); those not compiled ahead run at run time; a 64-row tile also to half or twice
  // its columns (32, 64 or 128) on 64 rows. And the same config with its slices summed the other way
  // (workspace or cluster), and as C^T or as stored.
  std::vector<Config> neighbours(const Problem&, const Config& c) const override {
    const WgmmaConfig& f = c.fields<WgmmaConfig>();
    const WgmmaSchedule s = f.schedule;
    std::vector<WgmmaSchedule> moves = {{s.bn, s.cluster, s.pingpong, s.stages - 1, s.bm},
                                        {s.bn, s.cluster, s.pingpong, s.stages + 1, s.bm},
                                        {s.bn == 128 ? 192 : 128, s.cluster, false, s.stages},
                                        {s.bn == 256 ? 192 : 256, s.cluster, false, s.stages},
                                        {s.bn == 128 ? 64 : s.bn, s.cluster, false, s.stages},
                                        {128, s.cluster, false, s.stages, s.bm == 128 ? 192 : 128},
                                        {s.bn, 3 - s.cluster, s.pingpong, s.stages, s.bm},
                                        {128, s.cluster, !s.pingpong, s.stages}};
    if (s.bm == 64)
      for (int width : {s.bn / 2, s.bn * 2})
        if (width >= 32 && width <= 128) moves.push_back({width, s.cluster, false, s.stages, 64});
    std::vector<Config> out;
    auto add = [&](const WgmmaConfig& n) {
      if (n.sum_in_cluster && !cluster_sum_problem(n).empty()) return;
      if (n.transposed && !transposed_problem_text(n, in_).empty()) return;
      out.push_back(Config(*this, n));
    };
    for (WgmmaSchedule m : moves) {
      if (m.bn != s.bn || m.bm != s.bm || m.pingpong != s.pingpong)
        while (m.stages > 2 && wgmma_smem_bytes(m, in_) > kWgmmaSmemLimit) --m.stages;
      if (m == s || !wgmma_schedule_problem(m, in_).empty()) continue;
      if (m.pingpong && f.splits > 1) continue;  // ping-pong alternates whole tiles
      add(WgmmaConfig{m, f.splits, !wgmma_compiled(m, in_), f.sum_in_cluster, f.transposed});
    }
    if (f.splits > 1) add(WgmmaConfig{s, f.splits, f.run_time, !f.sum_in_cluster, f.transposed});
    add(WgmmaConfig{s, f.splits, f.run_time, f.sum_in_cluster, !f.transposed});
    return out;
  }
  std::string can_implement(const Problem& p, const Config& c) const override {
    const std::string why = supports(p);
    if (!why.empty()) return why;
    if (c.fields<WgmmaConfig>().transposed) {
      // Outside TF32, one k slice leaves no sum to write C^T's tiles into C.
      if (in_ != WgmmaIn::TF32 && k_slices(p.k, c.fields<WgmmaConfig>().splits, bk_).splits < 2)
        return "C^T (:t) is written by split-K's sum, and k = " + std::to_string(p.k) + " makes one k slice";
      return can_implement(transposed_problem(p), as_stored(c));
    }
    const WgmmaConfig& f = c.fields<WgmmaConfig>();
    const int bytes = dtype_bytes(p.a_type);
    const std::string elements = std::to_string(bytes) + "-byte elements";
    if (p.align_a < bytes) return "A's address is not aligned to its " + elements;
    if (p.align_b < bytes) return "B's address is not aligned to its " + elements;
    if (!fp32() && !p.trans_b && !kernels::wgmma_mn_major_b_fits(f.schedule.bn, f.schedule.cluster))
      return "B is not transposed (stored k x n, MN-major): a " + std::to_string(f.schedule.bm) + " x " +
             std::to_string(f.schedule.bn) +
             " tile in clusters of " + std::to_string(f.schedule.cluster) +
             " would split its 64-column boxes between the blocks (run it alone, c1)";
    const int64_t limit = 2147483647;
    if (p.m > limit || p.n > limit || p.k > limit) return "m, n and k must each be below 2^31";
    // The kernel numbers its work units (batches x tiles x k slices) in 32 bits.
    const double units = double(p.batch) * std::ceil(p.m / double(f.schedule.bm * f.schedule.cluster)) *
                         std::ceil(p.n / double(f.schedule.bn)) * k_slices(p.k, f.splits, bk_).splits;
    if (units > double(limit))
      return "batch = " + std::to_string(p.batch) + " makes " + std::to_string(static_cast<long long>(units)) +
             " work units (batches x tiles x k slices), more than 2^31 - 1";
    // The packing kernel indexes 16-byte chunks in 32 bits (every batch's copy).
    if (stored_a(p, p.batch).packed_bytes() >= (size_t(1) << 35))
      return "A is not 16-byte aligned and spans 2^35 bytes or more over its batches: too large to pack for TMA";
    if (stored_b(p, in_, p.batch).packed_bytes() >= (size_t(1) << 35))
      return "B is not 16-byte aligned and spans 2^35 bytes or more over its batches: too large to pack for TMA";
    // FP32 B converted first (3xTF32's: twice its bytes): beyond kMaxPartsBytes the product is left to
    // the families that need no copies (level 7) rather than fail for memory.
    const size_t parts = b_parts_bytes(p, p.batch);
    if (parts > kMaxPartsBytes)
      return "B's TF32 copy would take " + std::to_string(parts >> 20) +
             " MiB of workspace, more than this family's " + std::to_string(kMaxPartsBytes >> 20) + " MiB";
    return "";
  }
  size_t workspace_bytes(const Problem& p, const Config& c, const Operands& o, const DeviceFacts& d) const override {
    if (c.fields<WgmmaConfig>().transposed)
      return workspace_bytes(transposed_problem(p), as_stored(c), transposed_operands(o), d);
    const WgmmaConfig& f = c.fields<WgmmaConfig>();
    const int64_t batches_a = wgmma_operand_batches(p.batch, o.stride_a),
                  batches_b = wgmma_operand_batches(p.batch, o.stride_b);
    return stored_a(p, batches_a).packed_bytes() + stored_b(p, in_, batches_b).packed_bytes() +
           b_parts_bytes(p, batches_b) +
           (f.sum_in_cluster ? 0 : wgmma_partial_bytes(p.m, p.n, p.k, f.splits, bk_, p.batch));
  }
  // Tensor-core time at the measured rate of the schedule (rate()) over whole waves of work units
  // (a tile's k slice), each with ~1 us of pipeline fill and epilogue, or the operands' bytes at
  // memory bandwidth, plus a launch; split-K adds its partial sums' traffic and the reduction's launch.
  std::optional<Estimate> estimate(const Problem& p, const Config& c, const DeviceFacts& d) const override {
    if (c.fields<WgmmaConfig>().transposed) {
      std::optional<Estimate> e = estimate_as_stored(transposed_problem(p), as_stored(c), d, true);
      if (e) e->why += " (C^T: the product transposed)";
      return e;
    }
    return estimate_as_stored(p, c, d, false);
  }
  // The estimate of c on p as stored; c_transposed: p is C^T's (C is p.n x p.m), whose tiles leave by
  // the C^T rules (wgmma_tma_stores_c_transposed) in one k slice.
  std::optional<Estimate> estimate_as_stored(const Problem& p, const Config& c, const DeviceFacts& d,
                                             bool c_transposed) const {
    const WgmmaConfig& f = c.fields<WgmmaConfig>();
    const int bm = f.schedule.bm, bn = f.schedule.bn, cluster = f.schedule.cluster;
    const KSlices slices = k_slices(p.k, f.splits, bk_);
    const double tiles =
        double(p.batch) * std::ceil(p.m / double(bm * cluster)) * cluster * std::ceil(p.n / double(bn));
    const double units = tiles * slices.splits;  // a block's share: a tile's k slice
    const bool in_cluster = f.sum_in_cluster && slices.splits > 1;
    const double waves = in_cluster
                             ? std::ceil(tiles / std::max(1, d.clusters_at_once(slices.splits)))
                             : std::ceil(units / std::max(cluster, d.sm_count / cluster * cluster));
    const double per_sm_flops = rate(f, p) / kMeasuredSms;
    const double slice_k = std::min<double>(double(bk_) * slices.steps_per_split, std::max<int64_t>(p.k, 1));
    const double tile_us = 1.0 + 2.0 * bm * bn * slice_k / per_sm_flops * 1e6;
    // Through workspace: the partial sums' traffic and the reduction's launch. Summed in a cluster: the
    // sums through shared memory, two cluster barriers and a cluster launch, fitted on 128 x 128 tiles
    // in clusters of 2 (H200, 2026-11-28): the split pays from ~8 k steps saved (1024^3 12.1 -> 11.8 us,
    // 1000^3 13.6 -> 14.8 with its ragged edges, 768^3 10.5 -> 10.8, 1024 x 1024 x 2048 17.1 -> 14.8,
    // 1024 x 768 x 3072 22.4 -> 17.3).
    // 64 x 32 tiles sum an eighth of those sums: 2 slices in the cluster ran 1.4-1.6 us ahead of the
    // workspace's reduction (16 to 32 rows as C^T, bf16, H200, 2026-11-29).
    const double partial_bytes = static_cast<double>(wgmma_partial_bytes(p.m, p.n, p.k, f.splits, bk_, p.batch));
    const double sum_share = bm == 64 ? double(bm) * bn / (128.0 * 128.0) : 1.0;
    const double reduce_us = in_cluster          ? 1.5 + 1.0 * sum_share * slices.splits
                             : partial_bytes > 0 ? 3.0 + 2.0 * partial_bytes / 2.5e12 * 1e6
                                                 : 0.0;
    // The cooperative tile's epilogue stops its tensor cores and, once the next stages are loaded, its
    // loads; ping-pong runs the other warpgroup's main loop meanwhile (65536 x 64 x 64: 14.2 against
    // 12.1 us, H200, 2026-11-28): C's tile at ~60 GB/s a block, once per wave, through the staged
    // stores; ~300 GB/s through TMA stores, which overlap the next tile (fitted on the C-bound batches
    // 8 x 4096 x 4096 x 128 and 32 x 2048 x 2048 x 128, 64 x 512^3 and 16 x 1024^3 in bf16, H200,
    // 2026-11-29: 128 x 256 tiles 95 us against ping-pong's 112).
    const bool tma_c =
        c_transposed ? wgmma_tma_stores_c_transposed(p.beta_zero, p.align_c == 16, p.m, p.c_type, slices.splits,
                                                     p.plain_epilogue())
                     : wgmma_tma_stores_c(p.beta_zero, p.align_c == 16, p.n, p.c_type, slices.splits, bn);
    const double epilogue_us = f.schedule.pingpong ? 0.0
                                                   : waves * double(bm) * std::min<int64_t>(bn, p.n) * dtype_bytes(p.c_type) /
                                                         (tma_c ? 300e9 : 60e9) * 1e6;
    // A converted FP32 B is read as its copy (3xTF32's: two planes) instead. Every batch counts its own
    // A and B (the problem does not say which are shared).
    const double batch = double(p.batch);
    const size_t b_parts = b_parts_bytes(p, p.batch);
    const double a_bytes = batch * dtype_bytes(p.a_type) * double(p.m * p.k);
    const double b_bytes = b_parts > 0 ? double(b_parts) : batch * dtype_bytes(p.b_type) * double(p.n * p.k);
    const double bytes = a_bytes + b_bytes + batch * dtype_bytes(p.c_type) * double(p.m) * p.n;
    // Packing reads and writes each packed operand once, and launches once more.
    const size_t packed = stored_a(p, p.batch).packed_bytes() + stored_b(p, in_, p.batch).packed_bytes();
    const double pack_us = packed > 0 ? 3.0 + 2.0 * packed / 3.0e12 * 1e6 : 0.0;
    // A converted B read once more and its copy written (split_b_tf32), one launch, at an
    // effective 1.5 TB/s fitted on products where it dominates (H200, 2026-11-28: 3xTF32's B on 128
    // and 256 x 1024 x 131072 in 8 slices 2.09 and 2.07 ms, 512 x 512 x 65536 0.49-0.62 ms).
    const double split_us = b_parts > 0 ? 3.0 + (b_parts + batch * 4.0 * p.n * p.k) / 1.5e12 * 1e6 : 0.0;
    // The memory floor: 3/4 of the bus bandwidth (H100: ~2.5 TB/s) with every SM streaming tiles,
    // proportionally less where SMs idle: with fewer tiles than SMs (1 x 11008 x 4096 on 86 tiles: 56
    // us measured, H100, 2026-11-28; the C-bound batches above on an H200's 4.8 TB/s: 2.8-3.0 TB/s of
    // C), and in a last partial wave (25088 x 128 x 1152: 196 tiles of 128 x 128 in two waves 22.7-23.9
    // us, 131 of 192 x 128 in one 21.3, H200, 2026-11-29).
    // 128 x 64 tiles over a few columns of a long product (n <= 64: W's lines on the tile's rows, as
    // ":t" puts them) stream from 64 of the 132 SMs what all of them would: 64 blocks moved 117 MB in
    // ~35 us (3.35 TB/s) on 32 x 4096 x 14336 as C^T in 2 slices, faster than 128 blocks in 4 (bf16,
    // H200, 2026-11-29). Wider tiles keep the proportional rule (192 x 128 on 32 x 11008 x 4096 as C^T,
    // 116 blocks: 36-38 us, as it estimates).
    // 64 x 32 tiles, half the lines a block, from ~80: 4096 x 32 x 4096 on 64 of them unsplit 16.2 us,
    // on 128 (2 slices summed in clusters) 14.5; 2048 x 16 x 4096 on 64 (2 slices) 11.0 (bf16, H200,
    // 2026-11-29).
    // 64 x 128 tiles over few rows as stored (the long operand on the tile's columns, 8 stages of its
    // 128 lines in flight) from ~56: 48 of them moved 50 MB in ~15 us on 64 x 6144 x 4096, 86 moved
    // 90 MB in ~25 us on 64 x 11008 x 4096, 112 moved 117 MB in ~30 us on 64 x 14336 x 4096 (bf16,
    // H200, 2026-11-29).
    const bool narrow_stream = bn <= 64 && p.n <= 64 && p.m >= 4 * p.n;
    const bool wide_stream = bm == 64 && bn >= 128 && p.m <= bm && p.n >= 4 * p.m;
    const double bus = d.bus_bytes_per_s();
    const double saturating =
        (narrow_stream ? (bm == 64 ? 80.0 : 64.0) / 132.0 : wide_stream ? 56.0 / 132.0 : 1.0) * std::max(1, d.sm_count);
    const double streaming = 0.75 * bus * std::min(1.0, units / (waves * saturating));
    // The tiles' stream from L2 into shared memory: per k step a block loads bm lines of A and its
    // share of B's planes (a cluster multicasts B), 128 bytes each, at kL2Rate for the whole device.
    // It bounds the narrow tiles: 128 x 64 at 4096^3 moves 3.2 GB in 278 us (11.5 TB/s), and 96 of
    // them on 1024 x 768 x 3072 run at the same total rate (H200, 2026-11-29).
    const double k_steps = std::ceil(std::max<int64_t>(p.k, 1) / double(bk_));
    const double l2_bytes =
        tiles * (bm + kernels::wgmma_b_planes(in_) * double(bn) / cluster) * k_steps * 128.0;
    const double l2_us = l2_bytes / kL2Rate * 1e6;
    // Tiles mostly padding take ~0.6 us a k step after a ~4 us start, whatever they compute: a side
    // of 16 or less (3/4 padding or more; 32 steps of 128 x 64 tiles in ~21 us on 16 x 4096 x 4096
    // NT, 8 steps in ~10 us on 2048 x 16 x 4096, where skinny16 streams the same operand in 17.4 and
    // 13.1 us), and up to 64 rows of the tile's 128 or 192 (half padding or more: 112 steps of 128 x
    // 64 tiles in 64-67 us on 32 x 4096 x 14336, against 39-42 us with the long operand on the tile's
    // rows, ":t", or on 128 x 256 tiles in 8 slices; bf16, H200, 2026-11-29).
    // 64 x 32 tiles: half their rows or 3/4 of their columns padding (16 rows as C^T on them: 32 steps
    // in 15.1 us, bf16, H200, 2026-11-29).
    // 64 x 128 tiles on half their rows keep their compute term: 0.22-0.23 us a k step, as on all
    // 64 rows (32 x 4096 x 14336 on 32 tiles, 224 steps in 54.4 us, bf16, H200, 2026-11-29).
    const bool mostly_padding = bm == 64 ? (2 * p.m <= bm && bn < 128) || 4 * p.n <= bn : p.m <= 64 || p.n <= 16;
    const double padded_us = mostly_padding ? waves * (4.0 + 0.6 * slices.steps_per_split) : 0.0;
    const double compute_us = waves * tile_us, memory_us = bytes / streaming * 1e6;
    Estimate e;
    e.us = 4.0 + pack_us + split_us + reduce_us + epilogue_us + std::max({compute_us, memory_us, l2_us, padded_us});
    // Where the memory floor hides the tensor-core time, the tile that computes less (fewer padded
    // rows and columns) ranks first: a tie-breaker of 5 % of the compute time, given to every config
    // (given only where the floor hid it, 128 x 128 cooperative tiles, whose compute just reached the
    // floor, outranked ping-pong on 25088 x 128 x 1152: 0.84x cuBLAS against 0.91x, H200, 2026-11-29).
    e.rank_us = e.us + 0.05 * compute_us;
    e.why = std::to_string(static_cast<long long>(tiles)) + " tiles" +
            (p.batch > 1 ? " (" + std::to_string(p.batch) + " batches)" : "") +
            (slices.splits > 1 ? " x " + std::to_string(slices.splits) + " k slices" : "") + " in " +
            std::to_string(static_cast<int>(waves)) + " waves" + (packed > 0 ? ", operands packed for TMA first" : "");
    return e;
  }
  std::string config_class(const Problem&, const Config&, const DeviceFacts&) const override { return name_; }
  std::vector<detail::JitRequest> run_time_kernels(const Problem& p, const Config& c,
                                                   const DeviceFacts& d) const override {
    if (!c.fields<WgmmaConfig>().run_time) return {};
    if (c.fields<WgmmaConfig>().transposed) return {wgmma_jit_request(launch_of(transposed_problem(p), as_stored(c), d))};
    return {wgmma_jit_request(launch_of(p, c, d))};
  }
  // ":t" runs the transposed product on the transposed operands; its stores (or the k slices' sum)
  // write C, and the epilogue stays C's.
  void run(const Problem& p, const Config& c, const Operands& o, const DeviceFacts& d,
           cudaStream_t stream) const override {
    const kernels::FusedEpilogue epi = fused_epilogue(p.bias, o.bias, p.bias_type, p.activation);
    if (c.fields<WgmmaConfig>().transposed)
      run_as_stored(transposed_problem(p), as_stored(c), transposed_operands(o), d, stream, epi, true);
    else
      run_as_stored(p, c, o, d, stream, epi, false);
  }

 private:
  void run_as_stored(const Problem& p, const Config& c, const Operands& o, const DeviceFacts& d, cudaStream_t stream,
                     const kernels::FusedEpilogue& epi, bool c_transposed) const {
    WgmmaLaunch l = launch_of(p, c, d);
    l.c_transposed = c_transposed;
    l.a = o.a;
    l.b = o.b;
    l.c = o.c;
    l.lda = o.lda;
    l.ldb = o.ldb;
    l.ldc = o.ldc;
    l.alpha = o.alpha;
    l.beta = p.beta_zero ? 0.0f : o.beta;
    l.stride_a = o.stride_a;
    l.stride_b = o.stride_b;
    l.stride_c = o.stride_c;
    l.epi = epi;
    const StoredOperand sa = stored_a(p, wgmma_operand_batches(p.batch, o.stride_a)),
                        sb = stored_b(p, in_, wgmma_operand_batches(p.batch, o.stride_b));
    // Packed operands, the converted FP32 B, then split-K's partial sums; freed in stream order after
    // the product.
    detail::Workspace packed(stream, workspace_bytes(p, c, o, d), 0);
    char* next = static_cast<char*>(packed.get()) + sa.packed_bytes() + sb.packed_bytes();
    const size_t b_parts = b_parts_bytes(p, sb.batches);
    if (b_parts > 0) l.b_parts = next;
    if (k_slices(p.k, l.splits, bk_).splits > 1 && !l.sum_in_cluster)
      l.partial = reinterpret_cast<float*>(next + b_parts);
    // Packed as 16-bit halves: leading dimensions and strides in halves, then back in elements.
    const int h = halves(p);
    if (sa.packed) {
      pack_16bit(o.a, o.lda * h, sa.lines, sa.inner, packed.get(), l.sm_count, stream, sa.batches, o.stride_a * h);
      l.a = packed.get();
      l.lda = packed_ld(sa.inner) / h;
      if (l.stride_a != 0) l.stride_a = sa.packed_stride() / h;
    }
    if (sb.packed) {
      void* at = packed.get() + sa.packed_bytes();
      pack_16bit(o.b, o.ldb * h, sb.lines, sb.inner, at, l.sm_count, stream, sb.batches, o.stride_b * h);
      l.b = at;
      l.ldb = packed_ld(sb.inner) / h;
      if (l.stride_b != 0) l.stride_b = sb.packed_stride() / h;
    }
    launch_wgmma(l, stream);
  }
  // A ":t" config's fields on the transposed problem: the same config, as stored.
  Config as_stored(const Config& c) const {
    WgmmaConfig f = c.fields<WgmmaConfig>();
    f.transposed = false;
    return Config(*this, f);
  }
  // The launch's fields that come from the problem and the config (not the operands).
  WgmmaLaunch launch_of(const Problem& p, const Config& c, const DeviceFacts& d) const {
    const WgmmaConfig& f = c.fields<WgmmaConfig>();
    WgmmaLaunch l;
    l.m = p.m;
    l.n = p.n;
    l.k = p.k;
    l.batch = p.batch;
    l.in = p.a_type;
    l.tf32_split = in_ == WgmmaIn::TF32x3;
    l.out = p.c_type;
    l.schedule = f.schedule;
    l.run_time = f.run_time;
    l.splits = f.splits;
    l.sum_in_cluster = f.sum_in_cluster;
    l.sm_count = std::max(1, d.sm_count);
    l.a_mn_major = p.trans_a;   // canonical A stored k x m
    l.b_mn_major = !p.trans_b;  // canonical B stored k x n
    return l;
  }
  // A schedule's rate (TFLOP/s on 132 SMs; H100, 2026-11-28). Big aligned squares (4096^3 to
  // 8192^3): 128 x 256 ~700 alone and in clusters of 2, ping-pong 128 x 128 ~650-690, 128 x 128 ~620.
  // Clusters halve B's traffic from L2, which the ragged and packed shapes need: 4095 x 4097 x 4093
  // NN 340 -> 429, 2501 x 3499 x 1777 NT 223 -> 257 (ping-pong 326 and 204; in clusters 433, 247).
  // Clusters are rated above the rest so that they win wherever the tiles fit alike. 128 x 192 and
  // 192 x 128 run big squares at 604-650 (against 128 x 256's 677-720 in the same runs; TF32 289-299
  // against 325, H200, 2026-11-29): they win where their tile counts fill the SMs and the others' do
  // not (alike, 128 x 192 first: 1024 x 2304 x 768 12.3 against 12.6 us). 128 x 64 tiles compute
  // like 128 x 128 where they run alone (1024^3 on 128 tiles 8.8-9.6 us against 11.1 on 64 of 128 x
  // 128) and are bounded by the L2 stream on big products (estimate's l2_us: 468-494 at 4096^3; TF32,
  // whose wgmma reads twice the shared-memory bytes per FLOP, 197 against 128 x 256's 335, H200,
  // 2026-11-29). TF32 with an MN-major A (wgmma's A from registers, row-major NN as C^T) ran 1-5 %
  // slower in clusters of 2 than alone (4096^3 and 8192^3 NN, three runs, H200, 2026-11-30): rated
  // below the tile alone there.
  double rate(const WgmmaConfig& f, const Problem& p) const {
    if (in_ == WgmmaIn::TF32x3) return f.schedule.cluster > 1 ? kTf32x3Rate * 1.02 : kTf32x3Rate;
    const bool register_a = in_ == WgmmaIn::TF32 && p.trans_a;
    const double cluster = f.schedule.cluster > 1 ? (register_a ? 0.98 : 1.02) : 1.0;
    if (in_ == WgmmaIn::TF32)
      return (f.schedule.bm == 192 || f.schedule.bn == 192 ? 0.92
              : f.schedule.bn == 128                       ? 0.9
              : f.schedule.bn == 64                        ? 0.6
              : f.schedule.bn == 32                        ? 0.3
                                                           : 1.0) *
             cluster * kTf32Rate;
    if (f.schedule.pingpong) return f.schedule.cluster > 1 ? 700e12 : 680e12;
    if (f.schedule.bm == 192 || f.schedule.bn == 192) return 640e12 * cluster;
    if (f.schedule.bn == 32) return 300e12;  // not measured where it computes: offered for few columns only
    if (f.schedule.bn <= 128) return 620e12 * cluster;
    return f.schedule.cluster > 1 ? 740e12 : 700e12;
  }
  Config of(const WgmmaSchedule& sc, int splits) const {
    return Config(*this, WgmmaConfig{sc, splits, false});
  }
  bool fp32() const { return kernels::wgmma_fp32_in(in_); }
  // The schedules compiled ahead of time for the family's operands.
  std::vector<WgmmaSchedule> schedules() const {
    if (in_ == WgmmaIn::TF32x3) return {std::begin(kWgmmaTf32x3Schedules), std::end(kWgmmaTf32x3Schedules)};
    if (in_ == WgmmaIn::TF32) return {std::begin(kWgmmaTf32Schedules), std::end(kWgmmaTf32Schedules)};
    return {std::begin(kWgmmaSchedules), std::end(kWgmmaSchedules)};
  }
  // The workspace of an FP32 B converted before the product (wgmma_converts_b; canonical B is MN-major
  // when !trans_b). `batches`: B's matrices converted (p.batch, or 1 where every batch shares it).
  size_t b_parts_bytes(const Problem& p, int64_t batches) const {
    return wgmma_converts_b(in_, !p.trans_b) ? wgmma_parts_bytes(p.n, p.k, in_, batches) : 0;
  }
  static constexpr size_t kMaxPartsBytes = size_t(4) << 30;
  // 3xTF32's rate (TFLOP/s of the FP32 product on 132 SMs), a third of the dense TF32 rate at most
  // (H200: 535 / 3 = 178): 112-121 at 4096^3 and 8192^3 since the main loop's uniform descriptors
  // (446e3c5; 98-109 before), H200, 2026-11-29. Clusters of two (B multicast) ran 0-5 % faster on the
  // same squares (their rate 2 % above).
  static constexpr double kTf32x3Rate = 115e12;
  // TF32's rate on 128 x 256 tiles (128 x 128: 10 % less), cuBLAS's TF32 on the big squares (H200,
  // 2026-11-28: 356-404 TFLOP/s at 4096^3 and 8192^3).
  static constexpr double kTf32Rate = 370e12;
  // Bytes a second from L2 into the SMs' shared memory, the whole device (estimate's l2_us).
  static constexpr double kL2Rate = 11.5e12;

  WgmmaIn in_;
  std::string name_;
  int bk_;
};

}  // namespace

std::unique_ptr<Family> make_level8_family(WgmmaIn in) { return std::make_unique<WgmmaFamily>(in); }
std::unique_ptr<Family> make_wgmma_family() { return make_level8_family(WgmmaIn::BF16); }

}  // namespace ops
}  // namespace tilegemm
