// Argument validation without a GPU: every bad input throws tilegemm::Error naming the argument, before
// anything is launched, and the output is untouched. Host buffers stand in for device memory: the
// checks under test all run before any device query.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

struct Buffers {
  std::vector<float> a = std::vector<float>(64 * 64, 1.0f);
  std::vector<float> b = std::vector<float>(64 * 64, 1.0f);
  std::vector<float> c = std::vector<float>(64 * 64, 42.0f);
};

void expect_error(const std::function<void()>& call, const std::string& needle,
                  ErrorCode code = ErrorCode::InvalidArgument, const std::string& needle2 = "") {
  try {
    call();
    ADD_FAILURE() << "expected tilegemm::Error mentioning '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "message '" << e.what() << "' does not mention '" << needle << "'";
    EXPECT_NE(std::string(e.what()).find(needle2), std::string::npos)
        << "message '" << e.what() << "' does not mention '" << needle2 << "'";
  }
}
// Two parts of one InvalidArgument message.
void expect_error(const std::function<void()>& call, const std::string& needle, const std::string& needle2) {
  expect_error(call, needle, ErrorCode::InvalidArgument, needle2);
}

class Validation : public testing::Test {
 protected:
  Buffers buf;
  // A valid 8x8x8 row-major call whose arguments each test perturbs.
  void call(Layout layout, Op oa, Op ob, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
            const float* b, int64_t ldb, float* c, int64_t ldc, GemmOptions opt = {}) {
    sgemm(layout, oa, ob, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc, nullptr, opt);
  }
  void TearDown() override { EXPECT_EQ(buf.c, std::vector<float>(64 * 64, 42.0f)) << "C was written"; }
};

const Layout R = Layout::RowMajor, Cm = Layout::ColMajor;

TEST_F(Validation, NegativeSizes) {
  expect_error([&] { call(R, Op::N, Op::N, -1, 8, 8, buf.a.data(), 8, buf.b.data(), 8, buf.c.data(), 8); }, "m = -1 is negative");
  expect_error([&] { call(R, Op::N, Op::N, 8, -2, 8, buf.a.data(), 8, buf.b.data(), 8, buf.c.data(), 8); }, "n = -2 is negative");
  expect_error([&] { call(R, Op::N, Op::N, 8, 8, -3, buf.a.data(), 8, buf.b.data(), 8, buf.c.data(), 8); }, "k = -3 is negative");
}

TEST_F(Validation, NullPointers) {
  expect_error([&] { call(R, Op::N, Op::N, 8, 8, 8, nullptr, 8, buf.b.data(), 8, buf.c.data(), 8); }, "a is a null pointer");
  expect_error([&] { call(R, Op::N, Op::N, 8, 8, 8, buf.a.data(), 8, nullptr, 8, buf.c.data(), 8); }, "b is a null pointer");
  expect_error([&] { call(R, Op::N, Op::N, 8, 8, 8, buf.a.data(), 8, buf.b.data(), 8, nullptr, 8); }, "c is a null pointer");
}

// Reference BLAS: alpha == 0 or k == 0 reads neither A nor B, so they may be null (C may not).
TEST_F(Validation, AlphaZeroOrKZeroAcceptsNullAAndB) {
  EXPECT_NO_THROW(check_gemm_args(R, Op::N, Op::N, 8, 8, 8, 0.0f, nullptr, 8, nullptr, 8, buf.c.data(), 8));
  EXPECT_NO_THROW(check_gemm_args(Cm, Op::T, Op::N, 8, 8, 0, 1.0f, nullptr, 1, nullptr, 1, buf.c.data(), 8));
  expect_error([&] { check_gemm_args(R, Op::N, Op::N, 8, 8, 8, 0.0f, nullptr, 8, nullptr, 8, nullptr, 8); },
               "c is a null pointer");
  // The leading dimensions are still checked, as the reference SGEMM does.
  expect_error([&] { check_gemm_args(R, Op::N, Op::N, 8, 8, 8, 0.0f, nullptr, 7, nullptr, 8, buf.c.data(), 8); },
               "lda = 7 is too small");
  // Not read, so sharing memory with C is harmless.
  EXPECT_NO_THROW(check_gemm_args(R, Op::N, Op::N, 8, 8, 8, 0.0f, buf.c.data(), 8, buf.b.data(), 8, buf.c.data(), 8));
}

