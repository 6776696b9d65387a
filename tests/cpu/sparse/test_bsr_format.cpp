// BSR format: validation errors (each message checked), dense <-> BSR round trips for every block
// shape the kernels care about, masked conversion, transpose.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "bsr_test_util.hpp"
#include "tilegemm/bsr.hpp"

namespace {

using bsr_test::expect_error;
using tilegemm::BsrMatrix;
using tilegemm::BsrView;

// A valid 10 x 24 matrix with 2 x 3 blocks: 5 block rows, 8 block columns, nnzb = 8.
//   block row 0: columns 0, 2     block row 1: (empty)     block row 2: columns 1, 3, 7
//   block row 3: column 0         block row 4: columns 5, 6
BsrMatrix small_matrix() {
  BsrMatrix m;
  m.rows = 10;
  m.cols = 24;
  m.block_rows = 2;
  m.block_cols = 3;
  m.index_pointer = {0, 2, 2, 5, 6, 8};
  m.block_indices = {0, 2, 1, 3, 7, 0, 5, 6};
  m.block_data.resize(8 * 6);
  for (size_t i = 0; i < m.block_data.size(); ++i) m.block_data[i] = 0.5f + static_cast<float>(i);
  return m;
}

// validate(m) and validate_bsr(m.view()) both reject m with a message containing `needle`.
void expect_invalid(const BsrMatrix& m, const std::string& needle) {
  expect_error([&] { tilegemm::validate(m); }, needle);
  expect_error([&] { tilegemm::validate_bsr(m.view()); }, needle);
}

TEST(BsrValidate, ValidMatricesPass) {
  EXPECT_NO_THROW(tilegemm::validate(small_matrix()));
  EXPECT_NO_THROW(tilegemm::validate_bsr(small_matrix().view()));
  EXPECT_NO_THROW(tilegemm::validate(BsrMatrix{}));  // default: empty 0 x 0
  BsrMatrix empty_rows;                              // 3 block rows, nnzb = 0
  empty_rows.rows = 48;
  empty_rows.cols = 16;
  empty_rows.block_rows = 16;
  empty_rows.block_cols = 16;
  empty_rows.index_pointer = {0, 0, 0, 0};
  EXPECT_NO_THROW(tilegemm::validate(empty_rows));
}

TEST(BsrValidate, BlockShapeAndSizes) {
  BsrMatrix m = small_matrix();
  m.block_rows = 0;
  expect_invalid(m, "bsr: block_rows = 0 must be >= 1");
  m = small_matrix();
  m.block_cols = -3;
  expect_invalid(m, "bsr: block_cols = -3 must be >= 1");
  m = small_matrix();
  m.rows = -10;
  expect_invalid(m, "bsr: rows = -10 is negative");
  m = small_matrix();
  m.cols = -24;
  expect_invalid(m, "bsr: cols = -24 is negative");
}

TEST(BsrValidate, SizesNotDivisibleByTheBlock) {
  BsrMatrix m = small_matrix();
  m.rows = 100;
  m.block_rows = 16;
  expect_invalid(m, "bsr: rows = 100 is not divisible by block_rows = 16");
  m = small_matrix();
  m.cols = 25;
  expect_invalid(m, "bsr: cols = 25 is not divisible by block_cols = 3");
}

TEST(BsrValidate, VectorSizes) {
  BsrMatrix m = small_matrix();
  m.index_pointer.pop_back();
  expect_error([&] { tilegemm::validate(m); },
               "bsr: index_pointer has 5 entries, expected block_row_count + 1 = 6");
  m = small_matrix();
  m.block_data.pop_back();
  expect_error([&] { tilegemm::validate(m); },
               "bsr: block_data has 47 elements, expected nnzb * block_rows * block_cols = 8 * 2 "
               "* 3 = 48");
}

TEST(BsrValidate, IndexPointer) {
  BsrMatrix m = small_matrix();
  m.index_pointer[0] = 2;
  expect_invalid(m, "bsr: index_pointer[0] = 2, must be 0");
  m = small_matrix();
  m.index_pointer[4] = 4;  // block row 3 would span [5, 4)
  expect_invalid(m, "bsr: index_pointer decreases at block row 3 (5 -> 4)");
  m = small_matrix();
  m.index_pointer[5] = 9;
  expect_invalid(m, "bsr: index_pointer[last] = 9 but nnzb = 8");
  m = small_matrix();
  m.index_pointer[5] = 7;
  expect_invalid(m, "bsr: index_pointer[last] = 7 but nnzb = 8");
}

TEST(BsrValidate, ColumnIndices) {
  BsrMatrix m = small_matrix();
  m.block_indices[4] = 8;
  expect_invalid(m, "bsr: block row 2: column index 8 out of range [0, 8)");
  m = small_matrix();
  m.block_indices[5] = -1;
  expect_invalid(m, "bsr: block row 3: column index -1 out of range [0, 8)");
  m = small_matrix();
  m.block_indices[6] = 6;
  m.block_indices[7] = 5;
  expect_invalid(m, "bsr: block row 4: column indices not sorted (5 after 6)");
  m = small_matrix();
  m.block_indices[7] = 5;
  expect_invalid(m, "bsr: block row 4: duplicated column index 5");
}

TEST(BsrValidate, ViewCountsAndPointers) {
  const BsrMatrix base = small_matrix();
  BsrView v = base.view();
  v.nnzb = -1;
  expect_error([&] { tilegemm::validate_bsr(v); }, "bsr: nnzb = -1 is negative");
  v = base.view();
  v.nnzb = 41;
  expect_error([&] { tilegemm::validate_bsr(v); },
               "bsr: nnzb = 41 exceeds the number of blocks (5 x 8 = 40)");
  v = base.view();
  v.index_pointer = nullptr;
  expect_error([&] { tilegemm::validate_bsr(v); }, "bsr: index_pointer is a null pointer");
  v = base.view();
  v.block_indices = nullptr;
  expect_error([&] { tilegemm::validate_bsr(v); },
               "bsr: block_indices is a null pointer (nnzb = 8)");
  v = base.view();
  v.block_data = nullptr;
  expect_error([&] { tilegemm::validate_bsr(v); }, "bsr: block_data is a null pointer (nnzb = 8)");
  // nnzb = 0 needs no block arrays.
  const int32_t zeros[6] = {0, 0, 0, 0, 0, 0};
  v = BsrView{nullptr, nullptr, zeros, 10, 24, 2, 3, 0};
  EXPECT_NO_THROW(tilegemm::validate_bsr(v));
}

TEST(BsrValidate, CountsBeyond32Bits) {
  // Views with counts that do not fit the int32 indices; nothing is dereferenced.
  const int32_t ip[1] = {0};
  BsrView v{nullptr, nullptr, ip, int64_t{INT_MAX} + 1, 16, 1, 1, 0};
  expect_error([&] { tilegemm::validate_bsr(v); }, "bsr: rows = 2147483648 exceeds 2^31-1");
  v = BsrView{nullptr, nullptr, ip, 16, int64_t{1} << 32, 1, 1, 0};
  expect_error([&] { tilegemm::validate_bsr(v); }, "bsr: cols = 4294967296 exceeds 2^31-1");
  v = BsrView{nullptr, nullptr, ip, 65536, 65536, 1, 1, int64_t{INT_MAX} + 1};
  expect_error([&] { tilegemm::validate_bsr(v); }, "bsr: nnzb = 2147483648 exceeds 2^31-1");
}

TEST(BsrValidate, ShapeCheckDoesNotReadTheArrays) {
  BsrMatrix m = small_matrix();
  m.index_pointer[0] = 5;
  m.block_indices[0] = 99;
  EXPECT_NO_THROW(tilegemm::validate_bsr_shape(m.view()));
  expect_invalid(m, "bsr: index_pointer[0] = 5, must be 0");
}

// ---- conversions --------------------------------------------------------------------------------

struct BlockShape {
  int r, c;
};
const BlockShape kBlockShapes[] = {{1, 1}, {8, 8}, {16, 16}, {32, 32}, {64, 64}, {16, 32}, {32, 8}};

constexpr int64_t kPad = 3;
constexpr float kSentinel = 777.25f;

// A brows x bcols-block dense matrix (ld = cols + kPad, padding = kSentinel) where block (i, j) is
// random if pattern(i, j) is true and zero otherwise; some random blocks have a single non-zero.
struct DenseCase {
  int64_t rows, cols, ld;
  std::vector<float> data;
  std::vector<uint8_t> nonzero_blocks;
};

template <class Pattern>
DenseCase make_dense(int64_t brows, int64_t bcols, BlockShape b, std::mt19937& rng,
                     const Pattern& pattern) {
  DenseCase d{brows * b.r, bcols * b.c, bcols * b.c + kPad, {}, {}};
  d.data.assign(static_cast<size_t>(d.rows * d.ld), kSentinel);
  d.nonzero_blocks.assign(static_cast<size_t>(brows * bcols), 0);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < brows; ++i)
    for (int64_t j = 0; j < bcols; ++j) {
      const bool keep = pattern(i, j);
      d.nonzero_blocks[static_cast<size_t>(i * bcols + j)] = keep;
      // Every third kept block has a single non-zero in its last element: the scan must see it.
      const bool single = keep && (i + j) % 3 == 0;
      for (int r = 0; r < b.r; ++r)
        for (int c = 0; c < b.c; ++c) {
          const bool last = r == b.r - 1 && c == b.c - 1;
          float v = 0.0f;
          if (keep && (!single || last)) v = dist(rng);
          if (keep && v == 0.0f) v = 0.25f;
          d.data[static_cast<size_t>((i * b.r + r) * d.ld + j * b.c + c)] = v;
        }
    }
  return d;
}

