// The tuner and Kernel::Auto's use of the tuning database on the GPU: tune() measures, verifies and
// stores a winner that Auto then runs; a stored entry (even a slow one) wins over the analytic model
// for its device and problem only; entries of another device key, illegal configs and damaged files
// are ignored with one warning through the log callback, and products stay right.
// Names start with Small_ (also run under compute-sanitizer).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/device_buffer.hpp"
#include "core/device_context.hpp"
#include "random_product.hpp"
#include "scoped_env.hpp"
#include "tilegemm/tilegemm.hpp"
#include "tune/database.hpp"
#include "tune/keys.hpp"

namespace tilegemm {
namespace {

// Points TILEGEMM_TUNING_DB at a fresh folder's file for one test, and the library at it; restores
// the variable, the log callback and the library's tables afterwards.
class TuneTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    reload_tuning_database();
  }
  void TearDown() override { reload_tuning_database(); }
  std::vector<std::string> warnings() { return log_.warnings(); }
  testing_env::TempDir dir_{"tilegemm-tunetest"};
  const std::string db_ = dir_.path() + "/tuning.sqlite3";

 private:
  testing_env::ScopedEnv env_{"TILEGEMM_TUNING_DB", db_};
  testing_env::WarningLog log_;
};

GemmShape shape_of(int64_t m, int64_t n, int64_t k) {
  GemmShape s;
  s.m = m;
  s.n = n;
  s.k = k;
  return s;
}

TuneOptions quick(bool store) {
  TuneOptions o;
  o.max_measured = 4;
  o.min_time_s = 0.001;
  o.store = store;
  return o;
}

// Stores `config` for the problem `key` under this device's key (or a changed one).
void store_entry(const std::string& path, const std::string& key, const std::string& config,
                 const std::string& source_hash = "") {
  detail::TunedEntry e;
  e.device = detail::device_key(detail::current_device_context());
  if (!source_hash.empty()) e.device.source_hash = source_hash;
  e.problem = key;
  e.config = config;
  e.measured_us = 1.0;
  e.tuned_at = detail::utc_now();
  detail::TuningDatabase db(path, detail::TuningDatabase::Mode::ReadWrite);
  ASSERT_TRUE(db.put(e));
}

TEST_F(TuneTest, Small_TuneStoresAVerifiedWinnerThatAutoRuns) {
  RandomProduct p(192, 320, 200, false, 5);
  EXPECT_FALSE(p.explain().tuned);
  const TuneResult r = tune(shape_of(p.m, p.n, p.k), quick(true));
  EXPECT_EQ(r.problem, "gemm f32 192x320x200 NN a16 b16 beta0");
  ASSERT_GE(r.candidates.size(), 2u);
  EXPECT_EQ(r.auto_config, r.candidates[0].config);  // the model's pick is measured first
  EXPECT_EQ(r.auto_config, p.explain().config);
  EXPECT_GT(r.auto_us, 0.0);
  EXPECT_GE(r.measured, 2);
  EXPECT_LE(r.measured, 4);
  int measured = 0;
  for (const TuneCandidate& c : r.candidates) {
    EXPECT_TRUE(c.status == "measured" || c.status == "not measured") << c.config << ": " << c.status;
    if (c.status == "measured") {
      ++measured;
      EXPECT_GT(c.measured_us, 0.0);
      EXPECT_GE(c.measured_us, r.best_us);
    }
  }
  EXPECT_EQ(measured, r.measured);
  ASSERT_TRUE(r.stored);
  EXPECT_TRUE(std::filesystem::exists(db_));

  const GemmChoice choice = p.explain();
  EXPECT_TRUE(choice.tuned);
  EXPECT_EQ(choice.config, r.best_config);
  p.run_auto_and_check();
  EXPECT_TRUE(warnings().empty());

  // A second tune of the same problem replaces the entry only with a faster time.
  const TuneResult again = tune(shape_of(p.m, p.n, p.k), quick(true));
  detail::TuningDatabase db(db_, detail::TuningDatabase::Mode::ReadOnly);
  const auto entries = db.entries_for(detail::device_key(detail::current_device_context()));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_DOUBLE_EQ(entries[0].measured_us, std::min(r.best_us, again.best_us));
}