TEST_F(Validation, LeadingDimensionsTooSmall) {
  // Row-major NN: A is 8x5 (lda >= 5), B is 5x6 (ldb >= 6), C is 8x6 (ldc >= 6).
  expect_error([&] { call(R, Op::N, Op::N, 8, 6, 5, buf.a.data(), 4, buf.b.data(), 6, buf.c.data(), 6); }, "lda = 4 is too small");
  expect_error([&] { call(R, Op::N, Op::N, 8, 6, 5, buf.a.data(), 5, buf.b.data(), 5, buf.c.data(), 6); }, "ldb = 5 is too small");
  expect_error([&] { call(R, Op::N, Op::N, 8, 6, 5, buf.a.data(), 5, buf.b.data(), 6, buf.c.data(), 5); }, "ldc = 5 is too small");
  // Transposed A is stored k x m = 5x8 row-major: lda >= 8.
  expect_error([&] { call(R, Op::T, Op::N, 8, 6, 5, buf.a.data(), 7, buf.b.data(), 6, buf.c.data(), 6); }, "must be >= 8");
  // Column-major: C is 8x6 with ldc >= 8 (rows).
  expect_error([&] { call(Cm, Op::N, Op::N, 8, 6, 5, buf.a.data(), 8, buf.b.data(), 5, buf.c.data(), 6); }, "ldc = 6 is too small");
  // ld >= 1 even for empty inner dimensions.
  expect_error([&] { call(R, Op::N, Op::N, 8, 6, 0, buf.a.data(), 0, buf.b.data(), 6, buf.c.data(), 6); }, "lda = 0 is too small");
}

TEST_F(Validation, OutputOverlappingInputs) {
  expect_error([&] { call(R, Op::N, Op::N, 8, 8, 8, buf.c.data(), 8, buf.b.data(), 8, buf.c.data() + 63, 8); }, "c overlaps a");
  expect_error([&] { call(R, Op::N, Op::N, 8, 8, 8, buf.a.data(), 8, buf.c.data() + 7, 8, buf.c.data(), 8); }, "c overlaps b");
}

TEST_F(Validation, SizesBeyond32BitIndexing) {
  expect_error([&] { call(R, Op::N, Op::N, int64_t(INT_MAX) + 1, 1, 1, buf.a.data(), 1, buf.b.data(), 1, buf.c.data(), 1); }, "m = 2147483648 exceeds");
  // A 65536 x 65536 C spans 2^32 elements (16 GiB): addressable with 64-bit offsets, so accepted.
  // (Addresses only: check_gemm_args dereferences nothing; these are far enough apart not to overlap.)
  const auto far = [](int i) { return reinterpret_cast<float*>(uintptr_t(1) << (40 + i)); };
  EXPECT_NO_THROW(check_gemm_args(R, Op::N, Op::N, 65536, 65536, 1, 1.0f, far(0), 1, far(1), 65536, far(2), 65536));
  // Leading dimensions stay 32-bit (the kernels' parameter), unless a single row makes them unused.
  expect_error([&] { call(R, Op::N, Op::N, 3, 1, 1, buf.a.data(), int64_t(1) << 40, buf.b.data(), 1, buf.c.data(), 1); },
               "lda = 1099511627776 exceeds 2^31-1");
  EXPECT_NO_THROW(check_gemm_args(R, Op::N, Op::N, 1, 1, 1, 1.0f, buf.a.data(), int64_t(1) << 40, buf.b.data(), 1,
                                  buf.c.data(), 1));
  // Beyond 2^61 elements the byte offsets would overflow 64 bits.
  expect_error([&] { call(R, Op::N, Op::N, INT_MAX, INT_MAX, 1, buf.a.data(), 1, buf.b.data(), INT_MAX, buf.c.data(), INT_MAX); },
               "c spans", "more than a 64-bit address space holds");
}

TEST_F(Validation, BadEnumsAndKernelChoice) {
  GemmOptions opt;
  opt.kernel = static_cast<Kernel>(9);
  expect_error([&] { call(R, Op::N, Op::N, 8, 8, 8, buf.a.data(), 8, buf.b.data(), 8, buf.c.data(), 8, opt); }, "options.kernel = 9");
  opt = {};
  opt.raster = static_cast<Raster>(5);
  expect_error([&] { call(R, Op::N, Op::N, 8, 8, 8, buf.a.data(), 8, buf.b.data(), 8, buf.c.data(), 8, opt); }, "options.raster = 5");
  opt = {};
  opt.math = static_cast<Math>(4);
  expect_error([&] { call(R, Op::N, Op::N, 8, 8, 8, buf.a.data(), 8, buf.b.data(), 8, buf.c.data(), 8, opt); },
               "options.math = 4 is not a Math value");
  expect_error([&] { call(static_cast<Layout>(3), Op::N, Op::N, 8, 8, 8, buf.a.data(), 8, buf.b.data(), 8, buf.c.data(), 8); }, "layout = 3");
  expect_error([&] { call(R, static_cast<Op>(2), Op::N, 8, 8, 8, buf.a.data(), 8, buf.b.data(), 8, buf.c.data(), 8); }, "op_a = 2");
}