int64_t count(const std::vector<uint8_t>& v) {
  int64_t n = 0;
  for (uint8_t x : v) n += x != 0;
  return n;
}

// dense -> BSR -> dense gives back the same values (bitwise), and the padding is not written.
void check_round_trip(const DenseCase& d, BlockShape b) {
  const BsrMatrix m = tilegemm::dense_to_bsr(d.data.data(), d.rows, d.cols, d.ld, b.r, b.c);
  ASSERT_NO_THROW(tilegemm::validate(m));
  EXPECT_EQ(m.rows, d.rows);
  EXPECT_EQ(m.cols, d.cols);
  EXPECT_EQ(m.nnzb(), count(d.nonzero_blocks));
  std::vector<float> back(d.data.size(), kSentinel);
  tilegemm::bsr_to_dense(m, back.data(), d.ld);
  EXPECT_EQ(std::memcmp(back.data(), d.data.data(), back.size() * sizeof(float)), 0)
      << "round trip differs";
}

TEST(BsrConvert, RoundTripEveryBlockShape) {
  std::mt19937 rng(11);
  for (const BlockShape b : kBlockShapes) {
    SCOPED_TRACE("block " + std::to_string(b.r) + "x" + std::to_string(b.c));
    // 4 x 5 blocks: a random pattern with block row 1 and block column 3 empty.
    std::bernoulli_distribution coin(0.5);
    const DenseCase d = make_dense(
        4, 5, b, rng, [&](int64_t i, int64_t j) { return i != 1 && j != 3 && coin(rng); });
    check_round_trip(d, b);
    // All zero: nnzb = 0. All non-zero: every block kept.
    check_round_trip(make_dense(3, 2, b, rng, [](int64_t, int64_t) { return false; }), b);
    check_round_trip(make_dense(2, 3, b, rng, [](int64_t, int64_t) { return true; }), b);
    // One block row / one block column.
    check_round_trip(make_dense(1, 4, b, rng, [](int64_t, int64_t j) { return j % 2 == 1; }), b);
    check_round_trip(make_dense(4, 1, b, rng, [](int64_t i, int64_t) { return i != 2; }), b);
  }
}