TEST_F(TuneTest, Small_StoredEntryWinsOverTheModelForItsProblemOnly) {
  RandomProduct p(130, 250, 96, false, 5), other(131, 250, 96, false, 6);
  const TuneResult r = tune(shape_of(p.m, p.n, p.k), [] {
    TuneOptions o = quick(false);
    o.max_measured = 1;
    return o;
  }());
  EXPECT_FALSE(r.stored);
  EXPECT_FALSE(std::filesystem::exists(db_));
  // The model's last choice, stored as if it had won: Auto must follow the database.
  const std::string last = r.candidates.back().config;
  ASSERT_NE(last, r.auto_config);
  store_entry(db_, r.problem, last);
  reload_tuning_database();
  const GemmChoice choice = p.explain();
  EXPECT_TRUE(choice.tuned);
  EXPECT_EQ(choice.config, last);
  EXPECT_NE(choice.reason.find("tuning database"), std::string::npos) << choice.reason;
  p.run_auto_and_check();
  EXPECT_FALSE(other.explain().tuned);  // another problem keeps the model's choice
  other.run_auto_and_check();
  EXPECT_TRUE(warnings().empty());
}

TEST_F(TuneTest, Small_EntryOfAnotherKernelSourceIsNotUsed) {
  RandomProduct p(130, 250, 96, false, 5);
  const std::string model = p.explain().config;
  const TuneResult r = tune(shape_of(p.m, p.n, p.k), [] {
    TuneOptions o = quick(false);
    o.max_measured = 1;
    return o;
  }());
  store_entry(db_, r.problem, r.candidates.back().config, "ffffffffffffffff");
  reload_tuning_database();
  const GemmChoice choice = p.explain();
  EXPECT_FALSE(choice.tuned);
  EXPECT_EQ(choice.config, model);
  p.run_auto_and_check();
  EXPECT_TRUE(warnings().empty());
}

TEST_F(TuneTest, Small_EntryThatCannotRunTheProblemFallsBackToTheModel) {
  // A GEMV config stored for a problem whose short side is 130: it cannot run, so the model decides.
  RandomProduct p(130, 250, 96, false, 5);
  const std::string model = p.explain().config;
  store_entry(db_, "gemm f32 130x250x96 NN a16 b16 beta0", "gemv-rows:s1:k1");
  reload_tuning_database();
  const GemmChoice choice = p.explain();
  EXPECT_FALSE(choice.tuned);
  EXPECT_EQ(choice.config, model);
  p.run_auto_and_check();
}

TEST_F(TuneTest, Small_IllegalConfigTextIsIgnoredWithOneWarning) {
  RandomProduct p(130, 250, 96, false, 5);
  const std::string model = p.explain().config;
  store_entry(db_, "gemm f32 130x250x96 NN a16 b16 beta0", "tiled:7x7x7");
  reload_tuning_database();
  p.run_auto_and_check();
  EXPECT_EQ(p.explain().config, model);
  RandomProduct q(64, 64, 64, false, 5);
  q.run_auto_and_check();
  const auto w = warnings();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("1 entry ignored"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("tiled:7x7x7"), std::string::npos) << w[0];
}

TEST_F(TuneTest, Small_DamagedDatabaseIsIgnoredWithOneWarning) {
  { std::ofstream(db_) << "this is not an SQLite database, it only has the name of one\n"; }
  reload_tuning_database();
  RandomProduct p(130, 250, 96, false, 5), q(64, 64, 64, false, 6);
  p.run_auto_and_check();
  q.run_auto_and_check();
  EXPECT_FALSE(p.explain().tuned);
  const auto w = warnings();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find(db_), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("analytic chooser"), std::string::npos) << w[0];
  // tune() into a damaged file: a named error before anything is measured.
  EXPECT_THROW(tune(shape_of(64, 64, 64), quick(true)), Error);
}

