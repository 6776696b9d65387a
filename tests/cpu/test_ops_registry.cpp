// The operation model's extension point without a GPU: a test-only kernel family, registered the way
// the built-in families are (Registry::add, through ScopedFamily), is parsed and printed by the
// registry, ranked and chosen by Auto, measured by the tuner and named by `bench --kernels`, without
// a line changed anywhere else. Also: the typed entry refuses dtypes no family implements, with each
// family's reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "ops/choose.hpp"
#include "ops/fused_epilogue.hpp"
#include "ops/gemm_call.hpp"
#include "ops/registry.hpp"
#include "gemm/gemm_options.hpp"
#include "tilegemm/error.hpp"
#include "tilegemm/gemm.hpp"
#include "tune/search.hpp"

namespace tilegemm {
namespace {

// Configs "toy:<n>": a family that can run products with M = 7 only, at an estimated 0.5 / n us
// (faster than any real kernel, so Auto takes it where it applies).
struct ToyConfig {
  int n = 1;
};

class ToyFamily final : public ops::Family {
 public:
  std::string_view name() const override { return "test-toy"; }
  bool serves(ops::OpKind kind) const override { return kind == ops::OpKind::Gemm; }
  bool claims(std::string_view text) const override { return text.substr(0, text.find(':')) == "toy"; }
  ops::Config parse(const std::string& text, const char* what) const override {
    const size_t colon = text.find(':');
    const int n = colon == std::string::npos ? 0 : std::atoi(text.c_str() + colon + 1);
    if (n < 1) throw Error(ErrorCode::InvalidArgument, std::string(what) + ": '" + text + "' has no positive n");
    return of(n);
  }
  std::string print(const ops::Config& c) const override { return "toy:" + std::to_string(n(c)); }
  std::string supports(const ops::Problem& p) const override { return p.m == 7 ? "" : "toy runs M = 7 only"; }
  std::vector<ops::Config> candidates(const ops::Problem&, const ops::DeviceFacts&) const override {
    return {of(1), of(2)};
  }
  std::vector<ops::Config> neighbours(const ops::Problem&, const ops::Config& c) const override {
    return {of(2 * n(c))};
  }
  std::string can_implement(const ops::Problem& p, const ops::Config&) const override {
    return p.m == 7 ? "" : "toy runs M = 7 only";
  }
  size_t workspace_bytes(const ops::Problem&, const ops::Config&, const ops::Operands&, const ops::DeviceFacts&) const override {
    return 0;
  }
  std::optional<ops::Estimate> estimate(const ops::Problem&, const ops::Config& c,
                                        const ops::DeviceFacts&) const override {
    const double us = 0.5 / n(c);
    return ops::Estimate{us, us, "toy model"};
  }
  std::string config_class(const ops::Problem&, const ops::Config&, const ops::DeviceFacts&) const override {
    return "toy";
  }
  std::vector<detail::JitRequest> run_time_kernels(const ops::Problem&, const ops::Config&,
                                                   const ops::DeviceFacts&) const override {
    return {};
  }
  void run(const ops::Problem&, const ops::Config&, const ops::Operands&, const ops::DeviceFacts&,
           cudaStream_t) const override {}

 private:
  ops::Config of(int value) const { return ops::Config(*this, ToyConfig{value}); }
  static int n(const ops::Config& c) { return c.fields<ToyConfig>().n; }
};

ops::Problem problem(int64_t m, int64_t n, int64_t k) {
  ops::Problem p;
  p.m = m, p.n = n, p.k = k;
  return p;
}

ops::DeviceFacts h100() {
  ops::DeviceFacts d;
  d.sm_count = 132;
  d.mem_bandwidth_gbs = 3352;
  return d;
}
ops::DeviceFacts h200_facts() {
  ops::DeviceFacts d = h100();
  d.mem_bandwidth_gbs = 4800;
  return d;
}
// A bf16 product (C bf16), B stored n x k (NT) when b_transposed.
ops::Problem bf16(int64_t m, int64_t n, int64_t k, bool b_transposed) {
  ops::Problem p = problem(m, n, k);
  p.a_type = p.b_type = p.c_type = DType::BF16;
  p.trans_b = b_transposed;
  return p;
}

std::vector<std::string> texts(const std::vector<ops::Ranked>& ranked) {
  std::vector<std::string> out;
  for (const ops::Ranked& r : ranked) out.push_back(r.config.text());
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(OpsRegistry, BuiltInFamiliesInEnumerationOrder) {
  std::vector<std::string> names;
  for (const ops::Family* f : ops::registry().families(ops::OpKind::Gemm)) names.emplace_back(f->name());
  EXPECT_EQ(names, (std::vector<std::string>{"simt-tiled", "tf32x3-tiled", "gemv", "ladder", "wgmma", "wgmma-3xtf32",
                                             "wgmma-tf32", "skinny16"}));
  // Every family parses what it prints, and the registry sends each text to its family.
  for (const char* text : {"tiled:128x256x32:w64x64:t16x8:s4:b1:k1:hilbert", "tiled:64x128x32:w32x64:tf32x3c4:s3:b2:k4:hilbert",
                           "gemv-cols:s1:l16:k2", "gemv-rows:s16:k4", "ladder:06-warp-tiled",
                           "wgmma:128x256x64:s4", "wgmma:128x256x64:s4:c2", "wgmma:128x256x64:s4:c2:k8",
                           "wgmma:128x128x64:s6:pp", "wgmma:128x128x64:s6:pp:c2:k4", "wgmma:128x128x64:s4:kc8",
                           "wgmma-3xtf32:128x128x32:s4", "wgmma-3xtf32:128x128x32:s4:c2:k4",
                           "wgmma-tf32:128x256x32:s4", "wgmma-tf32:128x128x32:s4:c2:k4"}) {
    const ops::Config c = ops::registry().parse(text, "test", ops::OpKind::Gemm);
    EXPECT_EQ(c.text(), text);
    EXPECT_EQ(ops::registry().parse(c.text(), "test", ops::OpKind::Gemm), c);
  }
  EXPECT_EQ(ops::registry().parse("ladder:7", "test", ops::OpKind::Gemm).text(), "ladder:07-mma-tf32x3");
  EXPECT_EQ(ops::registry().parse("TILED:64x64x32:w32x32:tf32x3:s4:b2:k1:hilbert", "t", ops::OpKind::Gemm).family()->name(),
            "tf32x3-tiled");
}

TEST(OpsRegistry, ATestFamilyIsParsedRankedChosenTunedAndBenched) {
  const ops::DeviceFacts d = h100();
  {
    ops::ScopedFamily toy(std::make_unique<ToyFamily>());
    // Parsed and printed by its family.
    const ops::Config c = ops::registry().parse("TOY:3", "--config", ops::OpKind::Gemm);
    EXPECT_EQ(c.family(), toy.get());
    EXPECT_EQ(c.text(), "toy:3");

    // Auto: ranked with the built-in families, chosen where its estimate is lowest and it applies.
    const ops::Ranking ranking = ops::rank(problem(7, 512, 512), d);
    ASSERT_FALSE(ranking.estimated.empty());
    EXPECT_EQ(ranking.best().text(), "toy:2");
    EXPECT_TRUE(contains(texts(ranking.estimated), "toy:1"));
    ops::ChoiceCache cache;
    EXPECT_EQ(ops::choose(problem(7, 512, 512), d, cache).text(), "toy:2");
    const ops::Config elsewhere = ops::choose(problem(8, 512, 512), d, cache);
    EXPECT_NE(elsewhere.family(), toy.get()) << elsewhere.text();
    // A tuned entry of the family wins where it can run the product.
    ops::ChoiceCache fresh;
    EXPECT_EQ(ops::choose(problem(7, 64, 64), d, fresh, [&](const ops::Problem&) { return c; }).text(), "toy:3");

    // The tuner measures its candidates and, with run-time configs, its neighbours.
    size_t compiled = 0;
    const std::vector<std::string> tuned = texts(detail::tuning_candidates(problem(7, 512, 512), d, true, &compiled));
    EXPECT_TRUE(contains(tuned, "toy:1"));
    EXPECT_TRUE(contains(tuned, "toy:2"));
    EXPECT_TRUE(contains(tuned, "toy:4")) << "toy:2's neighbour";
    EXPECT_EQ(tuned.front(), "toy:2");

    // bench --kernels names it (alone, or among "families"), and --config takes its configs.
    std::vector<std::string> families;
    EXPECT_EQ(tools::parse_kernel_list("auto,test-toy", "--kernels", &families), std::vector<Kernel>{Kernel::Auto});
    EXPECT_EQ(families, std::vector<std::string>{"test-toy"});
    families.clear();
    tools::parse_kernel_list("families", "--kernels", &families);
    EXPECT_EQ(families.back(), "test-toy");
    EXPECT_EQ(tools::parse_config_list({"Toy:5"}), std::vector<std::string>{"toy:5"});
  }
  // Gone with its scope.
  try {
    ops::registry().parse("toy:3", "--config", ops::OpKind::Gemm);
    ADD_FAILURE() << "toy:3 parsed after its family was removed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown family 'toy'"), std::string::npos) << e.what();
  }
  EXPECT_NE(ops::rank(problem(7, 512, 512), d).best().text().rfind("toy", 0), 0u);
}

// gemm() checks the typed arguments by their names, then refuses a dtype no family implements with
// every family's reason, before it needs a device (also on a machine without one).
TEST(TypedGemm, RefusesUnimplementedDtypesWithEachFamilysReason) {
  std::vector<uint16_t> a(64 * 64), b(64 * 64);
  std::vector<float> c(64 * 64);
  GemmArgs args;
  args.m = args.n = args.k = 64;
  args.a = MatrixArg{DType::BF16, a.data(), 64, 0};
  args.b = MatrixArg{DType::BF16, b.data(), 64, 0};
  args.c = OutputArg{DType::F16, c.data(), 64, 0};  // bf16 inputs, f16 output: no family computes it
  try {
    gemm(args);
    ADD_FAILURE() << "a bf16 x bf16 -> f16 product ran";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
    const std::string what = e.what();
    EXPECT_NE(what.find("no kernel family can run this gemm product (bf16.bf16.f16)"), std::string::npos) << what;
    EXPECT_NE(what.find("simt-tiled: A is bf16: this family computes F32 A, B and C only"), std::string::npos) << what;
    EXPECT_NE(what.find("tf32x3-tiled: A is bf16"), std::string::npos) << what;
    EXPECT_NE(what.find("gemv: A is bf16"), std::string::npos) << what;
    EXPECT_NE(what.find("ladder: A is bf16"), std::string::npos) << what;
    EXPECT_NE(what.find("wgmma: C is f16: C must be bf16 or f32"), std::string::npos) << what;
    EXPECT_NE(what.find("skinny16: C is f16"), std::string::npos) << what;
  }
  // Argument errors name the typed fields.
  args.a = MatrixArg{DType::F32, a.data(), 63, 0};
  try {
    gemm(args);
    ADD_FAILURE() << "lda 63 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("args.a.ld = 63 is too small"), std::string::npos) << e.what();
  }
  args.a.ld = 64;
  args.b.type = DType::F32;
  args.batch = 2;
  args.c.batch_stride = 100;  // C spans 4096 elements
  try {
    gemm(args);
    ADD_FAILURE() << "overlapping batches accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("args.c.batch_stride = 100 is smaller than C's extent (4096 elements)"),
              std::string::npos)
        << e.what();
  }
  args.a.type = static_cast<DType>(9);
  try {
    gemm(args);
    ADD_FAILURE() << "DType 9 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("args.a.type = 9 is not a DType value"), std::string::npos) << e.what();
  }
}