TEST(BsrConvert, EmptyShapes) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{0, 0}, {0, 16}, {16, 0}}) {
    const BsrMatrix m = tilegemm::dense_to_bsr(nullptr, rows, cols, 16, 8, 8);
    EXPECT_NO_THROW(tilegemm::validate(m));
    EXPECT_EQ(m.nnzb(), 0);
    EXPECT_EQ(m.block_row_count(), rows / 8);
    EXPECT_EQ(m.index_pointer.size(), static_cast<size_t>(rows / 8 + 1));
  }
}

TEST(BsrConvert, NaNCountsAsNonZeroAndNegativeZeroAsZero) {
  std::vector<float> d(4 * 4, 0.0f);
  d[1 * 4 + 1] = std::numeric_limits<float>::quiet_NaN();  // block (0, 0)
  d[3 * 4 + 3] = -0.0f;                                    // block (1, 1)
  const BsrMatrix m = tilegemm::dense_to_bsr(d.data(), 4, 4, 4, 2, 2);
  EXPECT_EQ(m.index_pointer, (std::vector<int32_t>{0, 1, 1}));
  EXPECT_EQ(m.block_indices, (std::vector<int32_t>{0}));
  EXPECT_TRUE(std::isnan(m.block_data[3]));
}

TEST(BsrConvert, MaskKeepsExactlyTheMaskedBlocks) {
  std::mt19937 rng(12);
  for (const BlockShape b : kBlockShapes) {
    SCOPED_TRACE("block " + std::to_string(b.r) + "x" + std::to_string(b.c));
    const int64_t brows = 3, bcols = 4;
    const DenseCase d =
        make_dense(brows, bcols, b, rng, [](int64_t i, int64_t j) { return (i + j) % 2 == 0; });
    // The mask keeps some zero blocks, drops some non-zero ones, and leaves block row 2 empty.
    std::vector<uint8_t> mask(static_cast<size_t>(brows * bcols), 0);
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < bcols; ++j) mask[static_cast<size_t>(i * bcols + j)] = j != 2 ? 1 : 0;
    const BsrMatrix m =
        tilegemm::dense_to_bsr_masked(d.data.data(), d.rows, d.cols, d.ld, b.r, b.c, mask);
    ASSERT_NO_THROW(tilegemm::validate(m));
    EXPECT_EQ(m.nnzb(), count(mask));
    EXPECT_EQ(m.index_pointer, (std::vector<int32_t>{0, 3, 6, 6}));
    EXPECT_EQ(m.block_indices, (std::vector<int32_t>{0, 1, 3, 0, 1, 3}));
    // Back to dense: masked blocks as in d, everything else zero.
    const std::vector<float> back = bsr_test::to_dense(m);
    for (int64_t r = 0; r < d.rows; ++r)
      for (int64_t c = 0; c < d.cols; ++c) {
        const bool kept = mask[static_cast<size_t>((r / b.r) * bcols + c / b.c)] != 0;
        const float want = kept ? d.data[static_cast<size_t>(r * d.ld + c)] : 0.0f;
        ASSERT_EQ(back[static_cast<size_t>(r * d.cols + c)], want)
            << "at (" << r << ", " << c << ")";
      }
  }
  // An all-zero mask: nnzb = 0, still valid.
  std::vector<float> d(8 * 8, 1.0f);
  const BsrMatrix none = tilegemm::dense_to_bsr_masked(d.data(), 8, 8, 8, 4, 4, {0, 0, 0, 0});
  EXPECT_NO_THROW(tilegemm::validate(none));
  EXPECT_EQ(none.nnzb(), 0);
}

