// BSR on the GPU, the parts that are not arithmetic: bad arguments to bsr_xwt / bsr_wx (host
// pointers, overlap, leading dimensions, shapes that do not match W, unknown kernel values) throw
// tilegemm::Error(InvalidArgument) naming the argument and leave Y untouched; DeviceBsrMatrix
// uploads and downloads exactly, orders block rows longest first, rejects an invalid host matrix,
// and its default-constructed / moved-from state is a usable empty 0 x 0 matrix.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "core/device_buffer.hpp"
#include "gpu/bsr_test_util.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

using bsr_test::expect_invalid;
using bsr_test::same_matrix;

// ---- argument errors ------------------------------------------------------------------------------

constexpr float kSentinel = 42.0f;

struct Fixture {
  static constexpr int64_t kBatch = 13, kRows = 48, kCols = 80;  // W 48 x 80, 16 x 16 blocks
  BsrMatrix w = generate_bsr(kRows, kCols, 16, 16, 0.5, RowDistribution::Uniform, 1);
  DeviceBsrMatrix dw{w};
  DeviceBuffer<float> dx{static_cast<size_t>(kBatch * kCols)};  // X W^T: 13 x 80; W X: 80 x 13
  DeviceBuffer<float> dy{static_cast<size_t>(kBatch * kRows)};  // 13 x 48 or 48 x 13
  std::vector<float> host{std::vector<float>(static_cast<size_t>(kBatch * kCols), 1.0f)};
  std::vector<float> sentinel{std::vector<float>(static_cast<size_t>(kBatch * kRows), kSentinel)};
  Fixture() {
    dx.upload(host);
    dy.upload(sentinel);
  }
  void expect_untouched() {
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(dy.download(), sentinel) << "a rejected call wrote Y";
    EXPECT_TRUE(same_matrix(dw.to_host(), w)) << "a rejected call changed W";
  }
};

TEST(BsrErrorsGpu, Small_XwtRejectsBadArgumentsAndLeavesYUntouched) {
  Fixture f;
  const int64_t m = Fixture::kBatch, n = Fixture::kRows, k = Fixture::kCols;
  float* x = f.dx.get();
  float* y = f.dy.get();
  const DeviceBsrMatrix& w = f.dw;
  auto call = [&](int64_t mm, int64_t nn, int64_t kk, const float* xx, int64_t ldx, float* yy,
                  int64_t ldy, BsrKernel kernel = BsrKernel::Auto) {
    BsrOptions opt;
    opt.kernel = kernel;
    bsr_xwt(mm, nn, kk, 1.0f, xx, ldx, w, 0.0f, yy, ldy, nullptr, opt);
  };
  for (const BsrKernel kernel :
       {BsrKernel::Auto, BsrKernel::Reduction, BsrKernel::SmallM, BsrKernel::Tiled,
        BsrKernel::TiledTf32x3}) {
    SCOPED_TRACE("kernel " + to_string(kernel));
    expect_invalid([&] { call(m, n, k, f.host.data(), k, y, n, kernel); }, "x is a host pointer");
    std::vector<float> host_y(static_cast<size_t>(m * n), 7.0f);
    expect_invalid([&] { call(m, n, k, x, k, host_y.data(), n, kernel); }, "y is a host pointer");
    EXPECT_EQ(host_y, std::vector<float>(static_cast<size_t>(m * n), 7.0f));
    expect_invalid([&] { call(m, n, k, x, k, x, n, kernel); }, "bsr_xwt: y overlaps x");
    expect_invalid([&] { call(m, n, k, x, k, x + k * m - 1, n, kernel); }, "bsr_xwt: y overlaps x");
    expect_invalid([&] { call(m, n, k, x, k, const_cast<float*>(w.view().block_data) + 5, n, kernel); },
                   "bsr_xwt: y overlaps w's block_data");
    expect_invalid([&] { call(m, n, k, x, k - 1, y, n, kernel); }, "bsr_xwt: ldx = 79 is too small");
    expect_invalid([&] { call(m, n, k, x, k, y, n - 1, kernel); }, "bsr_xwt: ldy = 47 is too small");
    expect_invalid([&] { call(m, n, k, x, k, y, 0, kernel); }, "bsr_xwt: ldy = 0 is too small");
    expect_invalid([&] { call(m, n - 16, k, x, k, y, n, kernel); },
                   "bsr_xwt: n = 32 does not match w.rows = 48");
    expect_invalid([&] { call(m, n, k - 16, x, k, y, n, kernel); },
                   "bsr_xwt: k = 64 does not match w.cols = 80");
    expect_invalid([&] { call(-1, n, k, x, k, y, n, kernel); }, "bsr_xwt: m = -1 is negative");
    expect_invalid([&] { call(m, -1, k, x, k, y, n, kernel); }, "bsr_xwt: n = -1 is negative");
    expect_invalid([&] { call(m, n, -1, x, k, y, n, kernel); }, "bsr_xwt: k = -1 is negative");
    expect_invalid([&] { call(m, n, k, nullptr, k, y, n, kernel); }, "bsr_xwt: x is a null pointer");
    expect_invalid([&] { call(m, n, k, x, k, nullptr, n, kernel); }, "bsr_xwt: y is a null pointer");
  }
  // Kernel values outside the enum, also when there is nothing to compute.
  expect_invalid([&] { call(m, n, k, x, k, y, n, static_cast<BsrKernel>(kNumBsrKernels + 1)); },
                 "bsr_xwt: options.kernel = 5 is not a BsrKernel value (0-4)");
  expect_invalid([&] { call(m, n, k, x, k, y, n, static_cast<BsrKernel>(-1)); },
                 "bsr_xwt: options.kernel = -1");
  expect_invalid([&] { call(0, n, k, x, k, y, n, static_cast<BsrKernel>(99)); },
                 "bsr_xwt: options.kernel = 99");
  f.expect_untouched();
}