TEST_F(Validation, ConfigsAreCheckedBeforeAnyDeviceWork) {
  GemmOptions opt;
  opt.config = "tiled:64x64";
  expect_error([&] { call(R, Op::N, Op::N, 8, 8, 8, buf.a.data(), 8, buf.b.data(), 8, buf.c.data(), 8, opt); },
               "options.config: 'tiled:64x64' is not a GEMM config");
  opt.config = "gemv-cols:s1:l16:k2";
  opt.kernel = Kernel::WarpTiled;
  expect_error([&] { call(R, Op::N, Op::N, 8, 8, 8, buf.a.data(), 8, buf.b.data(), 8, buf.c.data(), 8, opt); },
               "options.config = 'gemv-cols:s1:l16:k2' needs options.kernel = auto");
  opt.kernel = Kernel::Auto;
  // 64 x 64 has no dimension <= 16: no GEMV.
  expect_error([&] { call(R, Op::N, Op::N, 64, 64, 64, buf.a.data(), 64, buf.b.data(), 64, buf.c.data(), 64, opt); },
               "options.config = 'gemv-cols:s1:l16:k2' cannot run this product", "M or N <= 16");
  // M = 1 row-major NN: B is contiguous along n, the columns kernel's orientation, not the rows kernel's.
  opt.config = "gemv-rows:s1";
  expect_error([&] { call(R, Op::N, Op::N, 1, 64, 64, buf.a.data(), 64, buf.b.data(), 64, buf.c.data(), 64, opt); },
               "use gemv-cols");
  opt.config = "tiled:96x96x16:w32x32:t8x4:s3:b6";
  expect_error([&] { call(R, Op::N, Op::N, 8, 8, 8, buf.a.data(), 8, buf.b.data(), 8, buf.c.data(), 8, opt); },
               "the tile schedule cannot be compiled", "multiples of the 288 threads");
  // Edge columns need a ragged last tile column of 1..16 columns (64 = one whole 64-wide column).
  opt.config = "tiled:64x64x16:w32x32:t8x4:s3:b6:k1:hilbert:edge";
  expect_error([&] { call(R, Op::N, Op::N, 64, 64, 64, buf.a.data(), 64, buf.b.data(), 64, buf.c.data(), 64, opt); },
               "options.config = 'tiled:64x64x16:w32x32:t8x4:s3:b6:k1:hilbert:edge' cannot run this product",
               "edge needs a ragged last tile column");
  opt.config = "tiled:64x64x16:w32x32:t8x4:s3:b6:k1:hilbert:pack-c";
  expect_error([&] { call(R, Op::N, Op::N, 64, 64, 64, buf.a.data(), 64, buf.b.data(), 64, buf.c.data(), 64, opt); },
               "pack field 'pack-c' is not pack-a, pack-b or pack-ab");
  // Packed copies of both 8192^2 operands (512 MB) are more than packing may take. (Addresses only, far
  // apart: nothing is dereferenced before the refusal.)
  const auto far = [](int i) { return reinterpret_cast<float*>(uintptr_t(1) << (40 + i)); };
  opt.config = "tiled:128x256x32:w64x64:t16x8:s4:b1:k1:hilbert:pack-ab";
  expect_error([&] { call(R, Op::N, Op::N, 8192, 8192, 8192, far(0), 8192, far(1), 8192, far(2), 8192, opt); },
               "cannot run this product", "the packed operands take 512 MB, more than packing may take (256 MB)");
  // Tensor-core (level 7) schedules: malformed fields, a warp tile that is not whole MMA tiles.
  opt.config = "tiled:128x256x32:w64x64:tf32x3c0:s3:b1";
  expect_error([&] { call(R, Op::N, Op::N, 8, 8, 8, buf.a.data(), 8, buf.b.data(), 8, buf.c.data(), 8, opt); },
               "thread field 'tf32x3c0' is not tf32x3cN");
  opt.config = "tiled:96x128x32:w24x32:tf32x3:s3:b1";
  expect_error([&] { call(R, Op::N, Op::N, 8, 8, 8, buf.a.data(), 8, buf.b.data(), 8, buf.c.data(), 8, opt); },
               "the tile schedule cannot be compiled", "whole 16 x 8 MMA tiles");
}

