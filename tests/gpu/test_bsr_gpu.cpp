// BSR x dense products on the GPU (tilegemm/bsr_gpu.hpp): every kernel (Auto, 01 reduction,
// 02 small-M, 03 tiled, 04 tiled 3xTF32, held to the same FP32 tolerance) x both products (Y = X W^T, Y = W X) x block shapes {1x1, 3x5, 8x8, 16x16,
// 32x32, 64x64, 80x8, 16x32, 32x8} x batch sizes {1, 8, 13, 16, 17, 100, 300} (W's dims are odd
// block counts, so nothing is a multiple of a tile) x sparsity {0, 0.7, 0.95} x uniform / skewed
// block rows, in memory that is tight, offset by one element with leading dimensions padded by 3,
// or 16-byte aligned with leading dimensions a multiple of 4 (the vectorized paths); plus empty
// block rows, nnzb = 0, a single block and k = 0. Against the CPU reference (ref::bsr_xwt /
// ref::bsr_wx, double accumulation) with a tolerance scaled by k; alpha/beta include beta = 0 over
// a NaN-poisoned Y (must not leak), beta = 1, and alpha = 0 with NaN in X and W (never read).
// Memory before, between and after Y's rows must stay untouched, and X unchanged.
//
// Case names start with Small_ (run under compute-sanitizer by run_sanitizer.sh, which filters
// *Small*: smaller W, two alpha/beta pairs per kernel) or Large_. The whole file runs in seconds.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/device_buffer.hpp"
#include "ref/bsr_reference.hpp"
#include "tilegemm/tilegemm.hpp"
#include "ref/reference.hpp"

namespace tilegemm {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kPad = -777.0f;  // memory outside the dense matrices; must survive every call

const BsrKernel kAllKernels[] = {BsrKernel::Auto, BsrKernel::Reduction, BsrKernel::SmallM,
                                 BsrKernel::Tiled, BsrKernel::TiledTf32x3};

enum class Product { XWt, WX };
// Tight: ld = row length, pointer as allocated (16-byte aligned). OffsetPadded: pointers offset by
// one element (not 16-byte aligned), ld = row length + 3. Aligned: 16-byte aligned pointer and
// ld a multiple of 4 (> row length), so the kernels' vectorized paths run.
enum class Memory { Tight, OffsetPadded, Aligned };
enum class Pattern {
  Random,       // generate_bsr(sparsity, distribution)
  EmptyRows,    // generated, then block rows 0, 3, 6, ... and the last emptied
  SingleBlock,  // one stored block (in the middle block row, last block column)
  NoBlocks,     // nnzb = 0
  ZeroDepth,    // W has 0 block columns: k = 0
  OneLongRow,   // block row 1 full, every other block row one block: the tiled kernel's heavy
                // row (launched first, all column tiles at once)
};

struct Case {
  Product prod = Product::XWt;
  int r = 1, c = 1;             // block shape
  int64_t brows = 1, bcols = 1;  // W has brows x bcols blocks
  int64_t batch = 1;            // X W^T: m (rows of X and Y); W X: n (columns of X and Y)
  double sparsity = 0.0;
  RowDistribution dist = RowDistribution::Uniform;
  Pattern pattern = Pattern::Random;
  Memory mem = Memory::Tight;
  bool small = false;
  std::string name;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

const char* name_of(Memory m) {
  switch (m) {
    case Memory::Tight: return "tight";
    case Memory::OffsetPadded: return "offset";
    case Memory::Aligned: return "aligned";
  }
  return "?";
}

const char* name_of(Pattern p) {
  switch (p) {
    case Pattern::Random: return "";
    case Pattern::EmptyRows: return "_emptyrows";
    case Pattern::SingleBlock: return "_oneblock";
    case Pattern::NoBlocks: return "_nnzb0";
    case Pattern::ZeroDepth: return "_k0";
    case Pattern::OneLongRow: return "_longrow";
  }
  return "?";
}

std::string make_name(const Case& c) {
  const bool xwt = c.prod == Product::XWt;
  const int64_t w_rows = c.brows * c.r;
  const int64_t w_cols = c.pattern == Pattern::ZeroDepth ? 0 : c.bcols * c.c;
  return std::string(c.small ? "Small_" : "Large_") + (xwt ? "XWt_" : "WX_") + std::to_string(c.r) +
         "x" + std::to_string(c.c) + "_W" + std::to_string(w_rows) + "x" + std::to_string(w_cols) +
         (xwt ? "_m" : "_n") + std::to_string(c.batch) + "_s" +
         std::to_string(static_cast<int>(std::lround(c.sparsity * 100))) +
         (c.dist == RowDistribution::Uniform ? "_uniform" : "_skewed") + name_of(c.pattern) + "_" +
         name_of(c.mem);
}

std::string case_name(const testing::TestParamInfo<Case>& info) { return info.param.name; }

uint64_t seed_of(const std::string& s) {  // FNV-1a: the same inputs on every platform
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}

// ---- host operands ------------------------------------------------------------------------------

// A row-major rows x cols matrix inside a larger allocation filled with kPad.
struct HostDense {
  int64_t rows = 0, cols = 0, ld = 1, offset = 0;
  std::vector<float> storage;
  float* data() { return storage.data() + offset; }
  const float* data() const { return storage.data() + offset; }
  size_t index(int64_t r, int64_t c) const { return static_cast<size_t>(offset + r * ld + c); }
  float& at(int64_t r, int64_t c) { return storage[index(r, c)]; }
  float at(int64_t r, int64_t c) const { return storage[index(r, c)]; }
  void fill(float v) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) at(r, c) = v;
  }
  void fill_random(std::mt19937_64& rng) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) at(r, c) = dist(rng);
  }
};

