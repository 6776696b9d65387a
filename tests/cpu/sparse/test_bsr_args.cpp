// The device-free argument checks of the GPU products (check_bsr_xwt_args / check_bsr_wx_args in
// tilegemm/bsr_gpu.hpp) and the BsrKernel names. No GPU needed: the checks never dereference the
// pointers, so host arrays stand in for device ones.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "bsr_test_util.hpp"
#include "tilegemm/bsr.hpp"
#include "tilegemm/bsr_gpu.hpp"
#include "tilegemm/error.hpp"

namespace {

using bsr_test::expect_error;
using tilegemm::BsrKernel;
using tilegemm::BsrMatrix;
using tilegemm::BsrView;
using tilegemm::check_bsr_wx_args;
using tilegemm::check_bsr_xwt_args;
using tilegemm::RowDistribution;

// W: 128 x 96 with 16 x 16 blocks. X W^T: X m x 96, Y m x 128. W X: X 96 x n, Y 128 x n.
struct Args {
  BsrMatrix w = tilegemm::generate_bsr(128, 96, 16, 16, 0.5, RowDistribution::Uniform, 1);
  BsrView v = w.view();
  std::vector<float> x = std::vector<float>(200 * 200, 1.0f);
  std::vector<float> y = std::vector<float>(200 * 200, 2.0f);
  const float* X = x.data();
  const float* Y = y.data();
};

TEST(BsrArgs, XwtAcceptsValidArguments) {
  Args a;
  EXPECT_NO_THROW(check_bsr_xwt_args(8, 128, 96, a.X, 96, a.v, a.Y, 128));
  EXPECT_NO_THROW(check_bsr_xwt_args(1, 128, 96, a.X, 99, a.v, a.Y, 131));  // padded ld
  // Empty X / Y may be null: m == 0.
  EXPECT_NO_THROW(check_bsr_xwt_args(0, 128, 96, nullptr, 96, a.v, nullptr, 128));
  // Y right after X's last element does not overlap it (X spans (m - 1) * ldx + k elements).
  EXPECT_NO_THROW(check_bsr_xwt_args(8, 128, 96, a.X, 100, a.v, a.X + 7 * 100 + 96, 128));
  // k == 0: W is 48 x 0, X is m x 0 (may be null), ldx >= 1.
  BsrMatrix w0;
  w0.rows = 48;
  w0.block_rows = 16;
  w0.block_cols = 8;
  w0.index_pointer = {0, 0, 0, 0};
  EXPECT_NO_THROW(check_bsr_xwt_args(5, 48, 0, nullptr, 1, w0.view(), a.Y, 48));
  // nnzb == 0.
  const BsrMatrix empty = tilegemm::generate_bsr(64, 32, 8, 8, 1.0, RowDistribution::Uniform, 2);
  ASSERT_EQ(empty.nnzb(), 0);
  EXPECT_NO_THROW(check_bsr_xwt_args(3, 64, 32, a.X, 32, empty.view(), a.Y, 64));
}

TEST(BsrArgs, WxAcceptsValidArguments) {
  Args a;
  EXPECT_NO_THROW(check_bsr_wx_args(128, 8, 96, a.v, a.X, 8, a.Y, 8));
  EXPECT_NO_THROW(check_bsr_wx_args(128, 1, 96, a.v, a.X, 4, a.Y, 4));
  EXPECT_NO_THROW(check_bsr_wx_args(128, 0, 96, a.v, nullptr, 1, nullptr, 1));  // n == 0
  BsrMatrix w0;
  w0.rows = 48;
  w0.block_rows = 16;
  w0.index_pointer = {0, 0, 0, 0};
  EXPECT_NO_THROW(check_bsr_wx_args(48, 7, 0, w0.view(), nullptr, 7, a.Y, 7));  // k == 0
}

TEST(BsrArgs, XwtRejectsBadArguments) {
  Args a;
  const float* X = a.X;
  const float* Y = a.Y;
  const BsrView& v = a.v;
  expect_error([&] { check_bsr_xwt_args(-1, 128, 96, X, 96, v, Y, 128); }, "bsr_xwt: m = -1 is negative");
  expect_error([&] { check_bsr_xwt_args(8, -2, 96, X, 96, v, Y, 128); }, "bsr_xwt: n = -2 is negative");
  expect_error([&] { check_bsr_xwt_args(8, 128, -3, X, 96, v, Y, 128); }, "bsr_xwt: k = -3 is negative");
  expect_error([&] { check_bsr_xwt_args(int64_t{INT_MAX} + 1, 128, 96, X, 96, v, Y, 128); },
               "bsr_xwt: m = 2147483648 exceeds 2^31-1");
  // Sizes against W's shape (W is n x k).
  expect_error([&] { check_bsr_xwt_args(8, 128, 80, X, 96, v, Y, 128); },
               "bsr_xwt: k = 80 does not match w.cols = 96");
  expect_error([&] { check_bsr_xwt_args(8, 96, 96, X, 96, v, Y, 128); },
               "bsr_xwt: n = 96 does not match w.rows = 128");
  // Swapped n and k: the message names the first mismatch.
  expect_error([&] { check_bsr_xwt_args(8, 96, 128, X, 128, v, Y, 128); }, "does not match w.");
  // Leading dimensions.
  expect_error([&] { check_bsr_xwt_args(8, 128, 96, X, 95, v, Y, 128); },
               "bsr_xwt: ldx = 95 is too small: x is 8 x 96 row-major, so ldx must be >= 96");
  expect_error([&] { check_bsr_xwt_args(8, 128, 96, X, 96, v, Y, 127); },
               "bsr_xwt: ldy = 127 is too small: y is 8 x 128 row-major, so ldy must be >= 128");
  expect_error([&] { check_bsr_xwt_args(8, 128, 96, X, 96, v, Y, 0); }, "bsr_xwt: ldy = 0 is too small");
  expect_error([&] { check_bsr_xwt_args(8, 128, 96, X, -96, v, Y, 128); }, "bsr_xwt: ldx = -96");
  // Null pointers where elements exist.
  expect_error([&] { check_bsr_xwt_args(8, 128, 96, nullptr, 96, v, Y, 128); },
               "bsr_xwt: x is a null pointer");
  expect_error([&] { check_bsr_xwt_args(8, 128, 96, X, 96, v, nullptr, 128); },
               "bsr_xwt: y is a null pointer");
  // Overlap of Y with X (any part of X's span) and with W's blocks.
  expect_error([&] { check_bsr_xwt_args(8, 128, 96, X, 96, v, X, 128); }, "bsr_xwt: y overlaps x");
  expect_error([&] { check_bsr_xwt_args(8, 128, 96, X, 100, v, X + 7 * 100 + 95, 128); },
               "bsr_xwt: y overlaps x");
  expect_error([&] { check_bsr_xwt_args(8, 128, 96, X + 500, 96, v, X, 128); },
               "bsr_xwt: y overlaps x");
  expect_error([&] { check_bsr_xwt_args(8, 128, 96, X, 96, v, v.block_data + 10, 128); },
               "bsr_xwt: y overlaps w's block_data");
  // The kernels index in 32 bits: a span past 2^31 - 1 elements is rejected (nothing is read).
  expect_error([&] { check_bsr_xwt_args(3, 128, 96, X, int64_t{1} << 30, v, Y, 128); },
               "bsr_xwt: x spans 2147483744 elements");
  expect_error([&] { check_bsr_xwt_args(3, 128, 96, X, 96, v, Y, int64_t{1} << 31); },
               "bsr_xwt: y spans");
  // An invalid W shape (checked without reading W's arrays).
  BsrView bad = v;
  bad.rows = 120;  // not a multiple of 16
  expect_error([&] { check_bsr_xwt_args(8, 120, 96, X, 96, bad, Y, 120); },
               "rows = 120 is not divisible by block_rows = 16");
  bad = v;
  bad.index_pointer = nullptr;
  expect_error([&] { check_bsr_xwt_args(8, 128, 96, X, 96, bad, Y, 128); },
               "index_pointer is a null pointer");
  bad = v;
  bad.block_data = nullptr;
  expect_error([&] { check_bsr_xwt_args(8, 128, 96, X, 96, bad, Y, 128); },
               "block_data is a null pointer");
  bad = v;
  bad.nnzb = 8 * 6 + 1;  // more than the 8 x 6 blocks W has
  expect_error([&] { check_bsr_xwt_args(8, 128, 96, X, 96, bad, Y, 128); },
               "nnzb = 49 exceeds the number of blocks");
  // Nothing was written through the (const) pointers, of course; Y keeps its values.
  EXPECT_EQ(a.y, std::vector<float>(200 * 200, 2.0f));
}

TEST(BsrArgs, WxRejectsBadArguments) {
  Args a;
  const float* X = a.X;
  const float* Y = a.Y;
  const BsrView& v = a.v;
  expect_error([&] { check_bsr_wx_args(-1, 8, 96, v, X, 8, Y, 8); }, "bsr_wx: m = -1 is negative");
  expect_error([&] { check_bsr_wx_args(128, -1, 96, v, X, 8, Y, 8); }, "bsr_wx: n = -1 is negative");
  expect_error([&] { check_bsr_wx_args(128, 8, -1, v, X, 8, Y, 8); }, "bsr_wx: k = -1 is negative");
  expect_error([&] { check_bsr_wx_args(128, int64_t{1} << 32, 96, v, X, 8, Y, 8); },
               "bsr_wx: n = 4294967296 exceeds 2^31-1");
  // Sizes against W's shape (W is m x k).
  expect_error([&] { check_bsr_wx_args(112, 8, 96, v, X, 8, Y, 8); },
               "bsr_wx: m = 112 does not match w.rows = 128");
  expect_error([&] { check_bsr_wx_args(128, 8, 64, v, X, 8, Y, 8); },
               "bsr_wx: k = 64 does not match w.cols = 96");
  // Leading dimensions: X is k x n, Y is m x n.
  expect_error([&] { check_bsr_wx_args(128, 8, 96, v, X, 7, Y, 8); },
               "bsr_wx: ldx = 7 is too small: x is 96 x 8 row-major, so ldx must be >= 8");
  expect_error([&] { check_bsr_wx_args(128, 8, 96, v, X, 8, Y, 7); },
               "bsr_wx: ldy = 7 is too small: y is 128 x 8 row-major, so ldy must be >= 8");
  expect_error([&] { check_bsr_wx_args(128, 0, 96, v, X, 0, Y, 1); }, "bsr_wx: ldx = 0 is too small");
  // Null pointers.
  expect_error([&] { check_bsr_wx_args(128, 8, 96, v, nullptr, 8, Y, 8); }, "bsr_wx: x is a null pointer");
  expect_error([&] { check_bsr_wx_args(128, 8, 96, v, X, 8, nullptr, 8); }, "bsr_wx: y is a null pointer");
  // Overlap.
  expect_error([&] { check_bsr_wx_args(128, 8, 96, v, X, 8, X + 95 * 8, 8); }, "bsr_wx: y overlaps x");
  expect_error([&] { check_bsr_wx_args(128, 8, 96, v, X, 8, v.block_data, 8); },
               "bsr_wx: y overlaps w's block_data");
  expect_error([&] { check_bsr_wx_args(128, 8, 96, v, X, 8, v.block_data + v.nnzb * 256 - 1, 8); },
               "bsr_wx: y overlaps w's block_data");
  EXPECT_NO_THROW(check_bsr_wx_args(128, 8, 96, v, X, 8, v.block_data + v.nnzb * 256, 8));
  // 32-bit index range.
  expect_error([&] { check_bsr_wx_args(128, 8, 96, v, X, int64_t{1} << 25, Y, 8); }, "bsr_wx: x spans");
  expect_error([&] { check_bsr_wx_args(128, 8, 96, v, X, 8, Y, int64_t{1} << 25); }, "bsr_wx: y spans");
  // Invalid W shape.
  BsrView bad = v;
  bad.block_cols = 0;
  expect_error([&] { check_bsr_wx_args(128, 8, 96, bad, X, 8, Y, 8); }, "block_cols = 0 must be >= 1");
  bad = v;
  bad.nnzb = -1;
  expect_error([&] { check_bsr_wx_args(128, 8, 96, bad, X, 8, Y, 8); }, "nnzb = -1 is negative");
}

// ---- BsrKernel names ----------------------------------------------------------------------------

TEST(BsrKernelNames, ToStringAndParseRoundTrip) {
  EXPECT_EQ(tilegemm::kNumBsrKernels, 4);
  for (int i = 0; i <= tilegemm::kNumBsrKernels; ++i) {
    const BsrKernel k = static_cast<BsrKernel>(i);
    const std::string name = tilegemm::to_string(k);
    EXPECT_FALSE(name.empty());
    EXPECT_EQ(tilegemm::parse_bsr_kernel(name), k) << name;
    EXPECT_EQ(tilegemm::parse_bsr_kernel(std::to_string(i)), k) << i;
  }
  EXPECT_EQ(tilegemm::to_string(BsrKernel::Auto), "auto");
  // Case-insensitive, and the short names of the header's comment.
  EXPECT_EQ(tilegemm::parse_bsr_kernel("AUTO"), BsrKernel::Auto);
  EXPECT_EQ(tilegemm::parse_bsr_kernel("reduction"), BsrKernel::Reduction);
  EXPECT_EQ(tilegemm::parse_bsr_kernel("Small-M"), BsrKernel::SmallM);
  EXPECT_EQ(tilegemm::parse_bsr_kernel("tiled"), BsrKernel::Tiled);
  EXPECT_EQ(tilegemm::parse_bsr_kernel("Tiled-TF32x3"), BsrKernel::TiledTf32x3);
}

TEST(BsrKernelNames, UnknownNamesAreRejected) {
  for (const char* bad : {"", "5", "-1", "fast", "tiledx", "cusparse", "tf32x3"}) {
    SCOPED_TRACE(bad);
    expect_error([&] { tilegemm::parse_bsr_kernel(bad, "--bsr-kernel"); }, "--bsr-kernel");
    expect_error([&] { tilegemm::parse_bsr_kernel(bad); }, std::string("'") + bad + "'");
  }
}

}  // namespace