// Level 7 runs its schedule with unaligned operands packed first: beyond the tiled kernels' 32-bit
// copies, or beyond what packing may take, it refuses before any device work.
TEST_F(Validation, LevelSevenRefusesWhatItsConfigCannotRun) {
  const auto far = [](int i) { return reinterpret_cast<float*>(uintptr_t(1) << (40 + i)); };
  GemmOptions opt;
  opt.kernel = Kernel::MmaTf32x3;
  // A is 65536 x 65536: 2^32 elements.
  expect_error([&] { call(R, Op::N, Op::N, 65536, 8, 65536, far(0), 65536, far(1), 8, far(2), 8, opt); },
               "options.kernel = 07-mma-tf32x3 cannot run this product", "the tiled kernels' limit");
  // Both 8192^2 operands unaligned (pointers one float off): 512 MB of packed copies.
  expect_error([&] { call(R, Op::N, Op::N, 8192, 8192, 8192, far(0) + 1, 8192, far(1) + 1, 8192, far(2), 8192, opt); },
               "options.kernel = 07-mma-tf32x3 cannot run this product", "more than packing may take");
}

// Level 6 forms the offsets of its copies in 32 bits: it refuses an A or B of more than 2^31 - 1
// elements (before any device work); Auto takes them (level 5 or the GEMV kernels), and C may be
// larger for every kernel.
TEST_F(Validation, LevelSixRefusesOperandsBeyondItsCopies) {
  const auto far = [](int i) { return reinterpret_cast<float*>(uintptr_t(1) << (40 + i)); };
  GemmOptions opt;
  opt.kernel = Kernel::WarpTiled;
  // A is 65536 x 65536: 2^32 elements.
  expect_error([&] { call(R, Op::N, Op::N, 65536, 8, 65536, far(0), 65536, far(1), 8, far(2), 8, opt); },
               "options.kernel = 06-warp-tiled cannot run this product: A and B may span at most 2147483647 elements",
               "use Kernel::Auto");
}

TEST_F(Validation, EmptyOutputIsANoOpWithoutDevice) {
  // m == 0 or n == 0: valid, returns before any device query, writes nothing.
  EXPECT_NO_THROW(call(R, Op::N, Op::N, 0, 8, 8, buf.a.data(), 8, buf.b.data(), 8, buf.c.data(), 8));
  EXPECT_NO_THROW(call(R, Op::N, Op::N, 8, 0, 8, buf.a.data(), 8, buf.b.data(), 8, buf.c.data(), 1));
}

TEST(ValidationNoDevice, ValidCallWithoutDeviceSaysNoDevice) {
  if (device_count() > 0) GTEST_SKIP() << "a device is present";
  std::vector<float> a(64, 1.0f), b(64, 1.0f), c(64, 42.0f);
  expect_error([&] { sgemm(R, Op::N, Op::N, 8, 8, 8, 1.0f, a.data(), 8, b.data(), 8, 0.0f, c.data(), 8); },
               "no CUDA device", ErrorCode::NoDevice);
  EXPECT_EQ(c, std::vector<float>(64, 42.0f));
}

TEST(Parsing, NamesRoundTripAndUnknownValuesNameTheArgument) {
  for (int level = 0; level <= kNumLadderLevels; ++level) {
    const Kernel k = static_cast<Kernel>(level);
    EXPECT_EQ(parse_kernel(to_string(k)), k);
    EXPECT_EQ(parse_kernel(std::to_string(level)), k);
  }
  EXPECT_EQ(parse_kernel("warp-tiled"), Kernel::WarpTiled);
  EXPECT_EQ(parse_layout("COL"), Layout::ColMajor);
  EXPECT_EQ(parse_op("t"), Op::T);
  EXPECT_EQ(parse_raster("Hilbert"), Raster::Hilbert);
  expect_error([] { parse_kernel("8", "--kernels"); }, "--kernels: unknown value '8'");
  expect_error([] { parse_layout("diag", "--layout"); }, "--layout: unknown value 'diag'");
  for (BiasKind b : {BiasKind::None, BiasKind::PerRow, BiasKind::PerColumn}) EXPECT_EQ(parse_bias_kind(to_string(b)), b);
  for (Activation a : {Activation::None, Activation::Relu, Activation::GeluTanh, Activation::GeluErf, Activation::Silu})
    EXPECT_EQ(parse_activation(to_string(a)), a);
  EXPECT_EQ(parse_activation("GELU-Tanh"), Activation::GeluTanh);
  EXPECT_EQ(parse_bias_kind("Column"), BiasKind::PerColumn);
  expect_error([] { parse_activation("gelu"); },
               "activation: unknown value 'gelu' (expected none, relu, gelu-tanh, gelu-erf or silu)");
  expect_error([] { parse_bias_kind("col", "bias"); }, "bias: unknown value 'col' (expected none, row or column)");
}

}  // namespace
}  // namespace tilegemm