TEST(BsrConvert, ArgumentErrors) {
  std::vector<float> d(100 * 64, 1.0f);
  expect_error([&] { tilegemm::dense_to_bsr(d.data(), 100, 64, 64, 16, 16); },
               "dense_to_bsr: rows = 100 is not divisible by block_rows = 16");
  expect_error([&] { tilegemm::dense_to_bsr(d.data(), 96, 60, 64, 16, 16); },
               "dense_to_bsr: cols = 60 is not divisible by block_cols = 16");
  expect_error([&] { tilegemm::dense_to_bsr(d.data(), 96, 64, 64, 0, 16); },
               "dense_to_bsr: block_rows = 0 must be >= 1");
  expect_error([&] { tilegemm::dense_to_bsr(d.data(), -16, 64, 64, 16, 16); },
               "dense_to_bsr: rows = -16 is negative");
  expect_error(
      [&] { tilegemm::dense_to_bsr(d.data(), 96, 64, 63, 16, 16); },
      "dense_to_bsr: ld = 63 is too small: dense is 96 x 64 row-major, so ld must be >= 64");
  expect_error([&] { tilegemm::dense_to_bsr(nullptr, 96, 64, 64, 16, 16); },
               "dense_to_bsr: dense is a null pointer");
  expect_error(
      [&] {
        tilegemm::dense_to_bsr_masked(d.data(), 96, 64, 64, 16, 16, {1, 0, 1});
      },
      "dense_to_bsr_masked: block_mask has 3 entries, expected block_row_count x "
      "block_col_count = 6 x 4 = 24");
  const BsrMatrix m = small_matrix();
  std::vector<float> out(10 * 24, kSentinel);
  expect_error([&] { tilegemm::bsr_to_dense(m, out.data(), 23); },
               "bsr_to_dense: ld = 23 is too small");
  expect_error([&] { tilegemm::bsr_to_dense(m, nullptr, 24); },
               "bsr_to_dense: dense is a null pointer");
  BsrMatrix bad = small_matrix();
  bad.block_indices[7] = 5;
  expect_error([&] { tilegemm::bsr_to_dense(bad, out.data(), 24); }, "duplicated column index 5");
  expect_error([&] { tilegemm::bsr_transpose(bad); }, "duplicated column index 5");
  EXPECT_EQ(out, std::vector<float>(10 * 24, kSentinel)) << "a rejected call wrote its output";
}