HostDense make_dense(int64_t rows, int64_t cols, Memory mem) {
  HostDense h;
  h.rows = rows;
  h.cols = cols;
  const int64_t row = std::max<int64_t>(cols, 1);
  switch (mem) {
    case Memory::Tight: h.ld = row; break;
    case Memory::OffsetPadded: h.ld = row + 3; h.offset = 1; break;
    case Memory::Aligned: h.ld = (row + 3) / 4 * 4 + 4; break;
  }
  const int64_t extent = rows > 0 ? (rows - 1) * h.ld + cols : 0;
  h.storage.assign(static_cast<size_t>(h.offset + extent + 5), kPad);  // 5 pad elements after
  return h;
}

float max_abs(const HostDense& h) {
  float v = 0.0f;
  for (int64_t r = 0; r < h.rows; ++r)
    for (int64_t c = 0; c < h.cols; ++c) v = std::max(v, std::fabs(h.at(r, c)));
  return v;
}

// W with the block rows for which `drop` holds emptied.
template <class Pred>
BsrMatrix drop_block_rows(const BsrMatrix& w, Pred drop) {
  BsrMatrix out;
  out.rows = w.rows;
  out.cols = w.cols;
  out.block_rows = w.block_rows;
  out.block_cols = w.block_cols;
  const size_t bs = static_cast<size_t>(w.block_rows) * static_cast<size_t>(w.block_cols);
  for (int64_t i = 0; i < w.block_row_count(); ++i) {
    if (!drop(i))
      for (int32_t b = w.index_pointer[static_cast<size_t>(i)];
           b < w.index_pointer[static_cast<size_t>(i) + 1]; ++b) {
        out.block_indices.push_back(w.block_indices[static_cast<size_t>(b)]);
        out.block_data.insert(out.block_data.end(), w.block_data.begin() + b * bs,
                              w.block_data.begin() + (b + 1) * bs);
      }
    out.index_pointer.push_back(static_cast<int32_t>(out.block_indices.size()));
  }
  return out;
}

BsrMatrix make_w(const Case& tc, uint64_t seed) {
  const int64_t rows = tc.brows * tc.r, cols = tc.bcols * tc.c;
  switch (tc.pattern) {
    case Pattern::Random:
      return generate_bsr(rows, cols, tc.r, tc.c, tc.sparsity, tc.dist, seed);
    case Pattern::NoBlocks:
      return generate_bsr(rows, cols, tc.r, tc.c, 1.0, tc.dist, seed);
    case Pattern::EmptyRows: {
      const int64_t last = tc.brows - 1;
      return drop_block_rows(generate_bsr(rows, cols, tc.r, tc.c, tc.sparsity, tc.dist, seed),
                             [last](int64_t i) { return i % 3 == 0 || i == last; });
    }
    case Pattern::SingleBlock: {
      const BsrMatrix full = generate_bsr(rows, cols, tc.r, tc.c, 0.0, tc.dist, seed);
      const int64_t keep_row = tc.brows / 2;
      BsrMatrix one = drop_block_rows(full, [keep_row](int64_t i) { return i != keep_row; });
      // Keep only the last block of that row (block column bcols - 1).
      const size_t bs = static_cast<size_t>(tc.r) * static_cast<size_t>(tc.c);
      one.block_indices = {one.block_indices.back()};
      one.block_data.erase(one.block_data.begin(), one.block_data.end() - static_cast<long>(bs));
      for (size_t i = 0; i < one.index_pointer.size(); ++i)
        one.index_pointer[i] = static_cast<int64_t>(i) > keep_row ? 1 : 0;
      return one;
    }
    case Pattern::OneLongRow: {
      const BsrMatrix full = generate_bsr(rows, cols, tc.r, tc.c, 0.0, tc.dist, seed);
      BsrMatrix w;
      w.rows = rows;
      w.cols = cols;
      w.block_rows = tc.r;
      w.block_cols = tc.c;
      const size_t bs = static_cast<size_t>(tc.r) * static_cast<size_t>(tc.c);
      for (int64_t i = 0; i < tc.brows; ++i) {
        for (int64_t j = 0; j < tc.bcols; ++j) {
          if (i != 1 && j != (i * 7) % tc.bcols) continue;
          const size_t b = static_cast<size_t>(i * tc.bcols + j);  // full: every block present
          w.block_indices.push_back(static_cast<int32_t>(j));
          w.block_data.insert(w.block_data.end(), full.block_data.begin() + static_cast<long>(b * bs),
                              full.block_data.begin() + static_cast<long>((b + 1) * bs));
        }
        w.index_pointer.push_back(static_cast<int32_t>(w.block_indices.size()));
      }
      return w;
    }
    case Pattern::ZeroDepth: {
      BsrMatrix w;
      w.rows = rows;
      w.cols = 0;
      w.block_rows = tc.r;
      w.block_cols = tc.c;
      w.index_pointer.assign(static_cast<size_t>(tc.brows + 1), 0);
      return w;
    }
  }
  return {};
}

