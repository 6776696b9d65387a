// Run-time compiled configs on the GPU: a ':jit' twin of a compiled config computes bitwise the same
// C; schedules nobody compiled ahead of time match the CPU reference; the binary lands in the disk
// cache under TILEGEMM_CACHE_DIR, and a cached file that does not load is replaced with one warning.
// Names start with Small_ (also run under compute-sanitizer).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/device_context.hpp"
#include "dense/gemm_ops.hpp"
#include "dense/launch.hpp"
#include "jit/jit.hpp"
#include "jit/nvrtc_api.hpp"
#include "random_product.hpp"
#include "scoped_env.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

// TILEGEMM_CACHE_DIR in a fresh folder for the test; warnings collected.
class JitTest : public testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(dir_.empty()); }
  std::vector<std::string> warnings() { return log_.warnings(); }
  testing_env::TempDir temp_{"tilegemm-jittest"};
  const std::string dir_ = temp_.path();

 private:
  testing_env::ScopedEnv env_{"TILEGEMM_CACHE_DIR", dir_};
  testing_env::WarningLog log_;
};

std::vector<float> run(RandomProduct& p, const std::string& config) {
  p.poison();
  p.run(config, nullptr);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  return p.c.download();
}

TEST_F(JitTest, Small_TwinOfACompiledConfigIsBitwiseTheSame) {
  const char* configs[] = {
      "tiled:128x128x16:w64x32:t8x8:s4:b2:k1:hilbert",   // level 6's kernel
      "tiled:64x128x16:w32x64:t8x8:s3:b4:k3:hilbert",    // split-K
      "tiled:64x64x16:w32x32:t8x4:s3:b6:tail3:hilbert",  // stream-K style tail
  };
  for (bool trans_b : {false, true}) {
    RandomProduct p(300, 260, 333, trans_b, 41);
    for (const char* config : configs) {
      SCOPED_TRACE(std::string(config) + (trans_b ? " NT" : " NN"));
      const std::vector<float> aot = run(p, config);
      p.expect_near_reference(aot);
      const std::vector<float> jit = run(p, std::string(config) + ":jit");
      ASSERT_EQ(aot.size(), jit.size());
      EXPECT_EQ(std::memcmp(aot.data(), jit.data(), aot.size() * sizeof(float)), 0);
    }
  }
  EXPECT_TRUE(warnings().empty());
}

// The GEMV kernels' run-time twins: both kernels, split and not, both orientations of the long
// operand (small M runs W = B, small N runs W = A).
TEST_F(JitTest, Small_GemvTwinIsBitwiseTheSame) {
  struct Case {
    int m, n, k;
    bool trans_b;
    const char* config;
  } cases[] = {
      {3, 700, 333, false, "gemv-cols:s4:k1"}, {3, 700, 333, false, "gemv-cols:s4:k5"},
      {13, 520, 260, true, "gemv-rows:s16:k1"}, {13, 520, 260, true, "gemv-rows:s16:k3"},
      {1, 300, 515, false, "gemv-cols:s1:l8:k2"}, {1, 300, 515, false, "gemv-cols:s1:l32:k1"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.config) + (c.trans_b ? " NT" : " NN"));
    RandomProduct p(c.m, c.n, c.k, c.trans_b, 47);
    const std::vector<float> aot = run(p, c.config);
    p.expect_near_reference(aot);
    const std::vector<float> jit = run(p, std::string(c.config) + ":jit");
    ASSERT_EQ(aot.size(), jit.size());
    EXPECT_EQ(std::memcmp(aot.data(), jit.data(), aot.size() * sizeof(float)), 0);
  }
  EXPECT_TRUE(warnings().empty());
}

TEST_F(JitTest, Small_SchedulesNotCompiledAheadMatchTheReference) {
  const char* configs[] = {
      "tiled:128x128x32:w64x32:t8x8:s3:b2:k2:hilbert",
      "tiled:64x128x32:w32x64:t8x8:s4:b2:k1:grouped",
      "tiled:128x64x32:w64x32:t8x8:s2:b3:tail2:rowmajor",
  };
  for (bool trans_b : {false, true}) {
    RandomProduct p(257, 190, 515, trans_b, 43);
    for (const char* config : configs) {
      SCOPED_TRACE(std::string(config) + (trans_b ? " NT" : " NN"));
      p.expect_near_reference(run(p, config));
    }
  }
}

TEST_F(JitTest, Small_BinaryIsCachedOnDiskAndABadCacheFileIsReplaced) {
  // Schedules used by no other test, so neither is loaded in this process yet.
  const detail::TileShape fresh{64, 64, 32, 32, 32, 8, 4, 4, 4}, damaged{64, 64, 32, 32, 32, 8, 4, 2, 4};
  RandomProduct p(200, 150, 100, false, 47);
  detail::CanonicalGemm g;
  g.vec_a = p.k % 4 == 0;  // RandomProduct's buffers are 16-byte aligned; row-major NN: lda = k, ldb = n
  g.vec_b = p.n % 4 == 0;
  const detail::DeviceContext& ctx = detail::current_device_context();

  const detail::JitRequest r1 = detail::tiled_jit_request(fresh, g, false);
  const std::string path1 = detail::jit_cache_path(ctx, r1);
  EXPECT_EQ(path1.rfind(dir_ + "/kernels/", 0), 0u) << path1;
  EXPECT_FALSE(std::filesystem::exists(path1));
  p.expect_near_reference(run(p, "tiled:64x64x32:w32x32:t8x4:s4:b4:k1:hilbert"));
  ASSERT_TRUE(std::filesystem::exists(path1)) << path1;
  EXPECT_GT(std::filesystem::file_size(path1), 1000u);

  // A cache file with the right key but a CUBIN that does not load.
  const detail::JitRequest r2 = detail::tiled_jit_request(damaged, g, false);
  const std::string path2 = detail::jit_cache_path(ctx, r2);
  const detail::NvrtcApi& api = detail::nvrtc();
  const std::string key = detail::jit_cache_key(detail::jit_sources_hash(), detail::jit_arch(ctx.cc_major, ctx.cc_minor),
                                                api.major, api.minor, r2);
  std::filesystem::create_directories(dir_ + "/kernels");
  { std::ofstream(path2, std::ios::binary) << "tilegemm run-time compiled kernel 1\n" << key << "\n_Z3badv\nnot a cubin"; }
  p.expect_near_reference(run(p, "tiled:64x64x32:w32x32:t8x4:s2:b4:k1:hilbert"));
  const std::vector<std::string> w = warnings();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find(path2), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("compiled again"), std::string::npos) << w[0];
  EXPECT_GT(std::filesystem::file_size(path2), 1000u);  // replaced by the good binary
}

}  // namespace
}  // namespace tilegemm
