// Tests of the CPU reference (src/ref): ref::sgemm and ref::gemm_f64 against an independent naive
// triple loop written here, for both layouts, all four transpose combinations, odd shapes, padded
// leading dimensions and the BLAS special cases (beta = 0 never reads C, alpha = 0 / k = 0 never
// read A or B).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "ref/reference.hpp"
#include "tilegemm/error.hpp"
#include "tilegemm/types.hpp"

namespace {

using tilegemm::Layout;
using tilegemm::Op;

constexpr int64_t kPad = 3;  // every leading dimension is the minimum plus this
constexpr float kSentinel = 777.25f;
const float kNaN = std::numeric_limits<float>::quiet_NaN();

// A stored matrix of rows x cols in `layout` with ld = (row length or column length) + kPad.
// Padding elements hold kSentinel so a test can check they were never written.
struct Stored {
  Layout layout;
  int64_t rows, cols, ld;
  std::vector<float> data;

  Stored(Layout l, int64_t r, int64_t c) : layout(l), rows(r), cols(c) {
    const int64_t inner = (l == Layout::RowMajor) ? c : r;
    const int64_t outer = (l == Layout::RowMajor) ? r : c;
    ld = inner + kPad;
    data.assign(static_cast<size_t>(std::max<int64_t>(outer * ld, 1)), kSentinel);
  }
  int64_t index(int64_t r, int64_t c) const {
    return layout == Layout::RowMajor ? r * ld + c : r + c * ld;
  }
  float& at(int64_t r, int64_t c) { return data[static_cast<size_t>(index(r, c))]; }
  float at(int64_t r, int64_t c) const { return data[static_cast<size_t>(index(r, c))]; }
  bool is_padding(int64_t idx) const {
    return idx % ld >= ((layout == Layout::RowMajor) ? cols : rows);
  }
  void fill_random(std::mt19937& rng) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) at(r, c) = dist(rng);
  }
  void fill(float v) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) at(r, c) = v;
  }
  double max_abs() const {
    double m = 0.0;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) m = std::max(m, std::fabs(static_cast<double>(at(r, c))));
    return m;
  }
  // Every padding element still holds the sentinel (compared bitwise).
  ::testing::AssertionResult padding_untouched() const {
    for (size_t i = 0; i < data.size(); ++i) {
      if (!is_padding(static_cast<int64_t>(i))) continue;
      if (std::memcmp(&data[i], &kSentinel, sizeof(float)) != 0)
        return ::testing::AssertionFailure()
               << "padding element at offset " << i << " was written: " << data[i];
    }
    return ::testing::AssertionSuccess();
  }
};

// Operand stored so that op(X) is rows x cols.
Stored make_operand(Layout layout, Op op, int64_t rows, int64_t cols) {
  return op == Op::N ? Stored(layout, rows, cols) : Stored(layout, cols, rows);
}
float op_at(const Stored& x, Op op, int64_t r, int64_t c) {
  return op == Op::N ? x.at(r, c) : x.at(c, r);
}

// Independent reference: a plain triple loop with double accumulation.
std::vector<double> naive_product(const Stored& a, Op op_a, const Stored& b, Op op_b, int64_t m,
                                  int64_t n, int64_t k) {
  std::vector<double> out(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0.0;
      for (int64_t p = 0; p < k; ++p)
        s += static_cast<double>(op_at(a, op_a, i, p)) * static_cast<double>(op_at(b, op_b, p, j));
      out[static_cast<size_t>(i * n + j)] = s;
    }
  return out;
}

const char* name(Layout l) { return l == Layout::RowMajor ? "Row" : "Col"; }
const char* name(Op o) { return o == Op::N ? "N" : "T"; }

struct Shape {
  int64_t m, n, k;
};
struct Scalars {
  float alpha, beta;
};
const Shape kShapes[] = {{1, 1, 1}, {7, 13, 17}, {33, 1, 65}, {64, 64, 64}, {127, 129, 131}};
const Scalars kScalars[] = {{1.0f, 0.0f}, {0.5f, -2.0f}, {-1.5f, 1.0f}};

struct Param {
  Layout layout;
  Op op_a, op_b;
  int shape_i, scalars_i;  // indices into kShapes and kScalars
};

std::string param_name(const Param& p) {
  const Shape s = kShapes[p.shape_i];
  return std::string(name(p.layout)) + name(p.op_a) + name(p.op_b) + "_" + std::to_string(s.m) +
         "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + "_ab" +
         std::to_string(p.scalars_i);
}
// gtest prints parameters in test listings (and CTest names).
void PrintTo(const Param& p, std::ostream* os) { *os << param_name(p); }