TEST_F(TuneTest, Small_RunTimeCompiledVariantsAreVerifiedAndMeasured) {
  const testing_env::ScopedEnv cache("TILEGEMM_CACHE_DIR", dir_.path() + "/cache");
  TuneOptions o = quick(false);
  o.run_time_configs = true;
  o.max_measured = 0;  // every config, the variants included
  o.budget_s = 600;    // under compute-sanitizer too
  const TuneResult r = tune(shape_of(300, 200, 260), o);
  int variants = 0, measured = 0;
  for (const TuneCandidate& c : r.candidates)
    if (c.config.size() > 4 && c.config.compare(c.config.size() - 4, 4, ":jit") == 0) {
      ++variants;
      EXPECT_EQ(c.status, "measured") << c.config;
      measured += c.measured_us > 0;
    }
  EXPECT_GE(variants, 4);
  EXPECT_EQ(measured, variants);
  EXPECT_TRUE(r.exhaustive);
  EXPECT_GT(r.compile_seconds, 0.0);
}

// 16-bit products: every candidate (level 8 here) verified against level 5 on the same values widened
// to FP32, the winner stored under the product's typed key and run by Auto; then f16 with level 8's
// run-time compiled schedules (other stage counts, clusters, ping-pong) verified and measured too.
TEST_F(TuneTest, SixteenBitProductsTuneStoreAndRunAtRunTime) {
  const testing_env::ScopedEnv cache("TILEGEMM_CACHE_DIR", dir_.path() + "/cache");
  GemmShape s = shape_of(640, 520, 384);
  s.dtype = DType::BF16;
  s.op_b = Op::T;
  s.beta_zero = false;
  const TuneResult r = tune(s, quick(true));
  EXPECT_EQ(r.problem.rfind("gemm bf16.bf16.bf16 640x520x384 NT ", 0), 0u) << r.problem;
  EXPECT_GE(r.measured, 2);
  for (const TuneCandidate& c : r.candidates) {
    EXPECT_TRUE(c.status == "measured" || c.status == "not measured") << c.config << ": " << c.status;
    EXPECT_EQ(c.config.rfind("wgmma:", 0), 0u) << c.config;
  }
  ASSERT_TRUE(r.stored);
  DeviceBuffer<uint16_t> a(640 * 384), b(520 * 384), c(640 * 520);
  GemmArgs args;
  args.op_b = Op::T;
  args.m = 640;
  args.n = 520;
  args.k = 384;
  args.a = MatrixArg{DType::BF16, a.get(), 384, 0};
  args.b = MatrixArg{DType::BF16, b.get(), 384, 0};
  args.c = OutputArg{DType::BF16, c.get(), 520, 0};
  args.epilogue.beta = 1.0f;
  const GemmChoice choice = explain_choice(args);
  EXPECT_TRUE(choice.tuned) << choice.reason;
  EXPECT_EQ(choice.config, r.best_config);

  GemmShape h = shape_of(300, 200, 260);
  h.dtype = DType::F16;
  TuneOptions o = quick(false);
  o.run_time_configs = true;
  o.max_measured = 0;
  o.budget_s = 600;
  const TuneResult rt = tune(h, o);
  int variants = 0;
  for (const TuneCandidate& cand : rt.candidates) {
    if (cand.config.find(":jit") == std::string::npos) continue;
    ++variants;
    EXPECT_EQ(cand.status, "measured") << cand.config;
    EXPECT_GT(cand.measured_us, 0.0) << cand.config;
  }
  EXPECT_GE(variants, 2);
  EXPECT_TRUE(rt.exhaustive);
  EXPECT_GT(rt.compile_seconds, 0.0);
}