// ---- transpose ----------------------------------------------------------------------------------

TEST(BsrTranspose, MatchesTheDenseTransposeAndIsAnInvolution) {
  std::mt19937 rng(13);
  for (const BlockShape b : kBlockShapes) {
    SCOPED_TRACE("block " + std::to_string(b.r) + "x" + std::to_string(b.c));
    std::bernoulli_distribution coin(0.4);
    const DenseCase d = make_dense(5, 3, b, rng, [&](int64_t i, int64_t) {
      return i != 2 && coin(rng);  // block row 2 empty; some block columns may be too
    });
    const BsrMatrix m = tilegemm::dense_to_bsr(d.data.data(), d.rows, d.cols, d.ld, b.r, b.c);
    const BsrMatrix t = tilegemm::bsr_transpose(m);
    ASSERT_NO_THROW(tilegemm::validate(t));  // sorted, unique indices
    EXPECT_EQ(t.rows, m.cols);
    EXPECT_EQ(t.cols, m.rows);
    EXPECT_EQ(t.block_rows, b.c);
    EXPECT_EQ(t.block_cols, b.r);
    EXPECT_EQ(t.nnzb(), m.nnzb());

    const std::vector<float> dt = bsr_test::to_dense(t);
    for (int64_t r = 0; r < d.rows; ++r)
      for (int64_t c = 0; c < d.cols; ++c)
        ASSERT_EQ(dt[static_cast<size_t>(c * d.rows + r)],
                  d.data[static_cast<size_t>(r * d.ld + c)])
            << "at (" << r << ", " << c << ")";

    const BsrMatrix tt = tilegemm::bsr_transpose(t);
    EXPECT_EQ(tt.rows, m.rows);
    EXPECT_EQ(tt.cols, m.cols);
    EXPECT_EQ(tt.block_rows, m.block_rows);
    EXPECT_EQ(tt.block_cols, m.block_cols);
    EXPECT_EQ(tt.index_pointer, m.index_pointer);
    EXPECT_EQ(tt.block_indices, m.block_indices);
    EXPECT_EQ(tt.block_data, m.block_data);
  }
}

TEST(BsrTranspose, EmptyMatrices) {
  const BsrMatrix t = tilegemm::bsr_transpose(BsrMatrix{});
  EXPECT_NO_THROW(tilegemm::validate(t));
  BsrMatrix m;  // 32 x 16, 8 x 4 blocks, nnzb = 0
  m.rows = 32;
  m.cols = 16;
  m.block_rows = 8;
  m.block_cols = 4;
  m.index_pointer = {0, 0, 0, 0, 0};
  const BsrMatrix mt = tilegemm::bsr_transpose(m);
  EXPECT_NO_THROW(tilegemm::validate(mt));
  EXPECT_EQ(mt.index_pointer, (std::vector<int32_t>{0, 0, 0, 0, 0}));
  EXPECT_EQ(mt.rows, 16);
  EXPECT_EQ(mt.block_rows, 4);
}

}  // namespace