std::vector<Param> all_params() {
  std::vector<Param> v;
  for (Layout l : {Layout::RowMajor, Layout::ColMajor})
    for (Op oa : {Op::N, Op::T})
      for (Op ob : {Op::N, Op::T})
        for (int si = 0; si < 5; ++si)
          for (int ai = 0; ai < 3; ++ai) v.push_back({l, oa, ob, si, ai});
  return v;
}

class RefSgemm : public ::testing::TestWithParam<Param> {};

TEST_P(RefSgemm, MatchesNaiveTripleLoop) {
  const auto [layout, op_a, op_b, shape_i, scalars_i] = GetParam();
  const Shape s = kShapes[shape_i];
  const Scalars ab = kScalars[scalars_i];
  std::mt19937 rng(1000u + 97u * static_cast<unsigned>(shape_i) + 13u * static_cast<unsigned>(scalars_i) +
                   (layout == Layout::ColMajor ? 7u : 0u) + (op_a == Op::T ? 3u : 0u) +
                   (op_b == Op::T ? 1u : 0u));

  Stored a = make_operand(layout, op_a, s.m, s.k);
  Stored b = make_operand(layout, op_b, s.k, s.n);
  Stored c(layout, s.m, s.n);
  a.fill_random(rng);
  b.fill_random(rng);
  if (ab.beta == 0.0f) {
    c.fill(kNaN);  // beta = 0: C must not be read
  } else {
    c.fill_random(rng);
  }
  const Stored c0 = c;

  tilegemm::ref::sgemm(layout, op_a, op_b, s.m, s.n, s.k, ab.alpha, a.data.data(), a.ld,
                       b.data.data(), b.ld, ab.beta, c.data.data(), c.ld);

  const std::vector<double> prod = naive_product(a, op_a, b, op_b, s.m, s.n, s.k);
  const double tol = 1e-5 * static_cast<double>(s.k) * a.max_abs() * b.max_abs() + 1e-6;
  int64_t bad = 0;
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = 0; j < s.n; ++j) {
      double want = static_cast<double>(ab.alpha) * prod[static_cast<size_t>(i * s.n + j)];
      if (ab.beta != 0.0f) want += static_cast<double>(ab.beta) * static_cast<double>(c0.at(i, j));
      const double got = c.at(i, j);
      if (!std::isfinite(got) || std::fabs(got - want) > tol) {
        if (++bad <= 5)
          ADD_FAILURE() << "C(" << i << ", " << j << ") = " << got << ", expected " << want
                        << " (tol " << tol << ")";
      }
    }
  EXPECT_EQ(bad, 0) << "mismatching elements";
  EXPECT_TRUE(c.padding_untouched());
}

INSTANTIATE_TEST_SUITE_P(AllCombos, RefSgemm, ::testing::ValuesIn(all_params()),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return param_name(info.param);
                         });

// ---------------------------------------------------------------------------------------------
// Special cases, over both layouts and all transposes.

struct Combo {
  Layout layout;
  Op op_a, op_b;
};
std::vector<Combo> all_combos() {
  std::vector<Combo> v;
  for (Layout l : {Layout::RowMajor, Layout::ColMajor})
    for (Op oa : {Op::N, Op::T})
      for (Op ob : {Op::N, Op::T}) v.push_back({l, oa, ob});
  return v;
}

TEST(RefSgemmSpecial, BetaZeroIgnoresNaNInC) {
  std::mt19937 rng(7);
  for (const Combo& cb : all_combos()) {
    const int64_t m = 19, n = 23, k = 11;
    Stored a = make_operand(cb.layout, cb.op_a, m, k);
    Stored b = make_operand(cb.layout, cb.op_b, k, n);
    Stored c(cb.layout, m, n);
    a.fill_random(rng);
    b.fill_random(rng);
    c.fill(kNaN);
    tilegemm::ref::sgemm(cb.layout, cb.op_a, cb.op_b, m, n, k, 1.25f, a.data.data(), a.ld,
                         b.data.data(), b.ld, 0.0f, c.data.data(), c.ld);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) ASSERT_TRUE(std::isfinite(c.at(i, j))) << i << ", " << j;
    EXPECT_TRUE(c.padding_untouched());
  }
}