struct Scalars {
  float alpha, beta;
};

// ---- the parameterized suite --------------------------------------------------------------------

class BsrProducts : public testing::TestWithParam<Case> {};

TEST_P(BsrProducts, MatchesCpuReference) {
  const Case& tc = GetParam();
  const uint64_t seed = seed_of(tc.name);
  std::mt19937_64 rng(seed);
  const BsrMatrix w = make_w(tc, seed);
  ASSERT_NO_THROW(validate(w));
  if (tc.pattern == Pattern::NoBlocks || tc.pattern == Pattern::ZeroDepth) {
    ASSERT_EQ(w.nnzb(), 0);
  }
  if (tc.pattern == Pattern::SingleBlock) {
    ASSERT_EQ(w.nnzb(), 1);
  }

  const bool xwt = tc.prod == Product::XWt;
  const int64_t k = w.cols;
  const int64_t m = xwt ? tc.batch : w.rows;
  const int64_t n = xwt ? w.rows : tc.batch;
  HostDense x = xwt ? make_dense(m, k, tc.mem) : make_dense(k, n, tc.mem);
  x.fill_random(rng);
  HostDense y0 = make_dense(m, n, tc.mem);
  y0.fill_random(rng);

  // alpha * (the product) + beta * Y0 is checked against the reference's product, computed once.
  const int64_t ldp = std::max<int64_t>(n, 1);
  std::vector<float> prod(static_cast<size_t>(std::max<int64_t>(m * n, 1)), kNaN);
  if (xwt)
    ref::bsr_xwt(m, n, k, 1.0f, x.data(), x.ld, w, 0.0f, prod.data(), ldp);
  else
    ref::bsr_wx(m, n, k, 1.0f, w, x.data(), x.ld, 0.0f, prod.data(), ldp);

  float max_w = 0.0f;
  for (float v : w.block_data) max_w = std::max(max_w, std::fabs(v));
  // Float accumulation of at most k products (|x|, |w| <= 1), plus the reference's own rounding.
  const double bound = ref::fp32_gemm_error_bound(k) * max_abs(x) * max_w;

  const DeviceBsrMatrix dw(w);
  DeviceBuffer<float> dx(x.storage.size()), dy(y0.storage.size());
  dx.upload(x.storage);

  // beta = 0 over NaN, general alpha/beta, and (Large_ cases; the sanitized Small_ ones keep two
  // runs per kernel) beta = 1, accumulating into Y.
  std::vector<Scalars> scalars = {{1.0f, 0.0f}, {-0.75f, 1.5f}};
  if (!tc.small) scalars.push_back({0.5f, 1.0f});
  for (const BsrKernel kernel : kAllKernels) {
    for (const Scalars ab : scalars) {
      SCOPED_TRACE("kernel " + to_string(kernel) + ", alpha " + std::to_string(ab.alpha) +
                   ", beta " + std::to_string(ab.beta));
      HostDense y_in = y0;
      if (ab.beta == 0.0f) y_in.fill(kNaN);  // beta = 0 must not read Y
      dy.upload(y_in.storage);
      BsrOptions opt;
      opt.kernel = kernel;
      float* y_dev = dy.get() + y0.offset;
      const float* x_dev = dx.get() + x.offset;
      if (xwt)
        bsr_xwt(m, n, k, ab.alpha, x_dev, x.ld, dw, ab.beta, y_dev, y0.ld, nullptr, opt);
      else
        bsr_wx(m, n, k, ab.alpha, dw, x_dev, x.ld, ab.beta, y_dev, y0.ld, nullptr, opt);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const std::vector<float> out = dy.download();

      std::vector<bool> inside(out.size(), false);
      double err2 = 0.0, ref2 = 0.0;
      int64_t bad = 0;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          const size_t idx = y0.index(i, j);
          inside[idx] = true;
          const double beta_y = ab.beta == 0.0f ? 0.0 : double(ab.beta) * double(y0.at(i, j));
          const double expect = double(ab.alpha) * double(prod[static_cast<size_t>(i * ldp + j)]) + beta_y;
          const double got = out[idx];
          const double tol = std::fabs(ab.alpha) * bound + 2.4e-7 * std::fabs(beta_y) + 1e-30;
          err2 += (got - expect) * (got - expect);
          ref2 += expect * expect;
          if (!(std::fabs(got - expect) <= tol) && bad++ < 5)
            ADD_FAILURE() << "Y(" << i << ", " << j << ") = " << got << ", expected " << expect
                          << " (tolerance " << tol << ")";
        }
      EXPECT_EQ(bad, 0) << "elements outside tolerance";
      if (ref2 > 0) {
        EXPECT_LE(std::sqrt(err2 / ref2), 1e-5) << "relative Frobenius error";
      }
      int64_t touched = 0;
      for (size_t idx = 0; idx < out.size(); ++idx)
        if (!inside[idx] && std::memcmp(&out[idx], &y_in.storage[idx], sizeof(float)) != 0) ++touched;
      EXPECT_EQ(touched, 0) << "elements outside Y (padding between rows, before or after) written";
    }
  }
  const std::vector<float> x_after = dx.download();
  EXPECT_EQ(std::memcmp(x_after.data(), x.storage.data(), x_after.size() * sizeof(float)), 0)
      << "x was modified";
}

