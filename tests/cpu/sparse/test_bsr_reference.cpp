// CPU reference for BSR x dense (src/ref/bsr_reference): both products against a naive triple loop
// over bsr_to_dense(W), for small and odd M, several block shapes, empty block rows, nnzb = 0,
// padded leading dimensions and the BLAS special cases; then argument validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "bsr_test_util.hpp"
#include "ref/bsr_reference.hpp"
#include "tilegemm/bsr.hpp"

namespace {

using bsr_test::expect_error;
using tilegemm::BsrMatrix;
using tilegemm::RowDistribution;

constexpr int64_t kPad = 3;  // every leading dimension is the row length plus this
constexpr float kSentinel = 777.25f;
const float kNaN = std::numeric_limits<float>::quiet_NaN();

// Row-major rows x cols with ld = cols + kPad; padding holds kSentinel.
struct Dense {
  int64_t rows, cols, ld;
  std::vector<float> data;
  Dense(int64_t r, int64_t c) : rows(r), cols(c), ld(c + kPad) {
    data.assign(static_cast<size_t>(std::max<int64_t>(r * ld, 1)), kSentinel);
  }
  float& at(int64_t r, int64_t c) { return data[static_cast<size_t>(r * ld + c)]; }
  float at(int64_t r, int64_t c) const { return data[static_cast<size_t>(r * ld + c)]; }
  void fill(float v) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) at(r, c) = v;
  }
  void fill_random(std::mt19937& rng) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) at(r, c) = dist(rng);
  }
  bool padding_untouched() const {
    for (size_t i = 0; i < data.size(); ++i)
      if (static_cast<int64_t>(i) % ld >= cols &&
          std::memcmp(&data[i], &kSentinel, sizeof(float)) != 0)
        return false;
    return true;
  }
};

enum class Product { XWt, WX };

struct WCase {
  int r, c;        // block shape
  int64_t bm, bk;  // W has bm x bk blocks (XWt: W is N x K; WX: W is M x K)
  double sparsity;
  RowDistribution dist;
};
// Block shapes from the fast sizes plus odd ones; sparsities including nnzb = 0.
const WCase kWCases[] = {
    {1, 1, 23, 19, 0.5, RowDistribution::Uniform}, {8, 8, 5, 7, 0.6, RowDistribution::Skewed},
    {16, 16, 4, 3, 0.5, RowDistribution::Uniform}, {16, 32, 3, 2, 0.3, RowDistribution::Skewed},
    {32, 8, 2, 5, 0.7, RowDistribution::Uniform},  {3, 5, 7, 6, 0.8, RowDistribution::Skewed},
    {8, 8, 4, 4, 1.0, RowDistribution::Uniform},
};
struct Scalars {
  float alpha, beta;
};
const Scalars kScalars[] = {{1.0f, 0.0f}, {0.5f, -2.0f}, {-1.5f, 1.0f}, {0.0f, 0.5f}, {0.0f, 0.0f}};

// Runs one product and checks every element of Y against alpha * naive + beta * Y0, and that the
// padding of Y was not written. For XWt, W is N x K and M = `m`; for WX, W is M x K and N = `m`.
void check_product(Product prod, const BsrMatrix& w, int64_t m, Scalars ab, std::mt19937& rng,
                   int threads = 0) {
  const std::vector<float> wd = bsr_test::to_dense(w);  // w.rows x w.cols
  const int64_t M = prod == Product::XWt ? m : w.rows;
  const int64_t N = prod == Product::XWt ? w.rows : m;
  const int64_t K = w.cols;
  Dense x = prod == Product::XWt ? Dense(M, K) : Dense(K, N);
  Dense y(M, N);
  x.fill_random(rng);
  if (ab.beta == 0.0f)
    y.fill(kNaN);  // beta = 0 must not read Y
  else
    y.fill_random(rng);
  const Dense y0 = y;

  if (prod == Product::XWt)
    tilegemm::ref::bsr_xwt(M, N, K, ab.alpha, x.data.data(), x.ld, w, ab.beta, y.data.data(), y.ld,
                           threads);
  else
    tilegemm::ref::bsr_wx(M, N, K, ab.alpha, w, x.data.data(), x.ld, ab.beta, y.data.data(), y.ld,
                          threads);

  const double tol = 1e-5 * static_cast<double>(K) + 1e-6;  // |x|, |w| <= 1
  int64_t bad = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0.0;
      for (int64_t p = 0; p < K; ++p) {
        // XWt: Y[i][j] = sum_p X[i][p] * W[j][p];  WX: Y[i][j] = sum_p W[i][p] * X[p][j]
        const double wv = prod == Product::XWt ? wd[static_cast<size_t>(j * K + p)]
                                               : wd[static_cast<size_t>(i * K + p)];
        const double xv = prod == Product::XWt ? x.at(i, p) : x.at(p, j);
        s += wv * xv;
      }
      double want = static_cast<double>(ab.alpha) * s;
      if (ab.beta != 0.0f) want += static_cast<double>(ab.beta) * static_cast<double>(y0.at(i, j));
      const double got = y.at(i, j);
      if (!std::isfinite(got) || std::fabs(got - want) > tol)
        if (++bad <= 5)
          ADD_FAILURE() << "Y(" << i << ", " << j << ") = " << got << ", expected " << want
                        << " (tol " << tol << ")";
    }
  EXPECT_EQ(bad, 0) << "mismatching elements";
  EXPECT_TRUE(y.padding_untouched()) << "padding of Y was written";
}