// The canonical problem's alignment facts hold for every batch: a batch stride that is not a multiple
// of 16 bytes takes the 16-byte copies (and the shifted ones) away; column-major swaps the operands.
TEST(GemmCall, AlignmentInBytesCoversEveryBatch) {
  alignas(16) static float buffer[4096];
  GemmArgs args;
  args.m = 32, args.n = 16, args.k = 8;
  args.a = {DType::F32, buffer, 8};        // 32 bytes a row
  args.b = {DType::F32, buffer + 1, 16};   // 4 bytes past a 16-byte boundary, 64-byte rows
  args.c = {DType::F32, buffer + 2048, 16};
  ops::Problem p = ops::gemm_call(args, GemmOptions{}).problem;
  EXPECT_EQ(p.align_a, 16);
  EXPECT_EQ(p.align_b, 4);
  EXPECT_EQ(p.pitch_align_b, 16);
  EXPECT_EQ(p.offset_b, 4);
  args.batch = 2;
  args.a.batch_stride = 256 + 1;  // the second A one float off the boundary
  args.b.batch_stride = 128 + 4;  // 16-byte multiple: B keeps its facts
  args.c.batch_stride = 512;
  p = ops::gemm_call(args, GemmOptions{}).problem;
  EXPECT_EQ(p.align_a, 4);
  EXPECT_EQ(p.pitch_align_a, 4);
  EXPECT_EQ(p.align_b, 4);
  EXPECT_EQ(p.pitch_align_b, 16);
  const ops::GemmCall call = ops::gemm_call(args, GemmOptions{});
  EXPECT_EQ(ops::batch_operands(call, 1).a, static_cast<const void*>(buffer + 257));
  EXPECT_EQ(ops::batch_operands(call, 1).c, static_cast<void*>(buffer + 2048 + 512));
  // Column-major: C^T = B^T A^T, the canonical A is the caller's B.
  args.layout = Layout::ColMajor;
  args.a.ld = 32, args.b.ld = 8, args.c.ld = 32;
  p = ops::gemm_call(args, GemmOptions{}).problem;
  EXPECT_EQ(p.m, 16);
  EXPECT_EQ(p.n, 32);
  EXPECT_EQ(p.offset_a, 4);
  EXPECT_EQ(p.align_b, 4);
}

}  // namespace
}  // namespace tilegemm