struct BlockShape {
  int r, c;
  int64_t brows, bcols;              // W's block counts: odd, so W's dims are no multiple of a tile
  int64_t small_brows, small_bcols;  // the same for the Small_ cases (compute-sanitizer's racecheck
                                     // costs seconds per case at the larger counts)
};

std::vector<Case> all_cases() {
  // Square fast sizes, non-square ones, and odd ones (3x5: no vector path; 80x8: R > 64, a block
  // row spans two tiled-kernel row tiles, the second one mostly past the block row).
  const BlockShape shapes[] = {
      {1, 1, 131, 67, 37, 29}, {3, 5, 23, 13, 9, 7}, {8, 8, 13, 11, 7, 5},
      {16, 16, 7, 5, 5, 3},    {32, 32, 7, 5, 3, 5}, {64, 64, 7, 5, 3, 3},
      {80, 8, 3, 9, 3, 5},     {16, 32, 7, 5, 5, 3}, {32, 8, 7, 9, 3, 7},
  };
  const int64_t batches[] = {1, 8, 13, 16, 17, 100, 300};
  const double sparsities[] = {0.0, 0.7, 0.95};
  const RowDistribution dists[] = {RowDistribution::Uniform, RowDistribution::Skewed};
  const Memory mems[] = {Memory::Tight, Memory::OffsetPadded, Memory::Aligned};

  std::vector<Case> cases;
  auto add = [&](Case c, const BlockShape* s = nullptr) {
    if (s != nullptr && c.small) {
      c.brows = s->small_brows;
      c.bcols = s->small_bcols;
    }
    c.name = make_name(c);
    cases.push_back(c);
  };
  int si = 0;
  for (const Product prod : {Product::XWt, Product::WX})
    for (const BlockShape& s : shapes) {
      ++si;
      Case base;
      base.prod = prod;
      base.r = s.r;
      base.c = s.c;
      base.brows = s.brows;
      base.bcols = s.bcols;
      const int wx = prod == Product::WX ? 1 : 0;
      // Large_: every batch size x sparsity x row distribution, memory layouts in rotation.
      for (int i = 0; i < 7; ++i) {
        int j = 0;
        for (const double sp : sparsities)
          for (const RowDistribution d : dists) {
            Case c = base;
            c.batch = batches[i];
            c.sparsity = sp;
            c.dist = d;
            c.mem = mems[(i + j++ + si + wx) % 3];
            add(c);
          }
      }
      // Small_ (sanitized; smaller W): batches 1, 13, 17 with sparsity, row distribution and memory
      // rotating so that each block shape sees every one of them under the sanitizer.
      for (int i = 0; i < 3; ++i) {
        Case c = base;
        c.batch = batches[2 * i];  // 1, 13, 17
        c.sparsity = sparsities[(i + si) % 3];
        c.dist = dists[(i + si + wx) % 2];
        c.mem = mems[(i + 2 * si + wx) % 3];
        c.small = true;
        add(c, &s);
      }
      // Structure: empty block rows, a single block, nnzb = 0, k = 0 (small, and sanitized).
      Case c = base;
      c.small = true;
      c.pattern = Pattern::EmptyRows;
      c.batch = 17;
      c.sparsity = 0.3;
      c.dist = dists[si % 2];
      c.mem = Memory::OffsetPadded;
      add(c, &s);
      c.pattern = Pattern::SingleBlock;
      c.batch = 5;
      c.sparsity = 0.0;
      c.mem = Memory::Aligned;
      add(c, &s);
      c.pattern = Pattern::NoBlocks;
      c.batch = 3;
      c.sparsity = 1.0;
      c.mem = Memory::Tight;
      add(c, &s);
      c.pattern = Pattern::ZeroDepth;
      c.batch = 7;
      c.sparsity = 1.0;
      c.mem = Memory::OffsetPadded;
      add(c, &s);
      // Empty block rows again at a batch the tiled kernel takes by default (Auto).
      c.small = false;
      c.pattern = Pattern::EmptyRows;
      c.batch = 100;
      c.sparsity = 0.0;
      c.mem = Memory::Tight;
      add(c);
    }
  // Larger skewed weights: many block rows of very different length (the tiled kernel's
  // longest-first order), batch sizes past one column tile.
  for (const Product prod : {Product::XWt, Product::WX}) {
    Case c;
    c.prod = prod;
    c.r = c.c = 16;
    c.brows = 61;
    c.bcols = 37;
    c.batch = 300;
    c.sparsity = 0.9;
    c.dist = RowDistribution::Skewed;
    c.mem = Memory::OffsetPadded;
    add(c);
    c.r = c.c = 32;
    c.brows = 31;
    c.bcols = 19;
    c.batch = 257;
    c.sparsity = 0.8;
    c.mem = Memory::Aligned;
    add(c);
    c.r = 8;
    c.c = 8;
    c.brows = 127;
    c.bcols = 63;
    c.batch = 1;  // small-M shape with a long W (batch 1, the seed's m = 1)
    c.sparsity = 0.85;
    c.mem = Memory::Tight;
    add(c);
  }
  // One block row far longer than the rest (the tiled kernel's heavy rows), tile heights 8-64 and
  // a block row spanning two row tiles (80 x 8), batches of one and of several column tiles.
  for (const Product prod : {Product::XWt, Product::WX})
    for (const BlockShape s : {BlockShape{16, 16, 9, 41, 0, 0}, BlockShape{64, 64, 5, 23, 0, 0},
                               BlockShape{80, 8, 5, 45, 0, 0}, BlockShape{8, 8, 13, 57, 0, 0}}) {
      Case c;
      c.prod = prod;
      c.r = s.r;
      c.c = s.c;
      c.brows = s.brows;
      c.bcols = s.bcols;
      c.pattern = Pattern::OneLongRow;
      for (const int64_t batch : {int64_t{100}, int64_t{300}}) {
        c.batch = batch;
        c.mem = batch == 100 ? Memory::Aligned : Memory::OffsetPadded;
        add(c);
      }
    }
  // Names must be unique (gtest refuses duplicates): fail loudly here if a change breaks that.
  std::set<std::string> names;
  for (const Case& c : cases)
    if (!names.insert(c.name).second) throw std::logic_error("duplicate BSR test case " + c.name);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Shapes, BsrProducts, testing::ValuesIn(all_cases()), case_name);

