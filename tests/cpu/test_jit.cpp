// Run-time compilation without a GPU (NVRTC needs none): the embedded kernel headers are the source
// tree's, a schedule nobody compiled ahead of time compiles from them for sm_90a, a schedule that
// breaks a constraint fails with the compiler's message, the disk cache key changes with the headers,
// the architecture, NVRTC's version and the kernel, and config text marks run-time compiled schedules.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "dense/config.hpp"
#include "dense/gemm_ops.hpp"
#include "dense/launch.hpp"
#include "jit/jit.hpp"
#include "jit/sources.hpp"
#include "ops/families/wgmma/wgmma_launch.hpp"
#include "tilegemm/error.hpp"

#ifndef TILEGEMM_SOURCE_DIR
#error "TILEGEMM_SOURCE_DIR (the repository root) must be defined by the build"
#endif

namespace tilegemm {
namespace detail {
namespace {

TEST(JitSources, EmbeddedHeadersAreTheSourceTrees) {
  ASSERT_GE(kNumJitSources, 5);
  for (int i = 0; i < kNumJitSources; ++i) {
    std::ifstream in(std::string(TILEGEMM_SOURCE_DIR) + "/src/" + kJitSources[i].path, std::ios::binary);
    ASSERT_TRUE(in) << kJitSources[i].path;
    const std::string text(std::istreambuf_iterator<char>(in), {});
    EXPECT_EQ(text, kJitSources[i].text) << kJitSources[i].path << " differs from its embedded copy";
  }
}

TEST(JitCacheKey, ChangesWithEverythingThatMakesABinaryStale) {
  std::vector<EmbeddedSource> sources(kJitSources, kJitSources + kNumJitSources);
  const std::string h = jit_sources_hash(sources.data(), kNumJitSources);
  EXPECT_EQ(h, jit_sources_hash());
  std::string edited = std::string(sources[1].text) + "\n// one more line\n";
  sources[1].text = edited.c_str();
  const std::string h2 = jit_sources_hash(sources.data(), kNumJitSources);
  EXPECT_NE(h, h2);
  const JitRequest r{"kernels/gemm/split_tiled.cuh", "&tilegemm::kernels::gemm_warp_tiled<X, false, false, true, true>"};
  JitRequest r2 = r;
  r2.name_expression[r2.name_expression.size() - 6] = 'x';
  const std::string key = jit_cache_key(h, "sm_90a", 13, 0, r);
  for (const std::string& other :
       {jit_cache_key(h2, "sm_90a", 13, 0, r), jit_cache_key(h, "sm_100a", 13, 0, r), jit_cache_key(h, "sm_90a", 13, 1, r),
        jit_cache_key(h, "sm_90a", 12, 0, r), jit_cache_key(h, "sm_90a", 13, 0, r2)})
    EXPECT_NE(key, other);
  EXPECT_EQ(key, jit_cache_key(h, "sm_90a", 13, 0, r));
  EXPECT_EQ(key.find('\n'), std::string::npos);  // one line in the cache file
  EXPECT_EQ(jit_arch(9, 0), "sm_90a");
  EXPECT_EQ(jit_arch(8, 0), "sm_80");
}

TEST(JitConfig, CompiledSchedulesPassTheConstraintsAndOthersAreMarked) {
  for (const TileShape& t : kTiledSchedules) EXPECT_EQ(tile_shape_problem(t), "");
  const GemmConfig c = parse_gemm_config("tiled:128x128x32:w64x32:t8x8:s3:b2:k2:hilbert", "config");
  EXPECT_TRUE(c.jit);
  EXPECT_EQ(to_string(c), "tiled:128x128x32:w64x32:t8x8:s3:b2:k2:hilbert:jit");
  EXPECT_EQ(parse_gemm_config(to_string(c), "config"), c);
  const GemmConfig twin = parse_gemm_config("tiled:128x256x32:w64x64:t16x8:s4:b1:k1:hilbert:jit", "config");
  EXPECT_TRUE(twin.jit);
  EXPECT_FALSE(parse_gemm_config("tiled:128x256x32:w64x64:t16x8:s4:b1:k1:hilbert", "config").jit);
  // A GEMV config's run-time twin: marked only when asked, and its text round-trips.
  const GemmConfig gemv = parse_gemm_config("gemv-cols:s4:k8:jit", "config");
  EXPECT_TRUE(gemv.jit);
  EXPECT_EQ(to_string(gemv), "gemv-cols:s4:k8:jit");
  EXPECT_EQ(parse_gemm_config(to_string(gemv), "config"), gemv);
  EXPECT_FALSE(parse_gemm_config("gemv-rows:s16:k2", "config").jit);
  GemmConfig rows = parse_gemm_config("gemv-rows:s8:k2", "config"), cols = parse_gemm_config("gemv-cols:s2", "config"),
             one_row = parse_gemm_config("gemv-cols:s1:l32:k2", "config");
  auto form = [](bool vec_w, GemvStaging staging = GemvStaging::Registers, bool vec_x = false) {
    GemvForm f;
    f.vec_w = vec_w;
    f.vec_x = vec_x;
    f.staging = staging;
    return f;
  };
  EXPECT_EQ(gemv_jit_request(rows, form(false)).name_expression, "&tilegemm::kernels::gemv_rows<8, false>");
  EXPECT_EQ(gemv_jit_request(cols, form(true)).header, "kernels/gemm/gemv_cols.cuh");
  EXPECT_EQ(gemv_jit_request(one_row, form(true)).header, "kernels/gemm/gemv_cols_one.cuh");
  EXPECT_EQ(gemv_jit_request(one_row, form(true)).name_expression,
            "&tilegemm::kernels::gemv_cols_one<32, tilegemm::kernels::GemvColsW::Aligned>");
  GemvForm shifted = form(false);
  shifted.shift_w = true;
  EXPECT_EQ(gemv_jit_request(cols, shifted).name_expression,
            "&tilegemm::kernels::gemv_cols<2, tilegemm::kernels::GemvColsW::Shifted>");
  EXPECT_EQ(gemv_jit_request(one_row, form(false)).name_expression,
            "&tilegemm::kernels::gemv_cols_one<32, tilegemm::kernels::GemvColsW::Scalar>");
  const GemmConfig rows16 = parse_gemm_config("gemv-rows:s16:k2", "config");
  EXPECT_EQ(gemv_jit_request(rows16, form(true, GemvStaging::XRowsAlongS, true)).header, "kernels/gemm/gemv_rows_staged.cuh");
  EXPECT_EQ(gemv_jit_request(rows16, form(false, GemvStaging::XRowsAlongK)).name_expression,
            "&tilegemm::kernels::gemv_rows_staged<16, tilegemm::kernels::GemvXStage::KRows, false, false>");
  // X's rows of k packed as shifted copies behind unaligned W (gemm_ops.cpp, plan_pack).
  EXPECT_EQ(gemv_jit_request(rows16, form(false, GemvStaging::XRowsAlongK, true)).name_expression,
            "&tilegemm::kernels::gemv_rows_staged<16, tilegemm::kernels::GemvXStage::KRows, false, true>");
  EXPECT_EQ(gemv_jit_request(rows16, form(true, GemvStaging::XRowsAlongS, false)).name_expression,
            "&tilegemm::kernels::gemv_rows_staged<16, tilegemm::kernels::GemvXStage::SRows, true, false>");
  GemmProblem p;
  p.m = p.n = p.k = 512;
  p.vec_a = p.vec_b = true;
  EXPECT_EQ(can_implement(p, c), "");
  GemmConfig unmarked = c;
  unmarked.jit = false;
  EXPECT_NE(can_implement(p, unmarked).find("add ':jit'"), std::string::npos);
  // Constraints named by can_implement before anything is compiled.
  const std::pair<const char*, const char*> bad[] = {
      {"tiled:128x128x32:w48x32:t8x8:s3:b2", "warp tile 48x32 must divide the block tile"},
      {"tiled:128x128x32:w64x64:t8x8:s3:b2", "exactly 32 lanes"},
      {"tiled:128x128x32:w64x32:t8x8:s1:b2", "at least 2 pipeline stages"},
      {"tiled:256x256x64:w64x64:t16x8:s4:b1", "shared memory"},
      {"tiled:128x128x12:w64x32:t8x8:s3:b2", "BK a multiple of 8"},
  };
  for (const auto& [text, why] : bad) {
    const std::string reason = can_implement(p, parse_gemm_config(text, "config"));
    EXPECT_NE(reason.find(why), std::string::npos) << text << ": " << reason;
    EXPECT_NE(reason.find("cannot be compiled"), std::string::npos) << reason;
  }
}

TEST(JitCompile, ARunTimeScheduleCompilesFromTheEmbeddedHeaders) {
  CanonicalGemm g;
  g.trans_b = true;
  g.vec_a = g.vec_b = true;
  const TileShape t{128, 128, 32, 64, 32, 8, 8, 3, 2};
  ASSERT_EQ(tile_shape_problem(t), "");
  const JitRequest r = tiled_jit_request(t, g, /*split*/ true);
  EXPECT_EQ(r.name_expression,
            "&tilegemm::kernels::gemm_split_tiled<tilegemm::kernels::WarpTiledSchedule<128, 128, 32, 64, 32, 8, 8, 3, "
            "2, 3, true>, false, true, false, false>");
  const JitBinary b = jit_compile("sm_90a", r);
  ASSERT_GT(b.cubin.size(), 1000u);
  EXPECT_EQ(std::string(b.cubin.data(), 4), "\x7f" "ELF");
  EXPECT_NE(b.lowered_name.find("gemm_split_tiled"), std::string::npos) << b.lowered_name;
  EXPECT_NE(std::string(b.cubin.begin(), b.cubin.end()).find(b.lowered_name), std::string::npos);
}

TEST(JitCompile, ATensorCoreScheduleCompilesWithBothOperands16ByteCopies) {
  CanonicalGemm g;
  g.trans_a = true;
  g.vec_a = g.vec_b = true;
  TileShape t{128, 128, 32, 64, 32, 0, 0, 3, 1};
  t.math = TileMath::Tf32x3;
  t.mma_steps = 1;
  ASSERT_EQ(tile_shape_problem(t), "");
  const JitRequest whole = tiled_jit_request(t, g, /*split*/ false);
  EXPECT_EQ(whole.name_expression,
            "&tilegemm::kernels::gemm_mma_tf32x3<tilegemm::kernels::MmaTf32x3Schedule<128, 128, 32, 64, 32, 3, 1, 1>, "
            "true, false, true, true>");
  const JitBinary b = jit_compile("sm_90a", tiled_jit_request(t, g, /*split*/ true));
  EXPECT_NE(b.lowered_name.find("gemm_split_tiled"), std::string::npos) << b.lowered_name;
  EXPECT_NE(b.lowered_name.find("MmaTf32x3Schedule"), std::string::npos) << b.lowered_name;
  // The tensor-core instruction is in the binary (the cubin's SASS holds HMMA.1688.F32.TF32).
  EXPECT_GT(b.cubin.size(), 1000u);
}

// Level 8 at run time: a schedule not compiled ahead (5 stages of 128 x 128, f16 in, f32 out, both
// operands MN-major; 6 stages of 128 x 64 in bf16) compiles from the embedded headers without CUDA's
// own (types_16bit.cuh).
TEST(JitCompile, AWgmmaScheduleCompilesWithoutTheToolkitHeaders) {
  ops::WgmmaLaunch l;
  l.in = DType::F16;
  l.out = DType::F32;
  l.schedule = {128, 1, false, 5};
  l.a_mn_major = l.b_mn_major = true;
  ASSERT_EQ(ops::wgmma_schedule_problem(l.schedule), "");
  ASSERT_FALSE(ops::wgmma_compiled(l.schedule));
  const JitRequest r = ops::wgmma_jit_request(l);
  EXPECT_EQ(r.name_expression,
            "&tilegemm::kernels::gemm_wgmma_tma<tilegemm::kernels::WgmmaIn::F16, float, 128, 5, true, true, 1, false, "
            "128>");
  const JitBinary b = jit_compile("sm_90a", r);
  ASSERT_GT(b.cubin.size(), 1000u);
  EXPECT_NE(b.lowered_name.find("gemm_wgmma_tma"), std::string::npos) << b.lowered_name;
  EXPECT_NE(std::string(b.cubin.begin(), b.cubin.end()).find(b.lowered_name), std::string::npos);
  l.in = l.out = DType::BF16;
  l.schedule = {256, 2, false, 3};
  EXPECT_EQ(ops::wgmma_jit_request(l).name_expression,
            "&tilegemm::kernels::gemm_wgmma_tma<tilegemm::kernels::WgmmaIn::BF16, tilegemm::kernels::bf16_t, 256, 3, "
            "true, true, 2, false, 128>");
  // 192-row tiles (three consumer warpgroups) name their rows last.
  l.schedule = {128, 1, false, 4, 192};
  EXPECT_EQ(ops::wgmma_jit_request(l).name_expression,
            "&tilegemm::kernels::gemm_wgmma_tma<tilegemm::kernels::WgmmaIn::BF16, tilegemm::kernels::bf16_t, 128, 4, "
            "true, true, 1, false, 192>");
  // 64 columns (m64n64 wgmmas, 32 accumulators a thread) compile at run time too.
  l.schedule = {64, 1, false, 6};
  ASSERT_FALSE(ops::wgmma_compiled(l.schedule));
  const JitBinary narrow = jit_compile("sm_90a", ops::wgmma_jit_request(l));
  EXPECT_NE(narrow.lowered_name.find("gemm_wgmma_tma"), std::string::npos) << narrow.lowered_name;
  EXPECT_GT(narrow.cubin.size(), 1000u);
  l.schedule = {256, 2, false, 3};
  // FP32 data as TF32: an MN-major A reaches wgmma through registers, B's tile is K-major whatever
  // B's orientation (the launch converts an MN-major B first); the register-A kernel compiles.
  l.in = l.out = DType::F32;
  l.tf32_split = false;
  EXPECT_EQ(ops::wgmma_jit_request(l).name_expression,
            "&tilegemm::kernels::gemm_wgmma_tma<tilegemm::kernels::WgmmaIn::TF32, float, 256, 3, true, false, 2, "
            "false, 128>");
  const JitBinary register_a = jit_compile("sm_90a", ops::wgmma_jit_request(l));
  EXPECT_GT(register_a.cubin.size(), 1000u);
}

TEST(JitCompile, ABrokenScheduleFailsWithTheCompilersMessage) {
  const JitRequest r{"kernels/gemm/split_tiled.cuh",
                     "&tilegemm::kernels::gemm_warp_tiled<tilegemm::kernels::WarpTiledSchedule<100, 128, 32, 64, 32, 8, "
                     "8, 3, 2, 3, true>, false, false, true, true>"};
  try {
    jit_compile("sm_90a", r);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::NvrtcError);
    const std::string what = e.what();
    EXPECT_NE(what.find("warp tile must divide the block tile"), std::string::npos) << what;
    EXPECT_NE(what.find("run-time compilation of"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace detail
}  // namespace tilegemm