TEST(BsrErrorsGpu, Small_WxRejectsBadArgumentsAndLeavesYUntouched) {
  Fixture f;
  const int64_t m = Fixture::kRows, n = Fixture::kBatch, k = Fixture::kCols;
  float* x = f.dx.get();
  float* y = f.dy.get();
  const DeviceBsrMatrix& w = f.dw;
  auto call = [&](int64_t mm, int64_t nn, int64_t kk, const float* xx, int64_t ldx, float* yy,
                  int64_t ldy, BsrKernel kernel = BsrKernel::Auto) {
    BsrOptions opt;
    opt.kernel = kernel;
    bsr_wx(mm, nn, kk, 1.0f, w, xx, ldx, 0.0f, yy, ldy, nullptr, opt);
  };
  for (const BsrKernel kernel :
       {BsrKernel::Auto, BsrKernel::Reduction, BsrKernel::SmallM, BsrKernel::Tiled,
        BsrKernel::TiledTf32x3}) {
    SCOPED_TRACE("kernel " + to_string(kernel));
    expect_invalid([&] { call(m, n, k, f.host.data(), n, y, n, kernel); }, "x is a host pointer");
    std::vector<float> host_y(static_cast<size_t>(m * n), 7.0f);
    expect_invalid([&] { call(m, n, k, x, n, host_y.data(), n, kernel); }, "y is a host pointer");
    EXPECT_EQ(host_y, std::vector<float>(static_cast<size_t>(m * n), 7.0f));
    expect_invalid([&] { call(m, n, k, x, n, x + 3, n, kernel); }, "bsr_wx: y overlaps x");
    expect_invalid([&] { call(m, n, k, x, n, const_cast<float*>(w.view().block_data), n, kernel); },
                   "bsr_wx: y overlaps w's block_data");
    expect_invalid([&] { call(m, n, k, x, n - 1, y, n, kernel); }, "bsr_wx: ldx = 12 is too small");
    expect_invalid([&] { call(m, n, k, x, n, y, n - 1, kernel); }, "bsr_wx: ldy = 12 is too small");
    expect_invalid([&] { call(m - 16, n, k, x, n, y, n, kernel); },
                   "bsr_wx: m = 32 does not match w.rows = 48");
    expect_invalid([&] { call(m, n, k + 16, x, n, y, n, kernel); },
                   "bsr_wx: k = 96 does not match w.cols = 80");
    expect_invalid([&] { call(m, -5, k, x, n, y, n, kernel); }, "bsr_wx: n = -5 is negative");
    expect_invalid([&] { call(m, n, k, nullptr, n, y, n, kernel); }, "bsr_wx: x is a null pointer");
  }
  expect_invalid([&] { call(m, n, k, x, n, y, n, static_cast<BsrKernel>(kNumBsrKernels + 1)); },
                 "bsr_wx: options.kernel = 5 is not a BsrKernel value (0-4)");
  expect_invalid([&] { call(m, 0, k, x, 1, y, 1, static_cast<BsrKernel>(-3)); },
                 "bsr_wx: options.kernel = -3");
  f.expect_untouched();
}