// ---- BLAS special cases -------------------------------------------------------------------------

// Copies a device buffer back and compares it bitwise to `want`.
::testing::AssertionResult bitwise_equal(const DeviceBuffer<float>& d, const std::vector<float>& want) {
  const std::vector<float> got = d.download();
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "size differs";
  for (size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0)
      return ::testing::AssertionFailure()
             << "element " << i << " is " << got[i] << ", expected " << want[i];
  return ::testing::AssertionSuccess();
}

// alpha == 0 gives Y = beta * Y without reading X or W's blocks (both hold NaN here); beta == 0 then
// writes zeros over a NaN-poisoned Y; beta == 1 leaves Y bit-identical.
TEST(BsrProductsSpecial, Small_AlphaZeroReadsNeitherXNorW) {
  BsrMatrix w = generate_bsr(48, 80, 16, 16, 0.5, RowDistribution::Skewed, 3);
  std::fill(w.block_data.begin(), w.block_data.end(), kNaN);
  const DeviceBsrMatrix dw(w);
  const int64_t batch = 13;
  std::mt19937_64 rng(5);
  for (const Product prod : {Product::XWt, Product::WX}) {
    const bool xwt = prod == Product::XWt;
    const int64_t m = xwt ? batch : 48, n = xwt ? 48 : batch, k = 80;
    HostDense x = xwt ? make_dense(m, k, Memory::OffsetPadded) : make_dense(k, n, Memory::OffsetPadded);
    x.fill(kNaN);
    HostDense y0 = make_dense(m, n, Memory::OffsetPadded);
    y0.fill_random(rng);
    DeviceBuffer<float> dx(x.storage.size()), dy(y0.storage.size());
    dx.upload(x.storage);
    for (const BsrKernel kernel : kAllKernels)
      for (const float beta : {1.0f, 0.0f, -2.0f}) {
        SCOPED_TRACE(std::string(xwt ? "XW^T" : "WX") + ", kernel " + to_string(kernel) +
                     ", beta " + std::to_string(beta));
        HostDense y_in = y0;
        if (beta == 0.0f) y_in.fill(kNaN);
        HostDense want = y_in;
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) want.at(i, j) = beta == 0.0f ? 0.0f : beta * y_in.at(i, j);
        dy.upload(y_in.storage);
        BsrOptions opt;
        opt.kernel = kernel;
        if (xwt)
          bsr_xwt(m, n, k, 0.0f, dx.get() + 1, x.ld, dw, beta, dy.get() + 1, y0.ld, nullptr, opt);
        else
          bsr_wx(m, n, k, 0.0f, dw, dx.get() + 1, x.ld, beta, dy.get() + 1, y0.ld, nullptr, opt);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        EXPECT_TRUE(bitwise_equal(dy, want.storage));
      }
  }
}

