// BSR configs on the GPU (BsrOptions::config, src/sparse/config.hpp): every schedule compiled ahead
// of time, on every product it is compiled for, matches the CPU reference; a ':jit' twin computes
// bitwise the same Y; schedules not compiled ahead run through NVRTC; bad configs are refused before
// anything is launched with Y untouched; the BSR tuner verifies, measures and stores a winner that
// Auto then runs (seen through the run-time compilation cache). Names start with Small_ (also run
// under compute-sanitizer).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/device_buffer.hpp"
#include "core/device_context.hpp"
#include "ref/bsr_reference.hpp"
#include "ref/reference.hpp"
#include "scoped_env.hpp"
#include "ops/bsr_call.hpp"
#include "ops/families/bsr_common/bsr_family.hpp"
#include "ops/keys.hpp"
#include "sparse/config.hpp"
#include "sparse/launch.hpp"
#include "tilegemm/tilegemm.hpp"
#include "tune/database.hpp"
#include "tune/keys.hpp"

namespace tilegemm {
namespace {

using testing_env::ScopedEnv;
using testing_env::TempDir;
using testing_env::WarningLog;

// One product (xwt or wx) with a random W and X, its CPU reference, and device buffers.
struct ConfigProduct {
  bool xwt;
  BsrMatrix w;
  DeviceBsrMatrix dw;
  int64_t m, n, k, ldx;
  std::vector<float> want;
  DeviceBuffer<float> dx, dy;