TEST(RefSgemmSpecial, KZeroScalesC) {
  std::mt19937 rng(11);
  for (const Combo& cb : all_combos()) {
    const int64_t m = 9, n = 14, k = 0;
    // A and B are m x 0 and 0 x n: nothing may be read; give them NaN-filled storage anyway.
    Stored a = make_operand(cb.layout, cb.op_a, m, k);
    Stored b = make_operand(cb.layout, cb.op_b, k, n);
    std::fill(a.data.begin(), a.data.end(), kNaN);
    std::fill(b.data.begin(), b.data.end(), kNaN);
    for (float beta : {0.0f, 1.0f, -0.75f}) {
      Stored c(cb.layout, m, n);
      if (beta == 0.0f) c.fill(kNaN); else c.fill_random(rng);
      const Stored c0 = c;
      tilegemm::ref::sgemm(cb.layout, cb.op_a, cb.op_b, m, n, k, 2.0f, a.data.data(), a.ld,
                           b.data.data(), b.ld, beta, c.data.data(), c.ld);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          const float want = beta == 0.0f ? 0.0f : beta * c0.at(i, j);
          ASSERT_FLOAT_EQ(c.at(i, j), want) << "beta " << beta << " at " << i << ", " << j;
        }
      EXPECT_TRUE(c.padding_untouched());
    }
  }
}

TEST(RefSgemmSpecial, AlphaZeroScalesCWithoutReadingAB) {
  std::mt19937 rng(13);
  for (const Combo& cb : all_combos()) {
    const int64_t m = 17, n = 6, k = 21;
    Stored a = make_operand(cb.layout, cb.op_a, m, k);
    Stored b = make_operand(cb.layout, cb.op_b, k, n);
    a.fill(kNaN);  // any read of A or B would put NaN into C
    b.fill(kNaN);
    for (float beta : {0.0f, 1.0f, 0.5f}) {
      Stored c(cb.layout, m, n);
      if (beta == 0.0f) c.fill(kNaN); else c.fill_random(rng);
      const Stored c0 = c;
      tilegemm::ref::sgemm(cb.layout, cb.op_a, cb.op_b, m, n, k, 0.0f, a.data.data(), a.ld,
                           b.data.data(), b.ld, beta, c.data.data(), c.ld);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          const float want = beta == 0.0f ? 0.0f : beta * c0.at(i, j);
          ASSERT_FLOAT_EQ(c.at(i, j), want) << "beta " << beta << " at " << i << ", " << j;
        }
      EXPECT_TRUE(c.padding_untouched());
    }
  }
}

TEST(RefSgemmSpecial, EmptyOutputIsNoOp) {
  // m == 0 or n == 0: nothing is written (C's storage is only padding/sentinel here).
  for (const Combo& cb : all_combos()) {
    for (auto mn : {std::pair<int64_t, int64_t>{0, 5}, {5, 0}, {0, 0}}) {
      const int64_t m = mn.first, n = mn.second, k = 4;
      Stored a = make_operand(cb.layout, cb.op_a, m, k);
      Stored b = make_operand(cb.layout, cb.op_b, k, n);
      Stored c(cb.layout, m, n);
      const std::vector<float> before = c.data;
      tilegemm::ref::sgemm(cb.layout, cb.op_a, cb.op_b, m, n, k, 1.0f, a.data.data(), a.ld,
                           b.data.data(), b.ld, 1.0f, c.data.data(), c.ld);
      EXPECT_EQ(0, std::memcmp(before.data(), c.data.data(), before.size() * sizeof(float)));
    }
  }
}

// The result does not depend on the thread count (each element is summed in the same order).
TEST(RefSgemmSpecial, ThreadCountDoesNotChangeResult) {
  std::mt19937 rng(17);
  for (const Combo& cb : all_combos()) {
    const int64_t m = 131, n = 300, k = 257;  // several tiles in m and n, several k panels
    Stored a = make_operand(cb.layout, cb.op_a, m, k);
    Stored b = make_operand(cb.layout, cb.op_b, k, n);
    Stored c_init(cb.layout, m, n);
    a.fill_random(rng);
    b.fill_random(rng);
    c_init.fill_random(rng);
    std::vector<float> first;
    for (int threads : {1, 0, 3, 8}) {
      Stored c = c_init;
      tilegemm::ref::sgemm(cb.layout, cb.op_a, cb.op_b, m, n, k, -0.5f, a.data.data(), a.ld,
                           b.data.data(), b.ld, 0.25f, c.data.data(), c.ld, threads);
      if (first.empty()) {
        first = c.data;
        const std::vector<double> prod = naive_product(a, cb.op_a, b, cb.op_b, m, n, k);
        const double tol = 1e-5 * static_cast<double>(k) * a.max_abs() * b.max_abs() + 1e-6;
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            const double want = -0.5 * prod[static_cast<size_t>(i * n + j)] +
                                0.25 * static_cast<double>(c_init.at(i, j));
            ASSERT_NEAR(c.at(i, j), want, tol) << i << ", " << j;
          }
        EXPECT_TRUE(c.padding_untouched());
      } else {
        EXPECT_EQ(0, std::memcmp(first.data(), c.data.data(), first.size() * sizeof(float)))
            << "threads = " << threads;
      }
    }
  }
}