// k == 0 (W has no block columns): X may be null; Y = beta * Y.
TEST(BsrProductsSpecial, Small_ZeroDepthWithNullX) {
  BsrMatrix w;
  w.rows = 48;
  w.block_rows = 16;
  w.block_cols = 8;
  w.index_pointer = {0, 0, 0, 0};
  const DeviceBsrMatrix dw(w);
  std::mt19937_64 rng(6);
  for (const Product prod : {Product::XWt, Product::WX}) {
    const bool xwt = prod == Product::XWt;
    const int64_t m = xwt ? 9 : 48, n = xwt ? 48 : 9;
    HostDense y0 = make_dense(m, n, Memory::Tight);
    y0.fill_random(rng);
    DeviceBuffer<float> dy(y0.storage.size());
    for (const BsrKernel kernel : kAllKernels)
      for (const float beta : {0.0f, 0.5f}) {
        SCOPED_TRACE(std::string(xwt ? "XW^T" : "WX") + ", kernel " + to_string(kernel) +
                     ", beta " + std::to_string(beta));
        HostDense y_in = y0;
        if (beta == 0.0f) y_in.fill(kNaN);
        HostDense want = y_in;
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) want.at(i, j) = beta == 0.0f ? 0.0f : beta * y_in.at(i, j);
        dy.upload(y_in.storage);
        BsrOptions opt;
        opt.kernel = kernel;
        if (xwt)
          bsr_xwt(m, n, 0, 1.0f, nullptr, 1, dw, beta, dy.get(), y0.ld, nullptr, opt);
        else
          bsr_wx(m, n, 0, 1.0f, dw, nullptr, n, beta, dy.get(), y0.ld, nullptr, opt);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        EXPECT_TRUE(bitwise_equal(dy, want.storage));
      }
  }
}

// An empty output (m == 0 or n == 0) is a no-op: nothing is written, X and Y may be null.
TEST(BsrProductsSpecial, Small_EmptyOutputIsANoOp) {
  const BsrMatrix w = generate_bsr(32, 24, 8, 8, 0.3, RowDistribution::Uniform, 7);
  const DeviceBsrMatrix dw(w);
  BsrMatrix w_empty;  // 0 x 24: no block rows
  w_empty.cols = 24;
  w_empty.block_rows = 8;
  w_empty.block_cols = 8;
  const DeviceBsrMatrix dw_empty(w_empty);
  const std::vector<float> sentinel(64, 42.0f);
  DeviceBuffer<float> dx(64 * 64), dy(sentinel.size());
  dy.upload(sentinel);
  for (const BsrKernel kernel : kAllKernels) {
    SCOPED_TRACE("kernel " + to_string(kernel));
    BsrOptions opt;
    opt.kernel = kernel;
    // X W^T with m = 0, and with W 0 x k (n = 0).
    EXPECT_NO_THROW(bsr_xwt(0, 32, 24, 1.0f, dx.get(), 24, dw, 0.0f, dy.get(), 32, nullptr, opt));
    EXPECT_NO_THROW(bsr_xwt(0, 32, 24, 1.0f, nullptr, 24, dw, 0.0f, nullptr, 32, nullptr, opt));
    EXPECT_NO_THROW(bsr_xwt(5, 0, 24, 1.0f, dx.get(), 24, dw_empty, 0.0f, dy.get(), 1, nullptr, opt));
    // W X with n = 0, and with W 0 x k (m = 0).
    EXPECT_NO_THROW(bsr_wx(32, 0, 24, 1.0f, dw, dx.get(), 1, 0.0f, dy.get(), 1, nullptr, opt));
    EXPECT_NO_THROW(bsr_wx(32, 0, 24, 1.0f, dw, nullptr, 1, 0.0f, nullptr, 1, nullptr, opt));
    EXPECT_NO_THROW(bsr_wx(0, 5, 24, 1.0f, dw_empty, dx.get(), 5, 0.0f, dy.get(), 5, nullptr, opt));
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(bitwise_equal(dy, sentinel));
}

// Every element of `got` within `tol` of `want` (the first 5 misses reported).
void expect_all_near(const std::vector<float>& got, const std::vector<float>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(double(got[i]) - double(want[i])) <= tol) && bad++ < 5)
      ADD_FAILURE() << "element " << i << " = " << got[i] << ", expected " << want[i];
  EXPECT_EQ(bad, 0);
}