  // W is rows x cols with R x C blocks at sparsity 0.5; `batch` dense rows (xwt) or columns (wx).
  ConfigProduct(bool xwt_, int64_t rows, int64_t cols, int r, int c, int64_t batch, uint64_t seed)
      : xwt(xwt_), w(generate_bsr(rows, cols, r, c, 0.5, RowDistribution::Skewed, seed)), dw(w),
        m(xwt ? batch : rows), n(xwt ? rows : batch), k(cols), ldx(xwt ? k : n) {
    std::mt19937_64 rng(seed + 1);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> x(static_cast<size_t>(xwt ? m * k : k * n));
    for (float& v : x) v = dist(rng);
    want.resize(static_cast<size_t>(m * n));
    if (xwt) ref::bsr_xwt(m, n, k, 1.0f, x.data(), ldx, w, 0.0f, want.data(), n);
    else ref::bsr_wx(m, n, k, 1.0f, w, x.data(), ldx, 0.0f, want.data(), n);
    dx = DeviceBuffer<float>(x.size());
    dx.upload(x);
    dy = DeviceBuffer<float>(want.size());
  }
  // Y (poisoned first) from one call with `options`.
  std::vector<float> run(const BsrOptions& options) {
    dy.upload(std::vector<float>(want.size(), std::nanf("")));
    if (xwt) bsr_xwt(m, n, k, 1.0f, dx.get(), ldx, dw, 0.0f, dy.get(), n, nullptr, options);
    else bsr_wx(m, n, k, 1.0f, dw, dx.get(), ldx, 0.0f, dy.get(), n, nullptr, options);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    return dy.download();
  }
  std::vector<float> run(const std::string& config) {
    BsrOptions o;
    o.config = config;
    return run(o);
  }
  void expect_near_reference(const std::vector<float>& got) const {
    const double tol = ref::fp32_gemm_error_bound(k);
    int bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
      if (!(std::fabs(double(got[i]) - double(want[i])) <= tol) && bad++ < 5)
        ADD_FAILURE() << "element " << i << " = " << got[i] << ", expected " << want[i] << " (tolerance " << tol << ")";
    EXPECT_EQ(bad, 0);
  }
};

detail::BsrConfig compiled_config(int i) {
  detail::BsrConfig c;
  c.family = detail::kBsrSchedules[i].family;
  c.tile = detail::kBsrSchedules[i].tile;
  return c;
}

// 16 x 16 blocks with k % 4 == 0 take 16-byte copies; 8 x 6 blocks with k = 150 take 4-byte ones.
TEST(BsrConfigs, Small_EveryCompiledScheduleMatchesTheReferenceOnItsProducts) {
  for (bool xwt : {true, false})
    for (bool vec : {true, false}) {
      ConfigProduct p(xwt, vec ? 96 : 72, vec ? 192 : 150, vec ? 16 : 8, vec ? 16 : 6, vec ? 152 : 150, xwt ? 11 : 12);
      for (int i = 0; i < detail::kNumBsrSchedules; ++i) {
        const detail::BsrConfig c = compiled_config(i);
        if (!detail::bsr_compiled(c.family, c.tile, xwt, vec)) continue;
        SCOPED_TRACE(detail::to_string(c) + (xwt ? " xwt" : " wx") + (vec ? " 16-byte" : " 4-byte"));
        p.expect_near_reference(p.run(detail::to_string(c)));
      }
    }
}

TEST(BsrConfigs, Small_JitTwinIsBitwiseTheSame) {
  const char* configs[] = {"bsr-tiled:16x256x16:t4x8:s3", "bsr-tf32x3:32x128x16:w2x2:s4"};
  for (bool xwt : {true, false}) {
    ConfigProduct p(xwt, 96, 192, 32, 32, 130, 21);
    for (const char* config : configs) {
      SCOPED_TRACE(std::string(config) + (xwt ? " xwt" : " wx"));
      const std::vector<float> aot = p.run(config);
      p.expect_near_reference(aot);
      const std::vector<float> jit = p.run(std::string(config) + ":jit");
      ASSERT_EQ(aot.size(), jit.size());
      EXPECT_EQ(std::memcmp(aot.data(), jit.data(), aot.size() * sizeof(float)), 0);
    }
  }
}

TEST(BsrConfigs, Small_SchedulesNotCompiledAheadMatchTheReference) {
  // A narrow 03 tile, a 2-stage 04 tile, and a candidate (compiled for xwt with 16-byte copies only)
  // on the other products.
  const char* configs[] = {"bsr-tiled:16x64x16:t2x4:s3", "bsr-tf32x3:16x64x16:w1x2:s2", "bsr-tiled:16x128x16:t2x8:s4"};
  for (bool xwt : {true, false})
    for (bool vec : {true, false}) {
      if (xwt && vec) continue;
      ConfigProduct p(xwt, vec ? 96 : 72, vec ? 192 : 150, vec ? 16 : 8, vec ? 16 : 6, vec ? 76 : 77, 31);
      for (const char* config : configs) {
        SCOPED_TRACE(std::string(config) + (xwt ? " xwt" : " wx") + (vec ? " 16-byte" : " 4-byte"));
        p.expect_near_reference(p.run(config));
      }
    }
}

TEST(BsrConfigs, Small_BadConfigsAreRefusedBeforeLaunchWithYUntouched) {
  ConfigProduct p(true, 96, 192, 16, 16, 40, 41);
  const std::vector<float> sentinel(p.want.size(), 7.0f);
  auto expect_refused = [&](const BsrOptions& o, const std::string& needle) {
    p.dy.upload(sentinel);
    try {
      bsr_xwt(p.m, p.n, p.k, 1.0f, p.dx.get(), p.ldx, p.dw, 0.0f, p.dy.get(), p.n, nullptr, o);
      ADD_FAILURE() << "no error; expected " << needle;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(p.dy.download(), sentinel);
  };
  BsrOptions o;
  o.config = "bsr-tiled:16x256x16:t4x8:s3";
  o.kernel = BsrKernel::Tiled;
  expect_refused(o, "bsr_xwt: options.config = 'bsr-tiled:16x256x16:t4x8:s3' needs options.kernel = auto");
  o.kernel = BsrKernel::Auto;
  o.config = "tiled:128x256x32:w64x64:t16x8:s4:b1";
  expect_refused(o, "bsr_xwt: options.config: 'tiled:128x256x32:w64x64:t16x8:s4:b1' is not a BSR config");
  o.config = "bsr-tf32x3:64x256x16:w4x8:s3";  // 1024 threads
  expect_refused(o, "1024 threads: at most 512");
  o.config = "bsr-tiled:16x256x12:t4x8:s3";  // 12-float K-chunks: no whole 16-byte copies per thread
  expect_refused(o, "cannot run this product: the W copy (12 floats per row, 4 per copy)");
}

// The tuning database and the run-time compilation cache in a fresh folder for one test.
struct FreshTuningFolder {
  TempDir dir{"tilegemm-bsrtune"};
  ScopedEnv db{"TILEGEMM_TUNING_DB", dir.path() + "/tuning.sqlite3"};
  ScopedEnv cache{"TILEGEMM_CACHE_DIR", dir.path()};
  FreshTuningFolder() { reload_tuning_database(); }
  ~FreshTuningFolder() { reload_tuning_database(); }
  std::string db_path() const { return dir.path() + "/tuning.sqlite3"; }
};

// A stored entry for the product's key makes Auto run that config: a run-time compiled schedule
// nobody else uses, whose binary then appears in the disk cache.
// bsr_workspace_bytes: nothing for the reduction and small-m kernels or for rows that do not split;
// for a block row far longer than the others (split over thread blocks), at least two pieces'
// partial tiles, and the product with that config still matches the reference.
// The sparse layer's description of Y = X W^T, m x n x k, through the operation model.
detail::BsrProblem xwt_problem(int64_t m, int64_t n, int64_t k, const float* x, int64_t ldx, const DeviceBsrMatrix& w,
                               float* y, int64_t ldy) {
  const ops::BsrCall call = ops::bsr_call(ops::OpKind::BsrXwt, m, n, k, 1.0f, x, ldx, w, 0.0f, y, ldy);
  return ops::bsr_problem(call.problem, &call.operands);
}

TEST(BsrConfigs, Small_WorkspaceBytesFollowTheSplit) {
  constexpr int kR = 32, kBrows = 64, kBatch = 256;
  BsrMatrix w;
  w.rows = w.cols = kR * kBrows;
  w.block_rows = w.block_cols = kR;
  w.index_pointer.assign(1, 0);
  for (int i = 0; i < kBrows; ++i) {  // row 0 holds every block, the others their diagonal block
    for (int j = 0; j < kBrows; ++j)
      if (i == 0 || j == i) w.block_indices.push_back(j);
    w.index_pointer.push_back(static_cast<int32_t>(w.block_indices.size()));
  }
  w.block_data.assign(w.block_indices.size() * kR * kR, 0.5f);
  const DeviceBsrMatrix dw(w);
  DeviceBuffer<float> x(static_cast<size_t>(kBatch) * w.cols), y(static_cast<size_t>(kBatch) * w.rows);
  const detail::BsrProblem prob = xwt_problem(kBatch, w.rows, w.cols, x.get(), w.cols, dw, y.get(), w.rows);
  for (const char* text : {"bsr-reduction", "bsr-small-m"})
    EXPECT_EQ(detail::bsr_workspace_bytes(prob, detail::parse_bsr_config(text, "config")), 0u) << text;
  const detail::BsrConfig tiled = detail::parse_bsr_config("bsr-tiled:32x128x16:t4x8:s4", "config");
  const size_t bytes = detail::bsr_workspace_bytes(prob, tiled);
  EXPECT_GE(bytes, size_t(2) * 32 * 128 * sizeof(float));
  EXPECT_EQ(bytes % 256, 0u);

  // The same schedule on the rows without the long one: no split, no workspace.
  BsrMatrix short_rows = w;
  short_rows.block_indices.erase(short_rows.block_indices.begin(), short_rows.block_indices.begin() + kBrows - 1);
  for (size_t i = 1; i < short_rows.index_pointer.size(); ++i) short_rows.index_pointer[i] = static_cast<int32_t>(i);
  short_rows.block_data.resize(short_rows.block_indices.size() * kR * kR);
  const DeviceBsrMatrix dshort(short_rows);
  EXPECT_EQ(detail::bsr_workspace_bytes(
                xwt_problem(kBatch, w.rows, w.cols, x.get(), w.cols, dshort, y.get(), w.rows),
                tiled),
            0u);

  // A schedule whose copies do not split for the product is refused, naming it.
  try {
    detail::bsr_workspace_bytes(prob, detail::parse_bsr_config("bsr-tiled:16x256x12:t4x8:s3", "config"));
    ADD_FAILURE() << "no error for 12-float K-chunks with 16-byte copies";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("bsr_workspace_bytes: bsr-tiled:16x256x12:t4x8:s3"), std::string::npos)
        << e.what();
  }
}

TEST(BsrConfigs, Small_TunedEntryIsWhatAutoRuns) {
  FreshTuningFolder folder;
  ASSERT_FALSE(folder.dir.path().empty());
  WarningLog log;
  ConfigProduct p(true, 96, 192, 16, 16, 50, 51);
  const ops::BsrCall call =
      ops::bsr_call(ops::OpKind::BsrXwt, p.m, p.n, p.k, 1.0f, p.dx.get(), p.ldx, p.dw, 0.0f, p.dy.get(), p.n);
  const detail::BsrProblem prob = ops::bsr_problem(call.problem, &call.operands);
  const detail::BsrConfig c = detail::parse_bsr_config("bsr-tiled:16x64x16:t2x4:s4", "test");
  const detail::DeviceContext& ctx = detail::current_device_context();
  const std::string cached = detail::jit_cache_path(ctx, detail::bsr_tiled_jit_request(c.family, c.tile, true, prob.vec()));
  {
    detail::TuningDatabase db(folder.db_path(), detail::TuningDatabase::Mode::ReadWrite);
    detail::TunedEntry e;
    e.device = detail::device_key(ctx);
    e.problem = ops::problem_key(call.problem);
    e.config = detail::to_string(c);
    e.measured_us = 1;
    e.tuned_at = "2026-11-25T00:00:00Z";
    ASSERT_TRUE(db.put(e));
  }
  reload_tuning_database();
  EXPECT_FALSE(std::filesystem::exists(cached));
  p.expect_near_reference(p.run(BsrOptions{}));
  EXPECT_TRUE(std::filesystem::exists(cached)) << cached;
  EXPECT_TRUE(log.warnings().empty());
}

TEST(BsrConfigs, Small_TuneVerifiesMeasuresAndStores) {
  FreshTuningFolder folder;
  ASSERT_FALSE(folder.dir.path().empty());
  for (bool xwt : {true, false}) {
    SCOPED_TRACE(xwt ? "xwt" : "wx");
    const BsrMatrix w = generate_bsr(128, 256, 32, 32, 0.6, RowDistribution::Skewed, 61);
    const DeviceBsrMatrix dw(w);
    BsrShape s;
    s.product = xwt ? BsrProduct::Xwt : BsrProduct::Wx;
    s.m = xwt ? 96 : 128;
    s.n = xwt ? 128 : 96;
    s.k = 256;
    TuneOptions o;
    o.min_time_s = 0.002;
    o.run_time_configs = !xwt;  // wx also measures run-time variants
    int progress = 0;
    o.progress = [&](const TuneProgress&) { ++progress; };
    const TuneResult r = tune(s, dw, o);
    EXPECT_EQ(r.problem.rfind(xwt ? "bsr xwt f32 96x128x256 b32x32 " : "bsr wx f32 128x96x256 b32x32 ", 0), 0u)
        << r.problem;
    ASSERT_FALSE(r.candidates.empty());
    EXPECT_EQ(r.auto_config, r.candidates[0].config);
    EXPECT_GT(r.auto_us, 0);
    EXPECT_GE(r.measured, 3);
    EXPECT_EQ(progress, std::min<int>(12, static_cast<int>(r.candidates.size())));
    for (const TuneCandidate& c : r.candidates)
      EXPECT_TRUE(c.status == "measured" || c.status == "not measured") << c.config << ": " << c.status;
    EXPECT_TRUE(r.stored);
    EXPECT_FALSE(r.best_config.empty());
    if (!xwt) {
      bool jit = false;
      for (const TuneCandidate& c : r.candidates) jit = jit || c.config.find(":jit") != std::string::npos;
      EXPECT_TRUE(jit);
    }
    detail::TuningDatabase db(folder.db_path(), detail::TuningDatabase::Mode::ReadOnly);
    bool found = false;
    for (const detail::TunedEntry& e : db.all()) found = found || (e.problem == r.problem && e.config == r.best_config);
    EXPECT_TRUE(found);
  }
}

}  // namespace
}  // namespace tilegemm