// alpha == 0 does not read X, so only Y has to be device memory; a host Y is still rejected.
TEST(BsrErrorsGpu, Small_HostYRejectedEvenWhenNothingIsRead) {
  Fixture f;
  std::vector<float> host_y(static_cast<size_t>(Fixture::kBatch * Fixture::kRows), 7.0f);
  expect_invalid([&] {
    bsr_xwt(Fixture::kBatch, Fixture::kRows, Fixture::kCols, 0.0f, f.dx.get(), Fixture::kCols,
            f.dw, 1.0f, host_y.data(), Fixture::kRows);
  }, "y is a host pointer");
  expect_invalid([&] {
    bsr_wx(Fixture::kRows, Fixture::kBatch, Fixture::kCols, 1.0f, f.dw, f.dx.get(),
           Fixture::kBatch, 0.5f, host_y.data(), Fixture::kBatch);
  }, "y is a host pointer");
  EXPECT_EQ(host_y, std::vector<float>(host_y.size(), 7.0f));
  f.expect_untouched();
}

// ---- DeviceBsrMatrix ----------------------------------------------------------------------------

std::vector<BsrMatrix> sample_matrices() {
  std::vector<BsrMatrix> v;
  v.push_back(generate_bsr(131, 67, 1, 1, 0.7, RowDistribution::Uniform, 11));
  v.push_back(generate_bsr(104, 88, 8, 8, 0.5, RowDistribution::Skewed, 12));
  v.push_back(generate_bsr(112, 80, 16, 16, 0.0, RowDistribution::Uniform, 13));
  v.push_back(generate_bsr(224, 160, 32, 32, 0.95, RowDistribution::Skewed, 14));
  v.push_back(generate_bsr(448, 320, 64, 64, 0.7, RowDistribution::Skewed, 15));
  v.push_back(generate_bsr(112, 160, 16, 32, 0.6, RowDistribution::Uniform, 16));
  v.push_back(generate_bsr(224, 72, 32, 8, 0.8, RowDistribution::Skewed, 17));
  v.push_back(generate_bsr(69, 50, 3, 5, 0.4, RowDistribution::Skewed, 18));
  v.push_back(generate_bsr(64, 64, 16, 16, 1.0, RowDistribution::Uniform, 19));  // nnzb = 0
  for (const BsrMatrix& empty : bsr_test::empty_bsr_matrices()) v.push_back(empty);
  return v;
}

std::vector<int32_t> download_row_order(const DeviceBsrMatrix& d) {
  std::vector<int32_t> order(static_cast<size_t>(d.block_row_count()));
  if (!order.empty()) {
    EXPECT_NE(d.row_order(), nullptr);
    EXPECT_EQ(cudaMemcpy(order.data(), d.row_order(), order.size() * sizeof(int32_t),
                         cudaMemcpyDeviceToHost),
              cudaSuccess);
  }
  return order;
}

// row_order() is a permutation of the block rows, longest first, ties in increasing row order;
// max_row_blocks() is the longest row's block count.
void expect_row_order(const DeviceBsrMatrix& d, const BsrMatrix& h) {
  const std::vector<int32_t> order = download_row_order(d);
  auto length = [&](int32_t r) { return h.index_pointer[r + 1] - h.index_pointer[r]; };
  std::vector<int32_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int32_t> iota(order.size());
  std::iota(iota.begin(), iota.end(), 0);
  EXPECT_EQ(sorted, iota) << "row_order is not a permutation of the block rows";
  for (size_t i = 1; i < order.size(); ++i) {
    const int32_t a = order[i - 1], b = order[i];
    EXPECT_TRUE(length(a) > length(b) || (length(a) == length(b) && a < b))
        << "row_order[" << i - 1 << "] = " << a << " (" << length(a) << " blocks) before row "
        << b << " (" << length(b) << " blocks)";
  }
  // The host copy of the lengths follows the same order.
  const std::vector<int32_t>& lengths = d.row_lengths_longest_first();
  ASSERT_EQ(lengths.size(), order.size());
  for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(lengths[i], length(order[i])) << "entry " << i;
  int64_t longest = 0;
  for (int64_t r = 0; r < h.block_row_count(); ++r)
    longest = std::max<int64_t>(longest, length(static_cast<int32_t>(r)));
  EXPECT_EQ(d.max_row_blocks(), longest);
}

