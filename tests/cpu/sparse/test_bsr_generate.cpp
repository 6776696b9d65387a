// generate_bsr: exact block count, achieved sparsity, valid structure, row distributions,
// values, determinism and argument errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "bsr_test_util.hpp"
#include "tilegemm/bsr.hpp"

namespace {

using bsr_test::expect_error;
using tilegemm::BsrMatrix;
using tilegemm::RowDistribution;

struct GenCase {
  int64_t rows, cols;
  int r, c;
  double sparsity;
};
const GenCase kCases[] = {
    {4096, 4096, 16, 16, 0.9}, {1024, 2048, 32, 32, 0.5}, {512, 768, 64, 64, 0.75},
    {640, 320, 16, 32, 0.95},  {256, 512, 32, 8, 0.3},    {96, 80, 8, 8, 0.0},
    {96, 80, 8, 8, 1.0},       {100, 100, 1, 1, 0.99},    {64, 64, 8, 8, 0.33333},
    {48, 64, 16, 16, 0.5},     {0, 64, 8, 8, 0.5},        {64, 0, 8, 8, 0.5},
};

std::vector<int64_t> row_counts(const BsrMatrix& m) {
  std::vector<int64_t> counts;
  for (size_t i = 0; i + 1 < m.index_pointer.size(); ++i)
    counts.push_back(m.index_pointer[i + 1] - m.index_pointer[i]);
  return counts;
}

std::string name(const GenCase& g, RowDistribution d) {
  return std::to_string(g.rows) + "x" + std::to_string(g.cols) + " blocks " + std::to_string(g.r) +
         "x" + std::to_string(g.c) + " sparsity " + std::to_string(g.sparsity) +
         (d == RowDistribution::Uniform ? " uniform" : " skewed");
}

TEST(BsrGenerate, ExactCountValidStructureAndValues) {
  for (const GenCase& g : kCases)
    for (RowDistribution d : {RowDistribution::Uniform, RowDistribution::Skewed}) {
      SCOPED_TRACE(name(g, d));
      const BsrMatrix m = tilegemm::generate_bsr(g.rows, g.cols, g.r, g.c, g.sparsity, d, 42);
      ASSERT_NO_THROW(tilegemm::validate(m));  // in range, sorted, no duplicates, sizes
      EXPECT_EQ(m.rows, g.rows);
      EXPECT_EQ(m.cols, g.cols);
      EXPECT_EQ(m.block_rows, g.r);
      EXPECT_EQ(m.block_cols, g.c);
      const int64_t total = m.block_row_count() * m.block_col_count();
      EXPECT_EQ(m.nnzb(), std::llround((1.0 - g.sparsity) * static_cast<double>(total)));
      if (total > 0) {
        const double achieved = 1.0 - static_cast<double>(m.nnzb()) / static_cast<double>(total);
        EXPECT_LE(std::fabs(achieved - g.sparsity), 1.0 / static_cast<double>(total));
      }
      for (float v : m.block_data) {
        ASSERT_NE(v, 0.0f);
        ASSERT_GE(v, -1.0f);
        ASSERT_LT(v, 1.0f);
      }
    }
}

TEST(BsrGenerate, UniformRowsWithinOneOfTheMean) {
  for (const GenCase& g : kCases) {
    SCOPED_TRACE(name(g, RowDistribution::Uniform));
    const BsrMatrix m =
        tilegemm::generate_bsr(g.rows, g.cols, g.r, g.c, g.sparsity, RowDistribution::Uniform, 7);
    if (m.block_row_count() == 0) continue;
    const double mean = static_cast<double>(m.nnzb()) / static_cast<double>(m.block_row_count());
    for (int64_t n : row_counts(m)) {
      EXPECT_GE(n, static_cast<int64_t>(std::floor(mean)));
      EXPECT_LE(n, static_cast<int64_t>(std::ceil(mean)));
    }
  }
}

TEST(BsrGenerate, SkewedHasAHeavyTail) {
  // 256 x 256 blocks at 90% sparsity: mean 25.6 blocks per row, cap 256.
  const BsrMatrix m = tilegemm::generate_bsr(4096, 4096, 16, 16, 0.9, RowDistribution::Skewed, 3);
  const std::vector<int64_t> counts = row_counts(m);
  const double mean = static_cast<double>(m.nnzb()) / static_cast<double>(counts.size());
  const int64_t max = *std::max_element(counts.begin(), counts.end());
  const int64_t min = *std::min_element(counts.begin(), counts.end());
  EXPECT_GE(static_cast<double>(max), 3.0 * mean);
  EXPECT_LE(max, m.block_col_count());
  EXPECT_LT(static_cast<double>(min), 0.5 * mean);
  // The heavy rows are spread out, not stacked at the top.
  const int64_t argmax = std::max_element(counts.begin(), counts.end()) - counts.begin();
  const BsrMatrix other =
      tilegemm::generate_bsr(4096, 4096, 16, 16, 0.9, RowDistribution::Skewed, 4);
  const std::vector<int64_t> other_counts = row_counts(other);
  EXPECT_NE(argmax,
            std::max_element(other_counts.begin(), other_counts.end()) - other_counts.begin());
}

TEST(BsrGenerate, SkewedRespectsTheCapAtLowSparsity) {
  // At 10% sparsity most of the heavy rows are full; the rest must still add up exactly.
  const BsrMatrix m = tilegemm::generate_bsr(1024, 512, 8, 8, 0.1, RowDistribution::Skewed, 5);
  ASSERT_NO_THROW(tilegemm::validate(m));
  const std::vector<int64_t> counts = row_counts(m);
  int64_t full = 0;
  for (int64_t n : counts) {
    EXPECT_LE(n, m.block_col_count());
    full += n == m.block_col_count();
  }
  EXPECT_GT(full, 1);
  EXPECT_EQ(m.nnzb(), std::llround(0.9 * 128 * 64));
}

TEST(BsrGenerate, DeterministicPerSeed) {
  for (RowDistribution d : {RowDistribution::Uniform, RowDistribution::Skewed}) {
    const BsrMatrix a = tilegemm::generate_bsr(512, 1024, 16, 32, 0.8, d, 123);
    const BsrMatrix b = tilegemm::generate_bsr(512, 1024, 16, 32, 0.8, d, 123);
    const BsrMatrix c = tilegemm::generate_bsr(512, 1024, 16, 32, 0.8, d, 124);
    EXPECT_EQ(a.index_pointer, b.index_pointer);
    EXPECT_EQ(a.block_indices, b.block_indices);
    EXPECT_EQ(a.block_data, b.block_data);
    EXPECT_NE(a.block_indices, c.block_indices);
    EXPECT_NE(a.block_data, c.block_data);
  }
}

// FNV-1a over the index arrays and the bits of the values.
uint64_t fingerprint(const BsrMatrix& m) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](const void* p, size_t n) {
    const auto* bytes = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  };
  mix(m.index_pointer.data(), m.index_pointer.size() * sizeof(int32_t));
  mix(m.block_indices.data(), m.block_indices.size() * sizeof(int32_t));
  mix(m.block_data.data(), m.block_data.size() * sizeof(float));
  return h;
}