TEST(BsrReference, BothProductsMatchTheNaiveLoop) {
  std::mt19937 rng(21);
  uint64_t seed = 100;
  for (const WCase& wc : kWCases)
    for (Product prod : {Product::XWt, Product::WX})
      for (int64_t m : {1, 8, 37})
        for (const Scalars ab : kScalars) {
          const BsrMatrix w = tilegemm::generate_bsr(wc.bm * wc.r, wc.bk * wc.c, wc.r, wc.c,
                                                     wc.sparsity, wc.dist, ++seed);
          SCOPED_TRACE(std::string(prod == Product::XWt ? "XW^T" : "WX") + " blocks " +
                       std::to_string(wc.r) + "x" + std::to_string(wc.c) + " W " +
                       std::to_string(w.rows) + "x" + std::to_string(w.cols) + " nnzb " +
                       std::to_string(w.nnzb()) + " m " + std::to_string(m) + " alpha " +
                       std::to_string(ab.alpha) + " beta " + std::to_string(ab.beta));
          check_product(prod, w, m, ab, rng);
        }
}

TEST(BsrReference, EmptyBlockRowsAndSingleThread) {
  // Block rows 0 and 2 empty (Y rows/columns there are beta * Y), odd block shape.
  std::mt19937 rng(22);
  std::vector<float> d(4 * 3 * 5 * 7, 0.0f);
  const int64_t rows = 4 * 3, cols = 5 * 7;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      if (r / 3 == 1 || (r / 3 == 3 && c / 7 != 1))
        d[static_cast<size_t>(r * cols + c)] = 0.125f * static_cast<float>(1 + (r * 7 + c) % 13);
  const BsrMatrix w = tilegemm::dense_to_bsr(d.data(), rows, cols, cols, 3, 7);
  ASSERT_EQ(w.index_pointer, (std::vector<int32_t>{0, 0, 5, 5, 9}));
  for (Product prod : {Product::XWt, Product::WX})
    for (int threads : {1, 3})
      for (const Scalars ab : kScalars) check_product(prod, w, 9, ab, rng, threads);
}

TEST(BsrReference, ResultDoesNotDependOnThreads) {
  const BsrMatrix w = tilegemm::generate_bsr(256, 192, 16, 16, 0.6, RowDistribution::Skewed, 9);
  std::mt19937 rng(23);
  std::vector<float> x(100 * 192);
  bsr_test::fill_random(x, rng);
  std::vector<float> y1(100 * 256, kNaN), y4(100 * 256, kNaN);
  tilegemm::ref::bsr_xwt(100, 256, 192, 1.0f, x.data(), 192, w, 0.0f, y1.data(), 256, 1);
  tilegemm::ref::bsr_xwt(100, 256, 192, 1.0f, x.data(), 192, w, 0.0f, y4.data(), 256, 4);
  EXPECT_EQ(std::memcmp(y1.data(), y4.data(), y1.size() * sizeof(float)), 0);
  std::vector<float> xb(192 * 100), z1(256 * 100, kNaN), z4(256 * 100, kNaN);
  bsr_test::fill_random(xb, rng);
  tilegemm::ref::bsr_wx(256, 100, 192, 1.0f, w, xb.data(), 100, 0.0f, z1.data(), 100, 1);
  tilegemm::ref::bsr_wx(256, 100, 192, 1.0f, w, xb.data(), 100, 0.0f, z4.data(), 100, 4);
  EXPECT_EQ(std::memcmp(z1.data(), z4.data(), z1.size() * sizeof(float)), 0);
}

TEST(BsrReference, AlphaZeroDoesNotReadXAndEmptyOutputsAreNoOps) {
  const BsrMatrix w = tilegemm::generate_bsr(16, 24, 8, 8, 0.5, RowDistribution::Uniform, 1);
  std::vector<float> x(5 * 24, kNaN), y(5 * 16, 2.0f);
  tilegemm::ref::bsr_xwt(5, 16, 24, 0.0f, x.data(), 24, w, 0.5f, y.data(), 16);
  EXPECT_EQ(y, std::vector<float>(5 * 16, 1.0f));
  tilegemm::ref::bsr_xwt(5, 16, 24, 0.0f, x.data(), 24, w, 0.0f, y.data(), 16);
  EXPECT_EQ(y, std::vector<float>(5 * 16, 0.0f));
  // m == 0 (and null x/y with nothing to touch) is valid and writes nothing.
  EXPECT_NO_THROW(tilegemm::ref::bsr_xwt(0, 16, 24, 1.0f, nullptr, 24, w, 0.0f, nullptr, 16));
  EXPECT_NO_THROW(tilegemm::ref::bsr_wx(16, 0, 24, 1.0f, w, nullptr, 1, 0.0f, nullptr, 1));
  // k == 0: W is 16 x 0, Y = beta * Y.
  BsrMatrix w0;
  w0.rows = 16;
  w0.block_rows = 8;
  w0.index_pointer = {0, 0, 0};
  std::vector<float> z(16 * 3, 4.0f);
  tilegemm::ref::bsr_wx(16, 3, 0, 1.0f, w0, nullptr, 3, -1.0f, z.data(), 3);
  EXPECT_EQ(z, std::vector<float>(16 * 3, -4.0f));
}