TEST(BsrDeviceMatrix, Small_RoundTripAndShape) {
  for (const BsrMatrix& h : sample_matrices()) {
    SCOPED_TRACE(std::to_string(h.rows) + "x" + std::to_string(h.cols) + " blocks " +
                 std::to_string(h.block_rows) + "x" + std::to_string(h.block_cols) + " nnzb " +
                 std::to_string(h.nnzb()));
    const DeviceBsrMatrix d(h);
    EXPECT_EQ(d.rows(), h.rows);
    EXPECT_EQ(d.cols(), h.cols);
    EXPECT_EQ(d.block_rows(), h.block_rows);
    EXPECT_EQ(d.block_cols(), h.block_cols);
    EXPECT_EQ(d.nnzb(), h.nnzb());
    EXPECT_EQ(d.block_row_count(), h.block_row_count());
    const BsrView v = d.view();
    EXPECT_EQ(v.rows, h.rows);
    EXPECT_EQ(v.cols, h.cols);
    EXPECT_EQ(v.block_rows, h.block_rows);
    EXPECT_EQ(v.block_cols, h.block_cols);
    EXPECT_EQ(v.nnzb, h.nnzb());
    EXPECT_NO_THROW(validate_bsr_shape(v));
    if (h.nnzb() > 0) {
      // The view's pointers are device memory.
      for (const void* p : {static_cast<const void*>(v.block_data),
                            static_cast<const void*>(v.block_indices),
                            static_cast<const void*>(v.index_pointer)}) {
        cudaPointerAttributes attr{};
        ASSERT_EQ(cudaPointerGetAttributes(&attr, p), cudaSuccess);
        EXPECT_EQ(attr.type, cudaMemoryTypeDevice);
      }
    }
    EXPECT_TRUE(same_matrix(d.to_host(), h));
    expect_row_order(d, h);
  }
}