TEST(BsrGenerate, SameMatricesOnEveryPlatform) {
  // The generator uses no implementation-defined distributions, so these fingerprints hold for
  // every standard library. A change here changes every benchmark input: do it on purpose only.
  const BsrMatrix u = tilegemm::generate_bsr(256, 384, 16, 32, 0.7, RowDistribution::Uniform, 2024);
  const BsrMatrix s = tilegemm::generate_bsr(256, 384, 16, 32, 0.7, RowDistribution::Skewed, 2024);
  EXPECT_EQ(fingerprint(u), 3582021968782655130ull) << "Uniform";
  EXPECT_EQ(fingerprint(s), 13307823145505717228ull) << "Skewed";
}

TEST(BsrGenerate, ArgumentErrors) {
  const RowDistribution U = RowDistribution::Uniform;
  expect_error([&] { tilegemm::generate_bsr(64, 64, 16, 16, 1.5, U, 1); },
               "generate_bsr: sparsity = 1.5 is not in [0, 1]");
  expect_error([&] { tilegemm::generate_bsr(64, 64, 16, 16, -0.25, U, 1); },
               "generate_bsr: sparsity = -0.25 is not in [0, 1]");
  expect_error(
      [&] {
        tilegemm::generate_bsr(64, 64, 16, 16, std::numeric_limits<double>::quiet_NaN(), U, 1);
      },
      "generate_bsr: sparsity = nan is not in [0, 1]");
  expect_error([&] { tilegemm::generate_bsr(100, 64, 16, 16, 0.5, U, 1); },
               "generate_bsr: rows = 100 is not divisible by block_rows = 16");
  expect_error([&] { tilegemm::generate_bsr(64, 100, 16, 16, 0.5, U, 1); },
               "generate_bsr: cols = 100 is not divisible by block_cols = 16");
  expect_error([&] { tilegemm::generate_bsr(64, 64, 16, 0, 0.5, U, 1); },
               "generate_bsr: block_cols = 0 must be >= 1");
  expect_error([&] { tilegemm::generate_bsr(-64, 64, 16, 16, 0.5, U, 1); },
               "generate_bsr: rows = -64 is negative");
  expect_error(
      [&] { tilegemm::generate_bsr(64, 64, 16, 16, 0.5, static_cast<RowDistribution>(7), 1); },
      "generate_bsr: distribution = 7 is not a RowDistribution value");
  // 2^31 - 1 is the most blocks the int32 index_pointer can count.
  expect_error([&] { tilegemm::generate_bsr(65536, 65536, 1, 1, 0.25, U, 1); },
               "generate_bsr: nnzb = 3221225472");
}

}  // namespace