TEST(RefSgemmSpecial, RejectsBadLeadingDimensionWithoutWriting) {
  std::mt19937 rng(19);
  const int64_t m = 8, n = 8, k = 8;
  Stored a(Layout::RowMajor, m, k), b(Layout::RowMajor, k, n), c(Layout::RowMajor, m, n);
  a.fill_random(rng);
  b.fill_random(rng);
  c.fill_random(rng);
  const std::vector<float> before = c.data;
  try {
    tilegemm::ref::sgemm(Layout::RowMajor, Op::N, Op::N, m, n, k, 1.0f, a.data.data(), k - 1,
                         b.data.data(), b.ld, 0.0f, c.data.data(), c.ld);
    FAIL() << "lda < k was accepted";
  } catch (const tilegemm::Error& e) {
    EXPECT_EQ(e.code(), tilegemm::ErrorCode::InvalidArgument);
  }
  EXPECT_EQ(0, std::memcmp(before.data(), c.data.data(), before.size() * sizeof(float)));
}

// ---------------------------------------------------------------------------------------------
// gemm_f64: the unscaled product in double, dense row-major m x n.

TEST(RefGemmF64, MatchesNaiveTripleLoop) {
  std::mt19937 rng(23);
  for (const Combo& cb : all_combos()) {
    for (const Shape& s : kShapes) {
      Stored a = make_operand(cb.layout, cb.op_a, s.m, s.k);
      Stored b = make_operand(cb.layout, cb.op_b, s.k, s.n);
      a.fill_random(rng);
      b.fill_random(rng);
      std::vector<double> out(static_cast<size_t>(s.m * s.n),
                              std::numeric_limits<double>::quiet_NaN());
      tilegemm::ref::gemm_f64(cb.layout, cb.op_a, cb.op_b, s.m, s.n, s.k, a.data.data(), a.ld,
                              b.data.data(), b.ld, out.data());
      const std::vector<double> want = naive_product(a, cb.op_a, b, cb.op_b, s.m, s.n, s.k);
      // Products of floats are exact in double and both sum in the same order: near-bitwise.
      const double tol = 1e-12 * static_cast<double>(s.k) * a.max_abs() * b.max_abs();
      for (size_t i = 0; i < out.size(); ++i)
        ASSERT_NEAR(out[i], want[i], tol) << name(cb.layout) << name(cb.op_a) << name(cb.op_b)
                                          << " " << s.m << "x" << s.n << "x" << s.k << " @" << i;
    }
  }
}

TEST(RefGemmF64, KZeroGivesZeros) {
  std::vector<float> a(64, kNaN), b(64, kNaN);
  std::vector<double> out(5 * 7, std::numeric_limits<double>::quiet_NaN());
  tilegemm::ref::gemm_f64(Layout::ColMajor, Op::T, Op::N, 5, 7, 0, a.data(), 1, b.data(), 1,
                          out.data());
  for (double v : out) EXPECT_EQ(v, 0.0);
}

TEST(RefGemmF64, RejectsNullOutAndOverlap) {
  std::vector<float> a(16, 1.0f), b(16, 1.0f);
  try {
    tilegemm::ref::gemm_f64(Layout::RowMajor, Op::N, Op::N, 4, 4, 4, a.data(), 4, b.data(), 4,
                            nullptr);
    FAIL() << "null out was accepted";
  } catch (const tilegemm::Error& e) {
    EXPECT_EQ(e.code(), tilegemm::ErrorCode::InvalidArgument);
  }
  // B is 4 x 4 row-major with ldb = 16: it spans floats [0, 52) = bytes [0, 208) of `storage`;
  // out (4 x 4 doubles) is placed at bytes [64, 192), inside that span. Nothing is read or written.
  std::vector<double> storage(32, 0.0);
  const float* bf = reinterpret_cast<const float*>(storage.data());
  double* out = storage.data() + 8;
  try {
    tilegemm::ref::gemm_f64(Layout::RowMajor, Op::N, Op::N, 4, 4, 4, a.data(), 4, bf, 16, out);
    FAIL() << "out overlapping b was accepted";
  } catch (const tilegemm::Error& e) {
    EXPECT_EQ(e.code(), tilegemm::ErrorCode::InvalidArgument);
  }
}

}  // namespace