TEST(BsrReference, ArgumentErrors) {
  const BsrMatrix w = tilegemm::generate_bsr(128, 128, 16, 16, 0.5, RowDistribution::Uniform, 1);
  std::vector<float> x(200 * 200, 1.0f), y(200 * 200, kSentinel);
  float* X = x.data();
  float* Y = y.data();
  using tilegemm::ref::bsr_wx;
  using tilegemm::ref::bsr_xwt;
  expect_error([&] { bsr_xwt(-1, 128, 128, 1.0f, X, 128, w, 0.0f, Y, 128); },
               "ref::bsr_xwt: m = -1 is negative");
  expect_error([&] { bsr_xwt(8, 128, -2, 1.0f, X, 128, w, 0.0f, Y, 128); },
               "ref::bsr_xwt: k = -2 is negative");
  expect_error([&] { bsr_xwt(8, 128, 100, 1.0f, X, 128, w, 0.0f, Y, 128); },
               "ref::bsr_xwt: x has K = 100 columns but w has cols = 128");
  expect_error([&] { bsr_xwt(8, 64, 128, 1.0f, X, 128, w, 0.0f, Y, 128); },
               "ref::bsr_xwt: y has N = 64 columns but w has rows = 128");
  expect_error(
      [&] { bsr_xwt(8, 128, 128, 1.0f, X, 127, w, 0.0f, Y, 128); },
      "ref::bsr_xwt: ldx = 127 is too small: x is 8 x 128 row-major, so ldx must be >= 128");
  expect_error([&] { bsr_xwt(8, 128, 128, 1.0f, X, 128, w, 0.0f, Y, 100); },
               "ref::bsr_xwt: ldy = 100 is too small");
  expect_error([&] { bsr_xwt(8, 128, 128, 1.0f, nullptr, 128, w, 0.0f, Y, 128); },
               "ref::bsr_xwt: x is a null pointer");
  expect_error([&] { bsr_xwt(8, 128, 128, 1.0f, X, 128, w, 0.0f, nullptr, 128); },
               "ref::bsr_xwt: y is a null pointer");
  expect_error([&] { bsr_xwt(8, 128, 128, 1.0f, X, 128, w, 0.0f, X + 1000, 128); },
               "ref::bsr_xwt: y overlaps x");

  expect_error([&] { bsr_wx(128, -3, 128, 1.0f, w, X, 8, 0.0f, Y, 8); },
               "ref::bsr_wx: n = -3 is negative");
  expect_error([&] { bsr_wx(100, 8, 128, 1.0f, w, X, 8, 0.0f, Y, 8); },
               "ref::bsr_wx: y has M = 100 rows but w has rows = 128");
  expect_error([&] { bsr_wx(128, 8, 100, 1.0f, w, X, 8, 0.0f, Y, 8); },
               "ref::bsr_wx: x has K = 100 rows but w has cols = 128");
  expect_error([&] { bsr_wx(128, 8, 128, 1.0f, w, X, 7, 0.0f, Y, 8); },
               "ref::bsr_wx: ldx = 7 is too small: x is 128 x 8 row-major, so ldx must be >= 8");
  expect_error([&] { bsr_wx(128, 8, 128, 1.0f, w, X, 8, 0.0f, Y, 0); },
               "ref::bsr_wx: ldy = 0 is too small");
  expect_error(
      [&] {
        bsr_wx(128, 8, 128, 1.0f, w, X, 8, 0.0f, const_cast<float*>(w.block_data.data()) + 3, 8);
      },
      "ref::bsr_wx: y overlaps w.block_data");

  BsrMatrix bad = w;
  bad.index_pointer[3] = bad.index_pointer[2] - 1;
  expect_error([&] { bsr_xwt(8, 128, 128, 1.0f, X, 128, bad, 0.0f, Y, 128); },
               "bsr: index_pointer decreases at block row");
  expect_error([&] { bsr_wx(128, 8, 128, 1.0f, bad, X, 8, 0.0f, Y, 8); },
               "bsr: index_pointer decreases at block row");
  EXPECT_EQ(y, std::vector<float>(200 * 200, kSentinel)) << "a rejected call wrote its output";
}

}  // namespace