// Y = X W^T with 16 x 16 blocks and 6 block rows: block row 2 holds all 120 blocks, the others one
// each, so the tiled kernel splits row 2 over several thread blocks (split-K); batch 300.
struct LongRowProduct {
  static constexpr int64_t kR = 16, kBrows = 6, kBcols = 120, kBatch = 300;
  BsrMatrix w;
  HostDense x;
  std::vector<float> want;  // the CPU reference's Y
  DeviceBuffer<float> dx, dy;

  explicit LongRowProduct(uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    w.rows = kR * kBrows;
    w.cols = kR * kBcols;
    w.block_rows = w.block_cols = kR;
    w.index_pointer.assign(1, 0);  // then one end offset per block row
    for (int64_t i = 0; i < kBrows; ++i) {
      for (int64_t j = 0; j < kBcols; ++j) {
        if (i != 2 && j != i) continue;
        w.block_indices.push_back(static_cast<int32_t>(j));
        for (int64_t e = 0; e < kR * kR; ++e) w.block_data.push_back(dist(rng));
      }
      w.index_pointer.push_back(static_cast<int32_t>(w.block_indices.size()));
    }
    x = make_dense(kBatch, w.cols, Memory::Tight);
    x.fill_random(rng);
    want.resize(static_cast<size_t>(kBatch * w.rows));
    ref::bsr_xwt(kBatch, w.rows, w.cols, 1.0f, x.data(), x.ld, w, 0.0f, want.data(), w.rows);
    dx = DeviceBuffer<float>(x.storage.size());
    dx.upload(x.storage);
    dy = DeviceBuffer<float>(want.size());
  }
  // Waits for the copy: a pageable upload may still be in flight when cudaMemcpy returns, and a
  // product on a non-blocking stream does not wait for the legacy stream's work.
  void poison_y() {
    dy.upload(std::vector<float>(want.size(), kNaN));
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  // A tiled kernel's product into dy on `stream` (asynchronous).
  void run(const DeviceBsrMatrix& dw, cudaStream_t stream, BsrKernel kernel = BsrKernel::Tiled) {
    BsrOptions opt;
    opt.kernel = kernel;
    bsr_xwt(kBatch, w.rows, w.cols, 1.0f, dx.get(), x.ld, dw, 0.0f, dy.get(), w.rows, stream, opt);
  }
  double tolerance() const { return ref::fp32_gemm_error_bound(w.cols); }
};

// A block row far longer than the rest is split over several thread blocks (split-K in the tiled
// kernels 03 and 04) whose partial tiles are summed in piece order: repeated calls, on one stream
// and on another, give bitwise the same Y, which matches the reference.
TEST(BsrProductsSpecial, Small_SplitLongRowIsDeterministic) {
  LongRowProduct pr(31);
  const DeviceBsrMatrix dw(pr.w);
  cudaStream_t other = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), cudaSuccess);
  for (const BsrKernel kernel : {BsrKernel::Tiled, BsrKernel::TiledTf32x3}) {
    SCOPED_TRACE("kernel " + to_string(kernel));
    std::vector<float> first;
    for (cudaStream_t stream : {cudaStream_t{nullptr}, cudaStream_t{nullptr}, other, other}) {
      pr.poison_y();
      pr.run(dw, stream, kernel);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      if (first.empty()) {
        first = pr.dy.download();
        expect_all_near(first, pr.want, pr.tolerance());
      } else {
        EXPECT_TRUE(bitwise_equal(pr.dy, first));
      }
    }
  }
  ASSERT_EQ(cudaStreamDestroy(other), cudaSuccess);
}