TEST(BsrDeviceMatrix, Small_RowOrderLongestFirstTiesByRow) {
  // 8 x 8 blocks, 7 block rows holding 2, 0, 3, 2, 3, 0, 1 blocks.
  const std::vector<int> lengths = {2, 0, 3, 2, 3, 0, 1};
  BsrMatrix h;
  h.rows = 7 * 8;
  h.cols = 4 * 8;
  h.block_rows = h.block_cols = 8;
  for (int len : lengths) {
    for (int c = 0; c < len; ++c) h.block_indices.push_back(c + (4 - len));
    h.index_pointer.push_back(static_cast<int32_t>(h.block_indices.size()));
  }
  h.block_data.resize(h.block_indices.size() * 64);
  for (size_t i = 0; i < h.block_data.size(); ++i) h.block_data[i] = 0.25f * float(i % 7) - 0.5f;
  ASSERT_NO_THROW(validate(h));
  const DeviceBsrMatrix d(h);
  EXPECT_EQ(download_row_order(d), (std::vector<int32_t>{2, 4, 0, 3, 6, 1, 5}));
  EXPECT_EQ(d.max_row_blocks(), 3);
  expect_row_order(d, h);
  EXPECT_TRUE(same_matrix(d.to_host(), h));

  // nnzb = 0: every row has length 0, so the order is the identity.
  const BsrMatrix z = generate_bsr(40, 16, 8, 8, 1.0, RowDistribution::Uniform, 1);
  const DeviceBsrMatrix dz(z);
  EXPECT_EQ(download_row_order(dz), (std::vector<int32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(dz.max_row_blocks(), 0);
}

TEST(BsrDeviceMatrix, Small_InvalidHostMatrixThrowsAtConstruction) {
  const BsrMatrix good = generate_bsr(64, 48, 16, 16, 0.3, RowDistribution::Uniform, 2);
  ASSERT_GE(good.index_pointer[2] - good.index_pointer[1], 2) << "test needs two blocks in row 1";
  auto expect_rejected = [](const BsrMatrix& bad, const std::string& needle) {
    expect_invalid([&] { DeviceBsrMatrix d(bad); }, needle);
  };
  {
    BsrMatrix b = good;
    b.rows = 60;  // not a multiple of 16
    expect_rejected(b, "rows = 60 is not divisible");
  }
  {
    BsrMatrix b = good;
    b.block_cols = 0;
    expect_rejected(b, "block_cols = 0");
  }
  {
    BsrMatrix b = good;
    b.index_pointer.pop_back();
    expect_rejected(b, "index_pointer has");
  }
  {
    BsrMatrix b = good;
    b.block_data.pop_back();
    expect_rejected(b, "block_data has");
  }
  {
    BsrMatrix b = good;
    b.index_pointer[2] = b.index_pointer[1] - 1;
    expect_rejected(b, "index_pointer decreases at block row");
  }
  {
    BsrMatrix b = good;
    b.block_indices[static_cast<size_t>(b.index_pointer[1])] = 3;  // only 3 block columns
    expect_rejected(b, "out of range");
  }
  {
    BsrMatrix b = good;
    const size_t first = static_cast<size_t>(b.index_pointer[1]);
    std::swap(b.block_indices[first], b.block_indices[first + 1]);
    expect_rejected(b, "not sorted");
  }
  {
    BsrMatrix b = good;
    const size_t first = static_cast<size_t>(b.index_pointer[1]);
    b.block_indices[first + 1] = b.block_indices[first];
    expect_rejected(b, "duplicated column index");
  }
}

TEST(BsrDeviceMatrix, Small_MoveTransfersOwnership) {
  const BsrMatrix h = generate_bsr(96, 64, 16, 16, 0.4, RowDistribution::Skewed, 4);
  DeviceBsrMatrix a(h);
  const BsrView va = a.view();
  DeviceBsrMatrix b(std::move(a));
  EXPECT_EQ(b.view().block_data, va.block_data);  // moved, not copied
  EXPECT_TRUE(same_matrix(b.to_host(), h));
  expect_row_order(b, h);
  EXPECT_EQ(a.rows(), 0);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  EXPECT_EQ(a.cols(), 0);
  EXPECT_EQ(a.nnzb(), 0);
  DeviceBsrMatrix c;
  c = std::move(b);
  EXPECT_TRUE(same_matrix(c.to_host(), h));
  c = DeviceBsrMatrix(generate_bsr(32, 32, 8, 8, 0.5, RowDistribution::Uniform, 5));  // frees the old
  EXPECT_EQ(c.rows(), 32);
  EXPECT_EQ(c.block_rows(), 8);
}

// "A default-constructed DeviceBsrMatrix is an empty 0 x 0 matrix": its accessors say so, it
// downloads as the empty host matrix, and it works as W in products whose output is empty.
TEST(BsrDeviceMatrix, Small_DefaultConstructedIsAnEmptyMatrix) {
  const DeviceBsrMatrix d;
  EXPECT_EQ(d.rows(), 0);
  EXPECT_EQ(d.cols(), 0);
  EXPECT_EQ(d.nnzb(), 0);
  EXPECT_EQ(d.block_row_count(), 0);
  EXPECT_EQ(d.max_row_blocks(), 0);
  EXPECT_TRUE(same_matrix(d.to_host(), BsrMatrix{}));
  DeviceBuffer<float> dy(16);
  const std::vector<float> sentinel(16, kSentinel);
  dy.upload(sentinel);
  // X W^T with W 0 x 0: Y is m x 0; W X with W 0 x 0: Y is 0 x n. Nothing to write.
  EXPECT_NO_THROW(bsr_xwt(4, 0, 0, 1.0f, nullptr, 1, d, 0.0f, dy.get(), 1));
  EXPECT_NO_THROW(bsr_wx(0, 4, 0, 1.0f, d, nullptr, 4, 0.0f, dy.get(), 4));
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(dy.download(), sentinel);
}

}  // namespace
}  // namespace tilegemm