// A batched product with a fused epilogue: every candidate verified against level 5 with the bias and
// GELU applied by its elementwise pass, the winner stored under a key that ends with the batch and
// the epilogue; Auto runs it for that call only. A call with another epilogue has no entry of its
// own and takes the single plain product's once one is stored.
TEST_F(TuneTest, Small_BatchedEpilogueTunesUnderItsOwnKeyAndFallsBackToThePlainOne) {
  GemmShape s = shape_of(192, 256, 136);
  s.dtype = DType::BF16;
  s.op_b = Op::T;
  s.batch = 3;
  s.bias = BiasKind::PerColumn;
  s.activation = Activation::GeluTanh;
  const TuneResult r = tune(s, quick(true));
  const std::string suffix = " beta0 batch3 epi=column+gelu-tanh";
  ASSERT_GT(r.problem.size(), suffix.size());
  EXPECT_EQ(r.problem.substr(r.problem.size() - suffix.size()), suffix) << r.problem;
  EXPECT_EQ(r.problem.rfind("gemm bf16", 0), 0u) << r.problem;
  EXPECT_GE(r.measured, 2);
  for (const TuneCandidate& c : r.candidates)
    EXPECT_TRUE(c.status == "measured" || c.status == "not measured") << c.config << ": " << c.status;
  ASSERT_TRUE(r.stored);

  // The same call as the tuner's (batches one matrix apart, a bf16 bias per column).
  DeviceBuffer<uint16_t> a(3 * 192 * 136), b(3 * 256 * 136), c(3 * 192 * 256), bias(256);
  GemmArgs args;
  args.op_b = Op::T;
  args.m = 192;
  args.n = 256;
  args.k = 136;
  args.batch = 3;
  args.a = MatrixArg{DType::BF16, a.get(), 136, 192 * 136};
  args.b = MatrixArg{DType::BF16, b.get(), 136, 256 * 136};
  args.c = OutputArg{DType::BF16, c.get(), 256, 192 * 256};
  args.epilogue.bias_kind = BiasKind::PerColumn;
  args.epilogue.bias = bias.get();
  args.epilogue.bias_type = DType::BF16;
  args.epilogue.activation = Activation::GeluTanh;
  GemmChoice choice = explain_choice(args);
  EXPECT_TRUE(choice.tuned) << choice.reason;
  EXPECT_EQ(choice.config, r.best_config);

  // ReLU instead: no entry of its own, and no plain one yet.
  args.epilogue.activation = Activation::Relu;
  EXPECT_FALSE(explain_choice(args).tuned);
  const std::string plain_key = r.problem.substr(0, r.problem.size() - suffix.size()) + " beta0";
  store_entry(db_, plain_key, r.candidates.back().config);
  reload_tuning_database();
  choice = explain_choice(args);
  EXPECT_TRUE(choice.tuned) << choice.reason;
  EXPECT_EQ(choice.config, r.candidates.back().config);
  // The GELU call keeps its own entry.
  args.epilogue.activation = Activation::GeluTanh;
  EXPECT_EQ(explain_choice(args).config, r.best_config);
}

TEST_F(TuneTest, Small_TransposedColumnMajorOffsetShape) {
  // A col-major TN product with ld + 3 and an offset of 1: the tuner verifies every candidate on it.
  GemmShape s;
  s.layout = Layout::ColMajor;
  s.op_a = Op::T;
  s.m = 77;
  s.n = 150;
  s.k = 301;
  s.lda = 301 + 3;
  s.ldb = 301 + 3;
  s.ldc = 77 + 3;
  s.offset = 1;
  s.beta_zero = false;
  const TuneResult r = tune(s, quick(false));
  EXPECT_GE(r.measured, 2);
  // ld + 3 = 304 and offset 1: every row of A and B 1 float past a 16-byte boundary.
  EXPECT_NE(r.problem.find("a4s b4s same-shift beta1"), std::string::npos) << r.problem;
  for (const TuneCandidate& c : r.candidates)
    EXPECT_TRUE(c.status == "measured" || c.status == "not measured") << c.config << ": " << c.status;
}

}  // namespace
}  // namespace tilegemm