// The split-K scratch memory is allocated in stream order from the workspace pool, so a product
// captures into a CUDA graph on its first call on a fresh stream as well as after a warm-up call;
// each graph replays twice and matches the reference.
TEST(BsrProductsSpecial, Small_SplitWorkspaceAndGraphCapture) {
  LongRowProduct pr(32);
  const DeviceBsrMatrix dw(pr.w);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (bool warm_up : {false, true}) {
    SCOPED_TRACE(warm_up ? "after a warm-up call" : "first call captured");
    if (warm_up) {
      pr.run(dw, stream);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    }
    pr.poison_y();
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    pr.run(dw, stream);
    ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    for (int rep = 0; rep < 2; ++rep) ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    expect_all_near(pr.dy.download(), pr.want, pr.tolerance());
    ASSERT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
    ASSERT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  }
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// One product with tight dense operands (X random in [-1, 1]), its CPU reference and device buffers;
// run() computes it with one kernel into dy.
struct TightProduct {
  bool xwt;
  int64_t m, n, k;
  HostDense x;
  std::vector<float> want;
  DeviceBuffer<float> dx, dy;

  TightProduct(const BsrMatrix& w, Product prod, int64_t batch, std::mt19937_64& rng)
      : xwt(prod == Product::XWt), m(xwt ? batch : w.rows), n(xwt ? w.rows : batch), k(w.cols),
        x(xwt ? make_dense(m, k, Memory::Tight) : make_dense(k, n, Memory::Tight)),
        want(static_cast<size_t>(m * n)) {
    x.fill_random(rng);
    if (xwt)
      ref::bsr_xwt(m, n, k, 1.0f, x.data(), x.ld, w, 0.0f, want.data(), n);
    else
      ref::bsr_wx(m, n, k, 1.0f, w, x.data(), x.ld, 0.0f, want.data(), n);
    dx = DeviceBuffer<float>(x.storage.size());
    dx.upload(x.storage);
    dy = DeviceBuffer<float>(want.size());
  }
  void run(const DeviceBsrMatrix& dw, BsrKernel kernel, cudaStream_t stream) {
    BsrOptions opt;
    opt.kernel = kernel;
    if (xwt)
      bsr_xwt(m, n, k, 1.0f, dx.get(), x.ld, dw, 0.0f, dy.get(), n, stream, opt);
    else
      bsr_wx(m, n, k, 1.0f, dw, dx.get(), x.ld, 0.0f, dy.get(), n, stream, opt);
  }
};

// Kernel 04's 3xTF32 products against the FP32 kernel 03 on long rows (k = 8192, dense W, both
// products): relative Frobenius error against the double-accumulated reference no worse than 2x
// kernel 03's. (Accumulating in the tensor core over all of k, rounding toward zero, was 30x worse:
// perf note B10.)
TEST(BsrProductsSpecial, Large_Tf32x3AccuracyMatchesFp32OnLongRows) {
  const int64_t rows = 64, k = 8192, batch = 96;
  const BsrMatrix w = generate_bsr(rows, k, 16, 16, 0.0, RowDistribution::Uniform, 77);
  const DeviceBsrMatrix dw(w);
  std::mt19937_64 rng(78);
  for (const Product prod : {Product::XWt, Product::WX}) {
    TightProduct pr(w, prod, batch, rng);
    const bool xwt = pr.xwt;
    double err[2] = {0.0, 0.0};
    const BsrKernel kernels[2] = {BsrKernel::Tiled, BsrKernel::TiledTf32x3};
    for (int which = 0; which < 2; ++which) {
      pr.run(dw, kernels[which], nullptr);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const std::vector<float> got = pr.dy.download();
      double e2 = 0.0, r2 = 0.0;
      for (size_t i = 0; i < got.size(); ++i) {
        const double d = double(got[i]) - double(pr.want[i]);
        e2 += d * d;
        r2 += double(pr.want[i]) * double(pr.want[i]);
      }
      err[which] = std::sqrt(e2 / r2);
    }
    std::printf("[ info ] %s k = %lld relative error: 03 %.3g, 04 %.3g\n", xwt ? "XW^T" : "WX",
                static_cast<long long>(k), err[0], err[1]);
    EXPECT_GT(err[0], 0.0);  // the FP32 sum is not exact: the comparison means something
    EXPECT_LE(err[1], 2.0 * err[0]) << (xwt ? "XW^T" : "WX");
  }
}

// The products run on the stream they are given (a non-blocking stream, synchronized alone).
TEST(BsrProductsSpecial, Small_RunsOnTheGivenStream) {
  const BsrMatrix w = generate_bsr(64, 96, 16, 16, 0.5, RowDistribution::Skewed, 8);
  const DeviceBsrMatrix dw(w);
  const int64_t batch = 21, k = 96;
  std::mt19937_64 rng(9);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (const Product prod : {Product::XWt, Product::WX}) {
    TightProduct pr(w, prod, batch, rng);
    for (const BsrKernel kernel : kAllKernels) {
      SCOPED_TRACE(std::string(pr.xwt ? "XW^T" : "WX") + ", kernel " + to_string(kernel));
      pr.dy.upload(std::vector<float>(pr.want.size(), kNaN));
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // the non-blocking stream does not wait for the upload
      pr.run(dw, kernel, stream);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      std::vector<float> got(pr.want.size());
      ASSERT_EQ(cudaMemcpyAsync(got.data(), pr.dy.get(), got.size() * sizeof(float),
                                cudaMemcpyDeviceToHost, stream),
                cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      expect_all_near(got, pr.want, ref::fp32_gemm_error_bound(k));
    }
  }
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

}  // namespace
}  // namespace tilegemm