namespace tilegemm {
namespace {

// Ladder level 8 (family wgmma): Auto's only family for 16-bit A and B; K-contiguous operands with
// 16-byte rows only, every other form refused with the reason; its configs round-trip.
// Auto's family for 16-bit products by shape class: skinny16 streams the long operand of decode and
// skinny products (m or n <= 16) in either orientation of it; wgmma runs the rest, 32-row products,
// and every long operand without 16-byte rows.
TEST(Skinny16Family, TakesSkinnyProductsAndLeavesTheRestToWgmma) {
  const auto* base = reinterpret_cast<const uint16_t*>(uintptr_t(1) << 40);
  auto best_family = [&](int64_t m, int64_t n, int64_t k, Op op_a, Op op_b, int64_t ld_pad) {
    GemmArgs args;
    args.m = m;
    args.n = n;
    args.k = k;
    args.op_a = op_a;
    args.op_b = op_b;
    const int64_t lda = (op_a == Op::N ? k : m) + ld_pad, ldb = (op_b == Op::N ? n : k) + ld_pad;
    args.a = MatrixArg{DType::BF16, base, lda, 0};
    args.b = MatrixArg{DType::BF16, base + (uint64_t(1) << 32), ldb, 0};
    args.c = OutputArg{DType::BF16, const_cast<uint16_t*>(base) + (uint64_t(1) << 33), n, 0};
    return std::string(ops::rank(ops::gemm_call(args, GemmOptions{}).problem, h100()).best().family()->name());
  };
  EXPECT_EQ(best_family(1, 4096, 4096, Op::N, Op::T, 0), "skinny16");  // decode, x @ W^T
  EXPECT_EQ(best_family(1, 4096, 4096, Op::N, Op::N, 0), "skinny16");  // decode, W stored along n
  EXPECT_EQ(best_family(1, 11008, 4096, Op::N, Op::T, 0), "skinny16");
  EXPECT_EQ(best_family(4, 4096, 4096, Op::N, Op::T, 0), "skinny16");
  EXPECT_EQ(best_family(16, 4096, 4096, Op::N, Op::N, 0), "wgmma");  // as C^T on 64 x 32 tiles
  EXPECT_EQ(best_family(4096, 2, 4096, Op::N, Op::T, 0), "skinny16");   // n short
  EXPECT_EQ(best_family(2048, 16, 4096, Op::N, Op::N, 0), "skinny16");  // X = B along its rows
  EXPECT_EQ(best_family(4096, 4096, 4096, Op::N, Op::T, 0), "wgmma");
  EXPECT_EQ(best_family(32, 4096, 4096, Op::N, Op::T, 0), "wgmma");     // above 16 rows
  EXPECT_EQ(best_family(1, 4096, 4093, Op::N, Op::T, 0), "wgmma");      // W's rows off 16 bytes
  EXPECT_EQ(best_family(4, 4096, 4096, Op::N, Op::T, 3), "wgmma");      // rows off 16 bytes
  // Few tiles, long k: level 8 splits k (one wave of 4 x 4 tiles would leave 116 SMs idle).
  GemmArgs long_k;
  long_k.m = long_k.n = 512;
  long_k.k = 65536;
  long_k.op_b = Op::T;
  long_k.a = MatrixArg{DType::BF16, base, 65536, 0};
  long_k.b = MatrixArg{DType::BF16, base + (uint64_t(1) << 32), 65536, 0};
  long_k.c = OutputArg{DType::BF16, const_cast<uint16_t*>(base) + (uint64_t(1) << 33), 512, 0};
  const std::string text = ops::rank(ops::gemm_call(long_k, GemmOptions{}).problem, h100()).best().text();
  EXPECT_NE(text.find(":k"), std::string::npos) << text;
  EXPECT_EQ(ops::registry().parse("WGMMA:128x128x64:S4:K8", "config", ops::OpKind::Gemm).text(),
            "wgmma:128x128x64:s4:k8");
  const ops::Family* f = ops::registry().find("skinny16");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(ops::registry().parse(" SKINNY16:K4 ", "config", ops::OpKind::Gemm).text(), "skinny16:k4");
  EXPECT_EQ(ops::registry().parse("skinny16", "config", ops::OpKind::Gemm).text(), "skinny16");
  EXPECT_THROW(ops::registry().parse("skinny16:k8", "config", ops::OpKind::Gemm), Error);  // above 4 slices
}

// Level 8's schedules: clusters of two only where m has two tile rows and n more than one 128-column
// tile; ping-pong only on the 128-column tile it is compiled for; big squares on 128 x 256 tiles in
// clusters.
TEST(WgmmaFamily, SchedulesByShape) {
  const auto* base = reinterpret_cast<const uint16_t*>(uintptr_t(1) << 40);
  auto problem = [&](int64_t m, int64_t n, int64_t k) {
    GemmArgs args;
    args.m = m;
    args.n = n;
    args.k = k;
    args.op_b = Op::T;
    args.a = MatrixArg{DType::BF16, base, k, 0};
    args.b = MatrixArg{DType::BF16, base + (uint64_t(1) << 32), k, 0};
    args.c = OutputArg{DType::BF16, const_cast<uint16_t*>(base) + (uint64_t(1) << 33), n, 0};
    return ops::gemm_call(args, GemmOptions{}).problem;
  };
  const ops::Family* f = ops::registry().find("wgmma");
  ASSERT_NE(f, nullptr);
  for (const ops::Config& c : f->candidates(problem(128, 4096, 4096), h100()))
    EXPECT_EQ(c.text().find(":c2"), std::string::npos) << c.text();
  for (const ops::Config& c : f->candidates(problem(2048, 16, 4096), h100()))  // no B columns to share
    EXPECT_EQ(c.text().find(":c2"), std::string::npos) << c.text();
  int clustered = 0, pingpong = 0;
  for (const ops::Config& c : f->candidates(problem(4096, 4096, 4096), h100())) {
    clustered += c.text().find(":c2") != std::string::npos;
    pingpong += c.text().find(":pp") != std::string::npos;
  }
  EXPECT_EQ(clustered, 2);  // 128 x 256 and ping-pong, each in clusters
  EXPECT_EQ(pingpong, 2);
  EXPECT_EQ(ops::rank(problem(4096, 4096, 4096), h100()).best().text(), "wgmma:128x256x64:s4:c2");
  EXPECT_EQ(ops::rank(problem(8192, 8192, 8192), h100()).best().text(), "wgmma:128x256x64:s4:c2");
  // Schedules not compiled ahead run at run time and say so; impossible ones are refused with why.
  for (const auto& [text, printed] : std::vector<std::pair<std::string, std::string>>{
           {"wgmma:128x128x64:s4:c2", "wgmma:128x128x64:s4:c2:jit"},
           {"WGMMA:128x128x64:s3:PP", "wgmma:128x128x64:s3:pp:jit"},
           {"wgmma:128x256x64:s3:c2:k4", "wgmma:128x256x64:s3:c2:k4:jit"},
           {"wgmma:128x256x64:s4:c2:jit", "wgmma:128x256x64:s4:c2:jit"},  // a compiled one's twin
           {"WGMMA:128x256x64:s4:KC4", "wgmma:128x256x64:s4:kc4"},
           {"wgmma:128x256x64:s3:kc2", "wgmma:128x256x64:s3:kc2:jit"},
           {"wgmma:128x256x64:s4:c2", "wgmma:128x256x64:s4:c2"},
           {"wgmma:128x192x64:s4", "wgmma:128x192x64:s4"},
           {"wgmma:128x192x64:s4:c2", "wgmma:128x192x64:s4:c2:jit"},
           {"wgmma:192x128x64:s4", "wgmma:192x128x64:s4"},
           {"WGMMA:192x128x64:S3:C2:K4", "wgmma:192x128x64:s3:c2:k4:jit"},
           {"wgmma:128x64x64:s8", "wgmma:128x64x64:s8"},
           {"wgmma:128x64x64:s6:kc2", "wgmma:128x64x64:s6:kc2:jit"},
           {"wgmma:128x64x64:s4:c2", "wgmma:128x64x64:s4:c2:jit"},
           {"WGMMA:128x64x64:S8:K4:T", "wgmma:128x64x64:s8:k4:t"},  // C^T through the reduction
           {"wgmma:128x128x64:s3:k2:t", "wgmma:128x128x64:s3:k2:t:jit"},
           {"wgmma:64x32x64:s12:k2:t", "wgmma:64x32x64:s12:k2:t"},
           {"wgmma:64x32x64:s12:kc2:t", "wgmma:64x32x64:s12:kc2:t"},  // C^T summed in the cluster
           {"wgmma:64x64x64:s13:kc4", "wgmma:64x64x64:s13:kc4"},
           {"wgmma:64x64x64:s12:kc4", "wgmma:64x64x64:s12:kc4:jit"}}) {
    const ops::Config c = ops::registry().parse(text, "--config", ops::OpKind::Gemm);
    EXPECT_EQ(c.text(), printed);
    EXPECT_EQ(ops::registry().parse(c.text(), "--config", ops::OpKind::Gemm), c);
    const size_t run_time = printed.find(":jit") != std::string::npos ? 1 : 0;
    EXPECT_EQ(f->run_time_kernels(problem(4096, 4096, 4096), c, h100()).size(), run_time);
  }
  for (const auto& [text, why] : std::vector<std::pair<std::string, std::string>>{
           {"wgmma:128x256x64:s6:pp", "ping-pong (pp) takes 128 columns"},
           {"wgmma:128x256x64:s5", "bytes of shared memory"},
           {"wgmma:128x160x64:s4", "must be 32, 64, 128, 192 or 256"},
           {"wgmma:128x64x64:s8:pp", "ping-pong (pp) takes 128 columns"},
           {"wgmma:192x64x64:s4", "192-row tiles"},
           {"wgmma:128x64x64:s9", "bytes of shared memory"},
           {"wgmma:128x192x64:s5", "bytes of shared memory"},
           {"wgmma:128x128x64:s1", "must be 2 or more"},
           {"wgmma:128x128x64:s4:c4", "1 or 2 blocks"},
           {"wgmma:128x128x64:s4:k3", "split-K takes"},
           {"wgmma:128x128x64:s4:kc16", "(:kc) are at most 8"},
           {"wgmma:128x256x64:s4:c2:kc2", "take the cluster that :c2 shares B in"},
           {"wgmma:128x128x64:s6:pp:kc2", "not ping-pong"},
           {"wgmma:128x256x64:s2:kc2", "in the stages: s3 or more"},
           {"wgmma:128x128x64:s2:kc2", "in the stages: s3 or more"},
           {"wgmma:128x128x64:s4:jit:pp", "'pp' is not a field here"},
           {"wgmma:96x128x64:s4", "the tile is <64|128|192>x<columns>x64"},
           {"wgmma:64x128x64:s4:pp", "64-row tiles (one consumer warpgroup) are cooperative"},
           {"wgmma:64x32x64:s18", "bytes of shared memory"},
           {"wgmma:192x256x64:s4", "192-row tiles (three consumer warpgroups"},
           {"wgmma:192x128x64:s6:pp", "192-row tiles"},
           {"wgmma:192x128x64:s5", "bytes of shared memory"},
           {"wgmma:128x64x64:s8:t", "it takes :k<N> or :kc<N>"},
           {"wgmma:128x64x64:s8:k2:jit:t", "'t' is not a field here"}}) {
    try {
      ops::registry().parse(text, "--config", ops::OpKind::Gemm);
      ADD_FAILURE() << text << " parsed";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("is not a wgmma config"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }
  // The tuner's local search: one move away, compiled or not.
  auto neighbour_texts = [&](const ops::Problem& p, const char* config) {
    std::vector<std::string> out;
    for (const ops::Config& c : f->neighbours(p, ops::registry().parse(config, "t", ops::OpKind::Gemm)))
      out.push_back(c.text());
    return out;
  };
  EXPECT_EQ(neighbour_texts(problem(4096, 4096, 4096), "wgmma:128x256x64:s4"),
            (std::vector<std::string>{"wgmma:128x256x64:s3:jit", "wgmma:128x128x64:s4", "wgmma:128x192x64:s4",
                                      "wgmma:192x128x64:s4", "wgmma:128x256x64:s4:c2", "wgmma:128x128x64:s4:pp:jit"}));
  // A narrow tile's wider neighbours keep as many of its 8 stages as their shared memory holds.
  EXPECT_EQ(neighbour_texts(problem(1024, 768, 3072), "wgmma:128x64x64:s8"),
            (std::vector<std::string>{"wgmma:128x64x64:s7:jit", "wgmma:128x128x64:s6:jit", "wgmma:128x256x64:s4",
                                      "wgmma:192x128x64:s4", "wgmma:128x64x64:s8:c2:jit", "wgmma:128x128x64:s6:pp"}));
  // A split's neighbours keep its slices and include the other way of summing them; a cluster's sum
  // never meets a schedule that cannot hold it (clusters of two, ping-pong).
  EXPECT_EQ(neighbour_texts(problem(1024, 768, 3072), "wgmma:128x128x64:s4:kc2"),
            (std::vector<std::string>{"wgmma:128x128x64:s3:kc2:jit", "wgmma:128x128x64:s5:kc2:jit",
                                      "wgmma:128x192x64:s4:kc2", "wgmma:128x256x64:s4:kc2",
                                      "wgmma:128x64x64:s4:kc2:jit", "wgmma:192x128x64:s4:kc2",
                                      "wgmma:128x128x64:s4:k2", "wgmma:128x128x64:s4:kc2:t"}));
  // C^T's neighbours keep it, and offer the product as stored and summed the other way; one k slice
  // leaves no sum to write C^T into C (TF32's kernel stores C^T itself: WgmmaTf32Family).
  const std::vector<std::string> transposed = neighbour_texts(problem(32, 4096, 4096), "wgmma:128x64x64:s8:k2:t");
  EXPECT_TRUE(contains(transposed, "wgmma:128x128x64:s6:k2:t:jit"));
  EXPECT_TRUE(contains(transposed, "wgmma:128x64x64:s8:k2"));
  EXPECT_TRUE(contains(transposed, "wgmma:128x64x64:s8:kc2:t"));
  // A 64-row tile moves to half or twice its columns on 64 rows too (and to 128 rows).
  const std::vector<std::string> narrow = neighbour_texts(problem(32, 4096, 4096), "wgmma:64x32x64:s12:kc2:t");
  EXPECT_TRUE(contains(narrow, "wgmma:64x64x64:s12:kc2:t:jit"));
  EXPECT_TRUE(contains(narrow, "wgmma:64x32x64:s12:k2:t"));
  EXPECT_TRUE(contains(narrow, "wgmma:64x32x64:s11:kc2:t:jit"));
  const std::vector<std::string> wide = neighbour_texts(problem(48, 11008, 4096), "wgmma:64x128x64:s8");
  EXPECT_TRUE(contains(wide, "wgmma:64x64x64:s8:jit"));
  for (const std::string& n : wide) EXPECT_NE(n.rfind("wgmma:64x256", 0), 0u) << n;  // 128 columns at most
  const std::vector<std::string> middle = neighbour_texts(problem(48, 64, 4096), "wgmma:64x64x64:s13");
  EXPECT_TRUE(contains(middle, "wgmma:64x32x64:s13:jit"));
  EXPECT_TRUE(contains(middle, "wgmma:64x128x64:s8"));
  const std::string one_slice =
      f->can_implement(problem(32, 4096, 64), ops::registry().parse("wgmma:128x64x64:s8:k2:t", "t", ops::OpKind::Gemm));
  EXPECT_NE(one_slice.find("k = 64 makes one k slice"), std::string::npos) << one_slice;
  // Few tiles and long k: split, summed in a cluster (one launch, no workspace).
  int in_cluster = 0;
  for (const ops::Config& c : f->candidates(problem(1024, 768, 3072), h100()))
    in_cluster += c.text().find(":kc") != std::string::npos;
  EXPECT_GT(in_cluster, 0);
  // ... but 96 tiles of 128 x 64 fill the SMs unsplit (15.0 us against 17.3 for 128 x 128 :kc2, H200).
  EXPECT_EQ(ops::rank(problem(1024, 768, 3072), h100()).best().text(), "wgmma:128x64x64:s8");
  // Only where the clusters all run at once: 16 tiles of 128 x 128 in clusters of 8 are two waves on
  // a device that holds 15 such clusters, so 512 x 512 x 65536 is offered :kc2 and :kc4, not :kc8.
  std::vector<std::string> long_k;
  for (const ops::Config& c : f->candidates(problem(512, 512, 65536), h100()))
    if (c.text().find("128x128x64:s4:kc") != std::string::npos) long_k.push_back(c.text());
  EXPECT_EQ(long_k, (std::vector<std::string>{"wgmma:128x128x64:s4:kc2", "wgmma:128x128x64:s4:kc4"}));
  // Memory-bound alike, the tile that computes less goes first: one 64 x 64 tile in 64 slices on the
  // 64-column tile (on 128 columns 19.7 against 23.3 us on 128 x 256, H200).
  EXPECT_EQ(ops::rank(problem(64, 64, 65536), h100()).best().text(), "wgmma:128x64x64:s8:k64");
}

// Products with a short side of at most 16 (bf16, H200, 2026-11-29): skinny16 where level 8's tiles
// would be mostly padding, and skinny16's k slices where a second block per SM streams W.
TEST(OpsRegistry, SkinnyProductsStreamOnSkinny16) {
  const ops::DeviceFacts h200 = h200_facts();
  // 16 x 4096 x 4096 NT: 17.4 us in 2 slices against 26.3 on 128 x 64 tiles in 2 (112 padded rows);
  // since 64 x 32 tiles, level 8's as C^T (FewRowsRunAsTheirTranspose).
  EXPECT_EQ(ops::rank(bf16(16, 4096, 4096, false), h200).best().text(), "wgmma:64x32x64:s12:kc2:t");
  // 2048 x 16 x 4096: 12.9-13.1 us in 4 slices against 14.6-15.0 on 128 x 64 tiles in 8. NT (B
  // K-major): 64 x 32 tiles in 2 slices summed in clusters, 11.0 us against 13.0-13.1.
  EXPECT_EQ(ops::rank(bf16(2048, 16, 4096, false), h200).best().text(), "skinny16:k4");
  EXPECT_EQ(ops::rank(bf16(2048, 16, 4096, true), h200).best().text(), "wgmma:64x32x64:s12:kc2");
  // 1 x 11008 x 4096 NT (W along k): 27.3 us in 2 slices against 30.9 unsplit; W along n unsplit.
  EXPECT_EQ(ops::rank(bf16(1, 11008, 4096, true), h200).best().text(), "skinny16:k2");
  EXPECT_EQ(ops::rank(bf16(1, 11008, 4096, false), h200).best().text(), "skinny16");
  // 32 rows are level 8's (skinny16 takes up to 16).
  EXPECT_EQ(ops::rank(bf16(32, 4096, 4096, false), h200).best().family()->name(), std::string("wgmma"));
}

// Products of 17 to 64 rows against a long n (bf16, H200, 2026-11-29): level 8 runs them as C^T
// (":t"), the long operand's lines on the tile's 128 rows, where the rows as stored would leave the
// tiles mostly padding (0.6 us a k step); a few columns as stored stay so.
TEST(OpsRegistry, FewRowsRunAsTheirTranspose) {
  const ops::DeviceFacts h200 = h200_facts();
  // Up to 32 rows: C^T on 64 x 32 tiles, 2 slices summed in the cluster. 32 x 4096 x 4096 15.3-15.7 us,
  // against 16.9-17.1 through workspace, 17.5-17.7 on 128 x 64 tiles (bf16, H200, 2026-11-29).
  EXPECT_EQ(ops::rank(bf16(32, 4096, 4096, false), h200).best().text(), "wgmma:64x32x64:s12:kc2:t");
  EXPECT_EQ(ops::rank(bf16(32, 4096, 4096, true), h200).best().text(), "wgmma:64x32x64:s12:kc2:t");
  EXPECT_EQ(ops::rank(bf16(24, 4096, 4096, false), h200).best().text(), "wgmma:64x32x64:s12:kc2:t");
  // 32 x 4096 x 14336: 34.8-35.6 us, 36.4 through workspace, 38.6-39.6 on 128 x 64 tiles.
  EXPECT_EQ(ops::rank(bf16(32, 4096, 14336, false), h200).best().text(), "wgmma:64x32x64:s12:kc2:t");
  // 16 rows NT: 15.1 us against skinny16's 17.3.
  EXPECT_EQ(ops::rank(bf16(16, 4096, 4096, true), h200).best().text(), "wgmma:64x32x64:s12:kc2:t");
  // 33-64 rows: 64 x 64 tiles summed in clusters, 16.9 us on 64 x 4096 x 4096 NT (18.0 on 128 x 64
  // through workspace, 19.4-19.5 summed in clusters, 21.6-22.7 on two 64 x 32 tiles a block row),
  // 36.6 on 64 x 4096 x 14336 NT (38.0-38.3; 40.4; 49-51).
  EXPECT_EQ(ops::rank(bf16(64, 4096, 4096, false), h200).best().text(), "wgmma:64x64x64:s13:kc2:t");
  EXPECT_EQ(ops::rank(bf16(64, 4096, 14336, true), h200).best().text(), "wgmma:64x64x64:s13:kc2:t");
  // 17-64 rows against 11008 or 14336 lines of k = 4096 stay as stored on one wave of 64 x 128 tiles:
  // 32 x 11008 x 4096 29.4-29.6 us against 31.7-35.2 on 128 x 192 tiles summed in clusters, 64 x
  // 14336 x 4096 33.2-34.0 against 45.0-45.8 on 128 x 128; 16 rows stay on skinny16 (32.9 against
  // 35.3 on 64 x 128).
  EXPECT_EQ(ops::rank(bf16(32, 11008, 4096, false), h200).best().text(), "wgmma:64x128x64:s8");
  EXPECT_EQ(ops::rank(bf16(64, 11008, 4096, true), h200).best().text(), "wgmma:64x128x64:s8");
  EXPECT_EQ(ops::rank(bf16(48, 14336, 4096, false), h200).best().text(), "wgmma:64x128x64:s8");
  EXPECT_EQ(ops::rank(bf16(16, 14336, 4096, false), h200).best().text(), "skinny16");
  // 64 x 6144 x 4096: 48 tiles unsplit 19.4 us, 21.1 in 2 slices summed in clusters.
  EXPECT_EQ(ops::rank(bf16(64, 6144, 4096, false), h200).best().text(), "wgmma:64x128x64:s8");
  // TF32 likewise: 64 x 14336 x 4096 NT 63.2 us against 87.7 on 128 x 128 tiles, 32 x 11008 x 4096
  // 51.1 against 68.9 on 128 x 192 summed in clusters.
  ops::Problem tf32 = bf16(64, 14336, 4096, true);
  tf32.a_type = tf32.b_type = tf32.c_type = DType::F32;
  tf32.math = Math::Tf32;
  EXPECT_EQ(ops::rank(tf32, h200).best().text(), "wgmma-tf32:64x128x32:s8");
  // ... from 1 row where skinny16 (16-bit only) cannot take them: 16 x 14336 x 4096 NT 65.5 us against
  // 110.0 on 128 x 128 (H200, 2026-11-30).
  ops::Problem tf32_16 = tf32;
  tf32_16.m = 16;
  EXPECT_EQ(ops::rank(tf32_16, h200).best().text(), "wgmma-tf32:64x128x32:s8");
  // ... and not in the 64-row tiles' other roles: few columns as stored (4096 x 64 x 4096 NT 40.6 us
  // against 26.0 on 128 x 64 in 2 slices summed in clusters) or C^T's few rows (64 x 4096 x 14336 NT
  // 115.3 against 65.9 on 128 x 64 in 4 slices).
  ops::Problem few_columns = tf32;
  few_columns.m = 4096, few_columns.n = 64, few_columns.k = 4096;
  EXPECT_EQ(ops::rank(few_columns, h200).best().text(), "wgmma-tf32:128x64x32:s8:kc2");
  ops::Problem long_k = tf32;
  long_k.m = 64, long_k.n = 4096, long_k.k = 14336;
  EXPECT_EQ(ops::rank(long_k, h200).best().text(), "wgmma-tf32:128x64x32:s8:k4:t");
  // TF32 NN (B MN-major) as C^T, B through wgmma's register A and nothing copied: 64 x 14336 x 4096
  // 65.0 us on 128 x 64 (1.21x cuBLAS TF32), 16 rows 66.0 on 64 x 32 in one k slice (0.96x),
  // 256 x 1024 x 131072 230.4 in 16 slices (1.14x; 0.28-0.50x with B copied first; H200, 2026-11-30).
  ops::Problem tf32_nn = tf32;
  tf32_nn.trans_b = false;
  EXPECT_EQ(ops::rank(tf32_nn, h200).best().text(), "wgmma-tf32:128x64x32:s8:t");
  tf32_nn.m = 16;
  EXPECT_EQ(ops::rank(tf32_nn, h200).best().text(), "wgmma-tf32:64x32x32:s12:t");
  tf32_nn.m = 256, tf32_nn.n = 1024, tf32_nn.k = 131072;
  EXPECT_EQ(ops::rank(tf32_nn, h200).best().text(), "wgmma-tf32:128x256x32:s4:k16:t");
  for (const ops::Config& c : ops::registry().find("wgmma-tf32")->candidates(long_k, h200)) {
    const std::string t = c.text();
    const bool transposed = t.find(":t:") != std::string::npos || t.compare(t.size() - 2, 2, ":t") == 0;
    if (transposed) EXPECT_EQ(t.find("64x128"), std::string::npos) << t;
  }
  // A few columns as stored: 4096 x 32 x 4096 NT on 64 x 32 tiles summed in clusters, 14.5 us against
  // 16.2 unsplit and 17.1 through workspace; NN's B is MN-major, which a 32-column tile cannot load
  // (half a 64-column box): 64 x 64 tiles.
  EXPECT_EQ(ops::rank(bf16(4096, 32, 4096, true), h200).best().text(), "wgmma:64x32x64:s12:kc2");
  EXPECT_EQ(ops::rank(bf16(4096, 32, 4096, false), h200).best().text(), "wgmma:64x64x64:s13:kc2");
}

// The 16-bit families are built on sm_90a instructions: on another architecture (an sm_80 device)
// Auto finds no family for a 16-bit product and says why, naming the device; FP32 products keep theirs.
TEST(WgmmaFamily, SixteenBitFamiliesRefuseADeviceWithoutTheInstructions) {
  const auto* base = reinterpret_cast<const uint16_t*>(uintptr_t(1) << 40);
  auto problem = [&](int64_t m, int64_t n, int64_t k, DType t) {
    GemmArgs args;
    args.m = m;
    args.n = n;
    args.k = k;
    args.op_b = Op::T;
    args.a = MatrixArg{t, base, k, 0};
    args.b = MatrixArg{t, base + (uint64_t(1) << 32), k, 0};
    args.c = OutputArg{t, const_cast<uint16_t*>(base) + (uint64_t(1) << 33), n, 0};
    return ops::gemm_call(args, GemmOptions{}).problem;
  };
  ops::DeviceFacts a100 = h100();
  a100.ordinal = 1;
  a100.cc_major = 8;
  a100.cc_minor = 0;
  for (const ops::Problem& p : {problem(4096, 4096, 4096, DType::BF16), problem(1, 4096, 4096, DType::F16)}) {
    EXPECT_FALSE(ops::rank(p, h100()).best().empty());
    const ops::Ranking r = ops::rank(p, a100);
    EXPECT_TRUE(r.best().empty()) << r.best().text();
    const std::string why = ops::no_family_reason(p, r);
    EXPECT_NE(why.find("wgmma: needs a compute capability 9.0 device (wgmma, TMA); device 1 has 8.0"),
              std::string::npos)
        << why;
  }
  const ops::Problem decode = problem(1, 4096, 4096, DType::BF16);
  const std::string why = ops::no_family_reason(decode, ops::rank(decode, a100));
  EXPECT_NE(why.find("skinny16: needs a compute capability 9.0 device (thread-block clusters"), std::string::npos)
      << why;
  EXPECT_FALSE(ops::rank(problem(4096, 4096, 4096, DType::F32), a100).best().empty());
  EXPECT_EQ(ops::registry().find("wgmma")->runs_on(h100()), "");
}

TEST(WgmmaFamily, ServesSixteenBitProductsInEveryLayoutAndAlignment) {
  GemmArgs args;
  args.m = args.n = args.k = 4096;
  args.op_b = Op::T;  // row-major A (m x k) times B stored n x k
  const auto* base = reinterpret_cast<const uint16_t*>(uintptr_t(1) << 40);
  args.a = MatrixArg{DType::BF16, base, 4096, 0};
  args.b = MatrixArg{DType::BF16, base + (uint64_t(1) << 28), 4096, 0};
  args.c = OutputArg{DType::BF16, const_cast<uint16_t*>(base) + (uint64_t(1) << 29), 4096, 0};
  auto problem_of = [](const GemmArgs& g) { return ops::gemm_call(g, GemmOptions{}).problem; };
  const ops::DeviceFacts d = h100();
  const ops::Config best = ops::rank(problem_of(args), d).best();
  ASSERT_FALSE(best.empty());
  EXPECT_EQ(best.text(), "wgmma:128x256x64:s4:c2");
  args.c.type = DType::F32;  // an f32 output
  EXPECT_EQ(ops::rank(problem_of(args), d).best().family()->name(), "wgmma");
  args.a.type = args.b.type = DType::F16;
  EXPECT_EQ(ops::rank(problem_of(args), d).best().family()->name(), "wgmma");

  const ops::Family* f = ops::registry().find("wgmma");
  ASSERT_NE(f, nullptr);
  const ops::Config c = ops::registry().parse("wgmma:128x128x64:s4", "config", ops::OpKind::Gemm);
  EXPECT_EQ(c.text(), "wgmma:128x128x64:s4");
  EXPECT_EQ(ops::registry().parse("WGMMA:128x128x64:S4", "config", ops::OpKind::Gemm), c);
  EXPECT_EQ(f->can_implement(problem_of(args), c), "");
  GemmArgs mixed = args;
  mixed.b.type = DType::BF16;
  EXPECT_NE(f->can_implement(problem_of(mixed), c).find("A and B must have one type"), std::string::npos);
  for (Op op_a : {Op::N, Op::T})
    for (Op op_b : {Op::N, Op::T}) {
      GemmArgs any = args;
      any.op_a = op_a;
      any.op_b = op_b;
      any.layout = op_a == Op::T ? Layout::ColMajor : Layout::RowMajor;
      EXPECT_EQ(f->can_implement(problem_of(any), c), "");
    }
  // 128 x 192 in clusters of two: each block would load 96 of B's columns, which an MN-major B (not
  // transposed) holds in boxes of 64; a transposed B (K-major lines) splits anywhere.
  const ops::Config c192 = ops::registry().parse("wgmma:128x192x64:s4:c2", "config", ops::OpKind::Gemm);
  EXPECT_EQ(f->can_implement(problem_of(args), c192), "");
  GemmArgs nn = args;
  nn.op_b = Op::N;
  EXPECT_NE(f->can_implement(problem_of(nn), c192).find("B is not transposed (stored k x n, MN-major)"),
            std::string::npos)
      << f->can_implement(problem_of(nn), c192);
  EXPECT_EQ(f->can_implement(problem_of(nn), ops::registry().parse("wgmma:128x192x64:s4", "config", ops::OpKind::Gemm)),
            "");
  // 128 x 64 is one box: alone any B, in clusters of two only a transposed B.
  const ops::Config c64 = ops::registry().parse("wgmma:128x64x64:s4:c2", "config", ops::OpKind::Gemm);
  EXPECT_EQ(f->can_implement(problem_of(args), c64), "");
  EXPECT_NE(f->can_implement(problem_of(nn), c64).find("a 128 x 64 tile in clusters of 2"), std::string::npos)
      << f->can_implement(problem_of(nn), c64);
  EXPECT_EQ(f->can_implement(problem_of(nn), ops::registry().parse("wgmma:128x64x64:s8", "config", ops::OpKind::Gemm)),
            "");
  GemmArgs unaligned = args;  // rows off 16 bytes: the copy producer
  unaligned.a.ld = 4101;
  unaligned.b.data = base + (uint64_t(1) << 28) + 3;
  EXPECT_EQ(f->can_implement(problem_of(unaligned), c), "");
  GemmArgs odd = args;  // an address inside a 2-byte element
  odd.a.data = reinterpret_cast<const char*>(base) + 1;
  EXPECT_NE(f->can_implement(problem_of(odd), c).find("A's address is not aligned to its 2-byte elements"),
            std::string::npos);
  GemmArgs f32 = args;
  f32.a.type = f32.b.type = DType::F32;
  f32.c.type = DType::F32;
  EXPECT_NE(f->can_implement(problem_of(f32), c).find("A is f32"), std::string::npos);
  EXPECT_NE(ops::rank(problem_of(f32), d).best().family()->name(), "wgmma");  // FP32 goes to the FP32 families
  try {
    ops::registry().parse("wgmma:96x64x64:s2", "--config", ops::OpKind::Gemm);
    ADD_FAILURE() << "a tile of 96 rows parsed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is not a wgmma config"), std::string::npos) << e.what();
  }
}

// Each text parses into family f and prints as given.
void expect_configs(const ops::Family* f, const std::vector<std::pair<std::string, std::string>>& text_printed) {
  for (const auto& [text, printed] : text_printed) {
    const ops::Config c = ops::registry().parse(text, "--config", ops::OpKind::Gemm);
    EXPECT_EQ(c.text(), printed);
    EXPECT_EQ(c.family(), f);
  }
}
// Each text is refused as a config of `family`, the message naming the reason.
void expect_refused_configs(const std::string& family, const std::vector<std::pair<std::string, std::string>>& text_why) {
  for (const auto& [text, why] : text_why) {
    try {
      ops::registry().parse(text, "--config", ops::OpKind::Gemm);
      ADD_FAILURE() << text << " parsed";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("is not a " + family + " config"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }
}
// A row-major 4096^3 FP32 product at `base` (A, then B 2^28 elements on, C 2^29 on: 16-byte aligned).
GemmArgs fp32_square(const float* base) {
  GemmArgs args;
  args.m = args.n = args.k = 4096;
  args.a = MatrixArg{DType::F32, base, 4096, 0};
  args.b = MatrixArg{DType::F32, base + (uint64_t(1) << 28), 4096, 0};
  args.c = OutputArg{DType::F32, const_cast<float*>(base) + (uint64_t(1) << 29), 4096, 0};
  return args;
}

// Level 8 on FP32 operands at FP32 accuracy (family wgmma-3xtf32): its configs and refusals, the
// products it serves (FP32 in every layout and alignment, not math = ffma, not 16-bit), Hopper only.
TEST(WgmmaTf32x3Family, ConfigsProblemsAndDevices) {
  const ops::Family* f = ops::registry().find("wgmma-3xtf32");
  ASSERT_NE(f, nullptr);
  expect_configs(f, {{"WGMMA-3XTF32:128x128x32:S4", "wgmma-3xtf32:128x128x32:s4"},
                     {"wgmma-3xtf32:128x128x32:s4:c2", "wgmma-3xtf32:128x128x32:s4:c2"},
                     {"wgmma-3xtf32:128x128x32:s4:k8", "wgmma-3xtf32:128x128x32:s4:k8"},
                     {"wgmma-3xtf32:128x128x32:s4:kc4", "wgmma-3xtf32:128x128x32:s4:kc4"},
                     {"wgmma-3xtf32:128x128x32:s3", "wgmma-3xtf32:128x128x32:s3:jit"}});
  expect_refused_configs("wgmma-3xtf32", {{"wgmma-3xtf32:128x256x32:s4", "the tile has 128 columns"},
                                          {"wgmma-3xtf32:128x128x32:s6:pp", "cooperative tiles (no pp)"},
                                          {"wgmma-3xtf32:128x128x64:s4", "the tile is <64|128|192>x<columns>x32"},
                                          {"wgmma-3xtf32:192x128x32:s4", "not 3xTF32"},
                                          {"wgmma-3xtf32:128x128x32:s5", "bytes of shared memory"}});
  const auto* base = reinterpret_cast<const float*>(uintptr_t(1) << 40);
  GemmArgs args = fp32_square(base);
  auto problem_of = [](const GemmArgs& g, const GemmOptions& o = GemmOptions{}) {
    return ops::gemm_call(g, o).problem;
  };
  const ops::Config c = ops::registry().parse("wgmma-3xtf32:128x128x32:s4", "config", ops::OpKind::Gemm);
  for (Op op_a : {Op::N, Op::T})
    for (Op op_b : {Op::N, Op::T}) {
      GemmArgs any = args;
      any.op_a = op_a;
      any.op_b = op_b;
      EXPECT_EQ(f->can_implement(problem_of(any), c), "");
    }
  GemmArgs unaligned = args;  // rows off 16 bytes: packed for TMA
  unaligned.a.ld = 4097;
  unaligned.b.data = base + (uint64_t(1) << 28) + 1;
  EXPECT_EQ(f->can_implement(problem_of(unaligned), c), "");
  EXPECT_GT(f->workspace_bytes(problem_of(unaligned), c, ops::Operands{}, h100()), size_t(2) * 4096 * 4096 * 4);
  GemmArgs huge = args;  // B's TF32 parts (8 bytes an element) beyond the family's 4 GiB of workspace
  huge.n = huge.c.ld = 65536;
  huge.k = huge.a.ld = 16384;
  huge.b.ld = 65536;
  huge.b.data = base + (uint64_t(1) << 31);
  huge.c.data = const_cast<float*>(base) + (uint64_t(1) << 33);
  EXPECT_NE(f->can_implement(problem_of(huge), c).find("B's TF32 copy would take 8192 MiB of workspace"),
            std::string::npos)
      << f->can_implement(problem_of(huge), c);
  EXPECT_NE(ops::rank(problem_of(huge), h100()).best().family()->name(), "wgmma-3xtf32");
  GemmArgs inside = args;  // an address inside a 4-byte element
  inside.a.data = reinterpret_cast<const char*>(base) + 2;
  EXPECT_NE(f->can_implement(problem_of(inside), c).find("A's address is not aligned to its 4-byte elements"),
            std::string::npos);
  GemmOptions ffma;
  ffma.math = Math::FfmaOnly;
  EXPECT_NE(f->supports(problem_of(args, ffma)).find("math = ffma keeps the product on CUDA cores"), std::string::npos);
  GemmArgs bf16 = args;
  bf16.a.type = bf16.b.type = bf16.c.type = DType::BF16;
  EXPECT_NE(f->supports(problem_of(bf16)).find("A is bf16"), std::string::npos);
  ops::DeviceFacts a100 = h100();
  a100.cc_major = 8;
  EXPECT_NE(f->runs_on(a100).find("needs a compute capability 9.0 device"), std::string::npos);
  // Every candidate is one of its compiled schedules (128 columns, cooperative), whole or split.
  for (const ops::Config& cand : f->candidates(problem_of(args), h100()))
    EXPECT_EQ(cand.text().rfind("wgmma-3xtf32:128x128x32:s4", 0), 0u) << cand.text();
}

// Level 8 on FP32 operands as TF32 (family wgmma-tf32): its configs and refusals, the products it
// serves (FP32 under math = tf32 only, every layout and alignment: K-major copies of the others), the
// workspace of those copies, Auto's pick on Hopper under tf32 and never under fp32 or ffma.
TEST(WgmmaTf32Family, ConfigsProblemsAndDevices) {
  const ops::Family* f = ops::registry().find("wgmma-tf32");
  ASSERT_NE(f, nullptr);
  expect_configs(f, {{"WGMMA-TF32:128x256x32:S4", "wgmma-tf32:128x256x32:s4"},
                     {"wgmma-tf32:128x256x32:s4:c2", "wgmma-tf32:128x256x32:s4:c2"},
                     {"wgmma-tf32:128x128x32:s4:k8", "wgmma-tf32:128x128x32:s4:k8"},
                     {"wgmma-tf32:128x256x32:s4:kc4", "wgmma-tf32:128x256x32:s4:kc4"},
                     {"wgmma-tf32:128x256x32:s3", "wgmma-tf32:128x256x32:s3:jit"},
                     {"wgmma-tf32:192x128x32:s4", "wgmma-tf32:192x128x32:s4"},
                     {"wgmma-tf32:128x192x32:s4:c2", "wgmma-tf32:128x192x32:s4:c2"},
                     {"wgmma-tf32:128x256x32:s4:t", "wgmma-tf32:128x256x32:s4:t"}});  // C^T in one k slice
  expect_refused_configs("wgmma-tf32", {{"wgmma-tf32:128x128x32:s6:pp", "cooperative tiles (no pp)"},
                                        {"wgmma-tf32:128x256x64:s4", "the tile is <64|128|192>x<columns>x32"},
                                        {"wgmma-tf32:128x256x32:s5", "bytes of shared memory"}});
  const auto* base = reinterpret_cast<const float*>(uintptr_t(1) << 40);
  GemmArgs args = fp32_square(base);
  GemmOptions tf32;
  tf32.math = Math::Tf32;
  auto problem_of = [](const GemmArgs& g, const GemmOptions& o) { return ops::gemm_call(g, o).problem; };
  const ops::Config c = ops::registry().parse("wgmma-tf32:128x256x32:s4", "config", ops::OpKind::Gemm);
  // Only where the caller names TF32: fp32 and ffma refuse it, with the reason.
  for (const Math m : {Math::Fp32, Math::FfmaOnly}) {
    GemmOptions o;
    o.math = m;
    EXPECT_NE(f->can_implement(problem_of(args, o), c).find("run only where the caller names math = tf32"),
              std::string::npos)
        << f->can_implement(problem_of(args, o), c);
    EXPECT_NE(ops::rank(problem_of(args, o), h100()).best().family()->name(), "wgmma-tf32");
  }
  EXPECT_EQ(ops::dtype_text(problem_of(args, tf32)), "tf32");  // its tuned entries apart from fp32's
  // Row-major NT (both operands K-major, aligned): TMA reads them as they are, no workspace.
  GemmArgs nt = args;
  nt.op_b = Op::T;
  EXPECT_EQ(f->can_implement(problem_of(nt, tf32), c), "");
  EXPECT_EQ(f->workspace_bytes(problem_of(nt, tf32), c, ops::Operands{}, h100()), 0u);
  // An MN-major B is copied K-major (NN, TN); an MN-major A is read through registers (TT, TN): no
  // copy. As C^T (":t") NN's B is the register A and A^T is K-major: no workspace either.
  EXPECT_EQ(f->workspace_bytes(problem_of(args, tf32), c, ops::Operands{}, h100()), size_t(4096) * 4096 * 4);
  const ops::Config c_t = ops::registry().parse("wgmma-tf32:128x256x32:s4:t", "config", ops::OpKind::Gemm);
  EXPECT_EQ(f->can_implement(problem_of(args, tf32), c_t), "");
  EXPECT_EQ(f->workspace_bytes(problem_of(args, tf32), c_t, ops::Operands{}, h100()), 0u);
  GemmArgs tn = args;
  tn.op_a = Op::T;
  EXPECT_EQ(f->workspace_bytes(problem_of(tn, tf32), c, ops::Operands{}, h100()), size_t(4096) * 4096 * 4);
  GemmArgs tt = tn;
  tt.op_b = Op::T;
  EXPECT_EQ(f->workspace_bytes(problem_of(tt, tf32), c, ops::Operands{}, h100()), 0u);
  GemmArgs unaligned = nt;
  unaligned.a.ld = 4097;
  EXPECT_EQ(f->can_implement(problem_of(unaligned, tf32), c), "");
  EXPECT_EQ(f->workspace_bytes(problem_of(unaligned, tf32), c, ops::Operands{}, h100()), size_t(4096) * 4096 * 4);
  for (Op op_a : {Op::N, Op::T})
    for (Op op_b : {Op::N, Op::T})
      for (Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
        GemmArgs any = args;
        any.op_a = op_a, any.op_b = op_b, any.layout = layout;
        EXPECT_EQ(f->can_implement(problem_of(any, tf32), c), "");
      }
  GemmArgs bf16 = args;
  bf16.a.type = bf16.b.type = bf16.c.type = DType::BF16;
  EXPECT_NE(f->supports(problem_of(bf16, tf32)).find("A is bf16"), std::string::npos);
  ops::DeviceFacts a100 = h100();
  a100.cc_major = 8;
  EXPECT_NE(f->runs_on(a100).find("needs a compute capability 9.0 device"), std::string::npos);
  // Auto under tf32: level 8's TF32 on Hopper for a big square (128 x 256 tiles in clusters), the
  // FP32-accurate families elsewhere (TF32 allows them; nothing else offers one TF32 product).
  const ops::Config best = ops::rank(problem_of(args, tf32), h100()).best();
  // Row-major NN's B is MN-major: as C^T it is the register A and nothing is copied (alone: that
  // kernel ran 1-5 % slower in clusters of 2).
  EXPECT_EQ(best.text(), "wgmma-tf32:128x256x32:s4:t");
  EXPECT_EQ(ops::rank(problem_of(nt, tf32), h100()).best().text(), "wgmma-tf32:128x256x32:s4:c2");
  EXPECT_NE(ops::rank(problem_of(args, tf32), a100).best().family()->name(), "wgmma-tf32");
  EXPECT_FALSE(ops::rank(problem_of(args, tf32), a100).best().empty());
  for (const ops::Config& cand : f->candidates(problem_of(args, tf32), h100()))
    EXPECT_TRUE(cand.text().rfind("wgmma-tf32:128x", 0) == 0 || cand.text().rfind("wgmma-tf32:192x128x32", 0) == 0)
        << cand.text();
}

// Strided batches: level 8 runs them in one launch (its estimate counts every batch's tiles); a family
// that runs one product per launch is judged on one product and ranked at batch x its estimate. The
// workspace holds a packed copy per batch, one where the operand is shared (stride 0).
TEST(Batches, Level8RunsThemInOneLaunchTheOthersOncePerBatch) {
  const auto* base = reinterpret_cast<const uint16_t*>(uintptr_t(1) << 40);
  GemmArgs args;
  args.m = args.n = args.k = 1024;
  args.batch = 16;
  args.a = MatrixArg{DType::BF16, base, 1024, 1 << 20};
  args.b = MatrixArg{DType::BF16, base + (uint64_t(1) << 28), 1024, 0};  // shared by every batch
  args.c = OutputArg{DType::BF16, const_cast<uint16_t*>(base) + (uint64_t(1) << 29), 1024, 1 << 20};
  const ops::GemmCall call = ops::gemm_call(args, GemmOptions{});
  EXPECT_EQ(call.problem.batch, 16);
  EXPECT_EQ(call.operands.stride_a, 1 << 20);
  EXPECT_EQ(call.operands.stride_b, 0);
  EXPECT_EQ(ops::batch_operands(call, 2).a, static_cast<const void*>(base + (2 << 20)));
  EXPECT_EQ(ops::batch_operands(call, 2).b, static_cast<const void*>(base + (uint64_t(1) << 28)));
  const ops::Ranking ranking = ops::rank(call.problem, h100());
  ASSERT_FALSE(ranking.estimated.empty());
  EXPECT_EQ(ranking.best().family()->name(), "wgmma");
  EXPECT_TRUE(ranking.best().family()->runs_batches());
  EXPECT_NE(ranking.estimated.front().estimate.why.find("(16 batches)"), std::string::npos)
      << ranking.estimated.front().estimate.why;
  // 16 batches of 1024^3 in one launch: 1024 tiles of 128 x 128 in 8 waves, against one product's 64
  // tiles in one (one launch, not 16).
  ops::Problem one = call.problem;
  one.batch = 1;
  const ops::Config c = ops::registry().parse("wgmma:128x128x64:s4", "config", ops::OpKind::Gemm);
  const ops::Family& wgmma = *c.family();
  EXPECT_EQ(wgmma.estimate(call.problem, c, h100())->why, "1024 tiles (16 batches) in 8 waves");
  EXPECT_EQ(wgmma.estimate(one, c, h100())->why, "64 tiles in 1 waves");
  EXPECT_GT(wgmma.estimate(call.problem, c, h100())->us, 4 * wgmma.estimate(one, c, h100())->us);
  EXPECT_LT(wgmma.estimate(call.problem, c, h100())->us, 16 * wgmma.estimate(one, c, h100())->us);

  // FP32 on CUDA cores (math = ffma): one launch per batch, 16 x the estimate of one product.
  GemmArgs f32 = args;
  f32.a.type = f32.b.type = DType::F32;
  f32.c.type = DType::F32;
  GemmOptions ffma;
  ffma.math = Math::FfmaOnly;
  const ops::Problem p32 = ops::gemm_call(f32, ffma).problem;
  const ops::Ranking r32 = ops::rank(p32, h100());
  ASSERT_FALSE(r32.estimated.empty());
  const ops::Ranked& best = r32.estimated.front();
  EXPECT_FALSE(best.config.family()->runs_batches());
  EXPECT_EQ(ops::launch_problem(*best.config.family(), p32).batch, 1);
  EXPECT_EQ(ops::launches(*best.config.family(), p32), 16);
  EXPECT_NE(best.estimate.why.find("one launch per batch: x16"), std::string::npos) << best.estimate.why;
  ops::Problem p32_one = p32;
  p32_one.batch = 1;
  EXPECT_DOUBLE_EQ(best.estimate.us, 16 * best.config.family()->estimate(p32_one, best.config, h100())->us);

  // Workspace: A's rows off 16 bytes are packed per batch; B shared (stride 0) once.
  GemmArgs unaligned = args;
  unaligned.a.ld = unaligned.b.ld = 1025;
  unaligned.a.batch_stride = 1025 * 1024;
  const ops::GemmCall u = ops::gemm_call(unaligned, GemmOptions{});
  const size_t one_copy = size_t(1024) * 1024 * 2;  // 1024 lines of 1024 halves, packed
  EXPECT_EQ(wgmma.workspace_bytes(u.problem, c, u.operands, h100()), 16 * one_copy + one_copy);
  ops::Operands shared_a = u.operands;
  shared_a.stride_a = 0;
  EXPECT_EQ(wgmma.workspace_bytes(u.problem, c, shared_a, h100()), 2 * one_copy);
  // Work units numbered in 32 bits: batch x tiles x slices below 2^31.
  ops::Problem huge = call.problem;
  huge.batch = int64_t(1) << 26;  // x 64 tiles of 128 x 128: 2^32 units
  EXPECT_NE(wgmma.can_implement(huge, c).find("work units"), std::string::npos) << wgmma.can_implement(huge, c);
}

// The fused epilogue in the canonical problem: a column-major call's per-row bias is per column of the
// canonical C; the bias's pointer travels with the operands; its checks need no device.
TEST(Epilogue, CanonicalBiasAndDeviceFreeChecks) {
  alignas(16) static float buffer[4096];
  GemmArgs args;
  args.m = 32, args.n = 16, args.k = 8;
  args.a = {DType::F32, buffer, 8};
  args.b = {DType::F32, buffer + 256, 16};
  args.c = {DType::F32, buffer + 1024, 16};
  args.epilogue.bias_kind = BiasKind::PerRow;
  args.epilogue.bias = buffer + 2048;
  args.epilogue.activation = Activation::GeluErf;
  ops::GemmCall call = ops::gemm_call(args, GemmOptions{});
  EXPECT_EQ(call.problem.bias, BiasKind::PerRow);
  EXPECT_EQ(call.problem.activation, Activation::GeluErf);
  EXPECT_FALSE(call.problem.plain_epilogue());
  EXPECT_EQ(call.operands.bias, static_cast<const void*>(buffer + 2048));
  args.layout = Layout::ColMajor;
  args.a.ld = 32, args.b.ld = 8, args.c.ld = 32;
  call = ops::gemm_call(args, GemmOptions{});
  EXPECT_EQ(call.problem.bias, BiasKind::PerColumn);
  GemmArgs plain = args;
  plain.epilogue = Epilogue{};
  EXPECT_FALSE(call.problem == ops::gemm_call(plain, GemmOptions{}).problem);  // the choice cache keeps them apart
  EXPECT_EQ(to_string(Activation::GeluTanh), std::string("gelu-tanh"));
  EXPECT_EQ(to_string(BiasKind::PerColumn), std::string("column"));
  // Level 8 and skinny16 apply it in their kernels; every other GEMM family is followed by the pass.
  std::vector<std::string> fusing;
  for (const ops::Family* f : ops::registry().families(ops::OpKind::Gemm))
    if (f->fuses_epilogue()) fusing.emplace_back(f->name());
  EXPECT_EQ(fusing, (std::vector<std::string>{"wgmma", "wgmma-3xtf32", "wgmma-tf32", "skinny16"}));
  // Auto charges the pass to the family that needs it: a GEMV config's estimate grows by C's round
  // trip and a launch, a fused family's does not move.
  ops::Problem skinny = call.problem;
  skinny.m = 4, skinny.n = 8192, skinny.k = 4096;
  ops::Problem bare = skinny;
  bare.bias = BiasKind::None;
  bare.activation = Activation::None;
  const ops::DeviceFacts d = h100();
  const ops::Config gemv = ops::registry().parse("gemv-rows:s4:k2", "config", ops::OpKind::Gemm);
  const ops::Config fused = ops::registry().parse("wgmma-3xtf32:128x128x32:s4:k8", "config", ops::OpKind::Gemm);
  const double pass = ops::epilogue_pass_us(skinny, d);
  EXPECT_NEAR(pass, 2.0 + 2.0 * 4 * 4 * 8192 / (0.75 * d.mem_bandwidth_gbs * 1e9) * 1e6, 1e-9);
  const auto with = ops::call_estimate(*gemv.family(), skinny, gemv, d), without = ops::call_estimate(*gemv.family(), bare, gemv, d);
  ASSERT_TRUE(with && without);
  EXPECT_NEAR(with->us - without->us, pass, 1e-9);
  EXPECT_NE(with->why.find("the epilogue's pass over C"), std::string::npos) << with->why;
  EXPECT_EQ(ops::call_estimate(*fused.family(), skinny, fused, d)->us, ops::call_estimate(*fused.family(), bare, fused, d)->us);
  // The kernels' parameters: a kernel whose C is the canonical C transposed (skinny16 with n short)
  // takes a canonical per-row bias along its columns.
  const kernels::FusedEpilogue row = ops::fused_epilogue(BiasKind::PerRow, buffer, DType::F32, Activation::Silu);
  EXPECT_EQ(row.bias_kind, kernels::kBiasRow);
  EXPECT_EQ(row.activation, kernels::kActSilu);
  EXPECT_TRUE(row.bias_f32);
  EXPECT_FALSE(row.plain());
  EXPECT_EQ(ops::fused_epilogue(BiasKind::PerRow, buffer, DType::BF16, Activation::None, true).bias_kind,
            kernels::kBiasColumn);
  EXPECT_TRUE(ops::fused_epilogue(BiasKind::None, nullptr, DType::F32, Activation::None).plain());
  // Refused before any device is needed, naming the field.
  GemmArgs bad = args;
  bad.epilogue.bias = reinterpret_cast<const char*>(buffer + 2048) + 1;
  try {
    gemm(bad);
    ADD_FAILURE() << "a misaligned bias accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("args.epilogue.bias is not aligned to its 4-byte elements"), std::string::npos)
        << e.what();
  }
  bad = args;
  bad.epilogue.bias_type = DType::F16;
  try {
    gemm(bad);
    ADD_FAILURE() << "an f16 bias on f32 C accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("args.epilogue.bias_type = f16"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tilegemm
