// FP32 means FP32 (DESIGN.md, Numerics): every path Auto can pick for FP32 data gives the IEEE
// classes of results FP32 arithmetic gives (+-Inf, NaN) and, over the whole exponent range of inputs
// whose products and sums are in range, an error against an FP64 reference no worse than FFMA's.
//   - SpecialValues: Inf, NaN, products that overflow, FLT_MAX-sized and subnormal operands planted
//     in random data; the class of every element against a sequential FP32 FMA reference, the finite
//     ones against the FP64 reference with the FP32 bound. Every ladder level, Auto (both maths), each
//     compiled 3xTF32 schedule whole and split-K, level 8's 3xTF32 (wgmma-3xtf32) whole, in clusters and
//     split-K both ways, the GEMV kernels, BSR kernel 04.
//   - Wgmma3xTf32: level 8's 3xTF32 over both layouts, four op combinations, odd and standard shapes,
//     offset (packed) operands and padded leading dimensions, beta reading C, against FP64.
//   - Tf32Math: level 8's TF32 (math = tf32, named by the caller) over the same layouts, shapes and
//     alignments, scaled operands and the special values' classes, held to TF32's bound (2^-9 of each
//     product more).
//   - ScaledAccuracy: A scaled by 2^sa, B by 2^sb (sa + sb in range), K from 64 to 65536: componentwise
//     (|C - ref| / sum |a||b|) and normwise errors of Auto, level 7 and the 3xTF32 schedules held to
//     twice FFMA's; the table (with cuBLAS SGEMM's column) is printed for docs/api.md.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/device_buffer.hpp"
#include "ref/reference.hpp"
#include "tilegemm/bsr_gpu.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

// A row-major m x k matrix A and k x n matrix B (op N, tight), and what the product must be.
struct Operands {
  int64_t m, n, k;
  std::vector<float> a, b;
};

Operands random_operands(int64_t m, int64_t n, int64_t k, unsigned seed, float scale_a = 1.0f,
                         float scale_b = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Operands o{m, n, k, std::vector<float>(static_cast<size_t>(m * k)), std::vector<float>(static_cast<size_t>(k * n))};
  for (float& v : o.a) v = dist(rng) * scale_a;  // power-of-two scales: exact
  for (float& v : o.b) v = dist(rng) * scale_b;
  return o;
}

// op(A), op(B) for one stored form: TransA stores A as k x m (A^T row-major), etc.
struct Stored {
  Layout layout;
  Op op_a, op_b;
  std::vector<float> a, b;
  int64_t lda, ldb, ldc;
};

// The same product stored in `layout` with the given ops (C is m x n in that layout).
Stored store(const Operands& o, Layout layout, Op op_a, Op op_b) {
  const bool row = layout == Layout::RowMajor;
  Stored s{layout, op_a, op_b, std::vector<float>(o.a.size()), std::vector<float>(o.b.size()), 0, 0, 0};
  // Element (i, j) of a stored r x c matrix X (op N) or of X^T stored c x r (op T).
  auto put = [&](std::vector<float>& dst, int64_t& ld, const std::vector<float>& src, int64_t r, int64_t c, Op op) {
    const int64_t sr = op == Op::N ? r : c, sc = op == Op::N ? c : r;  // stored rows, cols
    ld = row ? sc : sr;
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < c; ++j) {
        const int64_t si = op == Op::N ? i : j, sj = op == Op::N ? j : i;
        dst[static_cast<size_t>(row ? si * ld + sj : sj * ld + si)] = src[static_cast<size_t>(i * c + j)];
      }
  };
  put(s.a, s.lda, o.a, o.m, o.k, op_a);
  put(s.b, s.ldb, o.b, o.k, o.n, op_b);
  s.ldc = row ? o.n : o.m;
  return s;
}

float c_at(const std::vector<float>& c, const Stored& s, int64_t i, int64_t j) {
  return c[static_cast<size_t>(s.layout == Layout::RowMajor ? i * s.ldc + j : j * s.ldc + i)];
}

// FP64 sums of a * b and |a| * |b| (row-major m x n), and the classes a sequential FP32 FMA gives.
struct Reference {
  std::vector<double> sum, abs_sum;
  std::vector<float> ffma;  // sequential fmaf over k: the classes FP32 arithmetic gives
};
Reference reference(const Operands& o) {
  Reference r{std::vector<double>(static_cast<size_t>(o.m * o.n)), std::vector<double>(static_cast<size_t>(o.m * o.n)),
              std::vector<float>(static_cast<size_t>(o.m * o.n))};
  for (int64_t i = 0; i < o.m; ++i)
    for (int64_t j = 0; j < o.n; ++j) {
      double s = 0.0, sa = 0.0;
      float f = 0.0f;
      for (int64_t p = 0; p < o.k; ++p) {
        const float x = o.a[static_cast<size_t>(i * o.k + p)], y = o.b[static_cast<size_t>(p * o.n + j)];
        s += static_cast<double>(x) * y;
        sa += std::fabs(static_cast<double>(x) * y);
        f = std::fmaf(x, y, f);
      }
      r.sum[static_cast<size_t>(i * o.n + j)] = s;
      r.abs_sum[static_cast<size_t>(i * o.n + j)] = sa;
      r.ffma[static_cast<size_t>(i * o.n + j)] = f;
    }
  return r;
}

const char* float_class(float v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return "finite";
}

// Runs one product on the GPU (C poisoned with NaN, beta = 0) and returns C as stored.
std::vector<float> run_gpu(const Stored& s, const Operands& o, const GemmOptions& opt) {
  DeviceBuffer<float> da(s.a.size()), db(s.b.size()), dc(static_cast<size_t>(o.m * o.n));
  cudaMemcpy(da.get(), s.a.data(), s.a.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(db.get(), s.b.data(), s.b.size() * 4, cudaMemcpyHostToDevice);
  std::vector<float> c(static_cast<size_t>(o.m * o.n), std::numeric_limits<float>::quiet_NaN());
  cudaMemcpy(dc.get(), c.data(), c.size() * 4, cudaMemcpyHostToDevice);
  sgemm(s.layout, s.op_a, s.op_b, o.m, o.n, o.k, 1.0f, da.get(), s.lda, db.get(), s.ldb, 0.0f, dc.get(), s.ldc,
        nullptr, opt);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaMemcpy(c.data(), dc.get(), c.size() * 4, cudaMemcpyDeviceToHost);
  return c;
}

struct NamedRun {
  std::string name;
  GemmOptions opt;
};
GemmOptions level(int l) {
  GemmOptions g;
  g.kernel = static_cast<Kernel>(l);
  return g;
}
GemmOptions config(const std::string& text) {
  GemmOptions g;
  g.config = text;
  return g;
}
GemmOptions ffma_auto() {
  GemmOptions g;
  g.math = Math::FfmaOnly;
  return g;
}

// The compiled 3xTF32 schedules (dense/config.hpp), whole and in K slices.
const char* const kTf32x3Configs[] = {
    "tiled:128x256x32:w64x64:tf32x3:s3:b1:k1:hilbert",    "tiled:128x128x32:w64x32:tf32x3c4:s3:b1:k1:hilbert",
    "tiled:64x64x32:w32x32:tf32x3:s4:b2:k1:hilbert",      "tiled:64x128x32:w32x64:tf32x3c4:s3:b2:k1:hilbert",
    "tiled:64x64x32:w32x32:tf32x3:s4:b2:k3:hilbert",      "tiled:128x128x32:w64x32:tf32x3c4:s3:b1:k2:hilbert",
    "tiled:64x128x32:w32x64:tf32x3c4:s3:b2:tail3:hilbert",
};

// Level 8's 3xTF32 (family wgmma-3xtf32, Hopper only): the compiled schedules, split-K through
// workspace and in a cluster, and a run-time schedule.
const char* const kWgmmaTf32x3Configs[] = {
    "wgmma-3xtf32:128x128x32:s4",     "wgmma-3xtf32:128x128x32:s4:c2",     "wgmma-3xtf32:128x128x32:s4:k4",
    "wgmma-3xtf32:128x128x32:s4:kc2", "wgmma-3xtf32:128x128x32:s3:kc4:jit",
};
bool hopper() {
  int dev = 0, major = 0, minor = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  return major == 9 && minor == 0;
}

std::vector<NamedRun> dense_runs() {
  std::vector<NamedRun> runs = {{"auto", GemmOptions{}}, {"auto-ffma", ffma_auto()}};
  for (int l = 1; l <= kNumLadderLevels; ++l) runs.push_back({"level" + std::to_string(l), level(l)});
  for (const char* c : kTf32x3Configs) runs.push_back({c, config(c)});
  if (hopper())
    for (const char* c : kWgmmaTf32x3Configs) runs.push_back({c, config(c)});
  runs.push_back({"tiled:64x64x16:w32x32:t8x4:s3:b6:k3:hilbert", config("tiled:64x64x16:w32x32:t8x4:s3:b6:k3:hilbert")});
  return runs;
}

// Plants special values into A (m x k) and B (k x n), row-major op N; subnormal operands unless
// `subnormals` is false.
void plant_specials(Operands& o, bool subnormals = true) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  auto A = [&](int64_t i, int64_t p) -> float& { return o.a[static_cast<size_t>(i * o.k + p)]; };
  auto B = [&](int64_t p, int64_t j) -> float& { return o.b[static_cast<size_t>(p * o.n + j)]; };
  A(3, 5) = inf;                                // row 3: +-Inf (NaN where column 20's -Inf meets it)
  A(0, 0) = -inf;                               // the case, at the first element
  A(10, 7) = nan;                               // row 10: NaN
  B(9, 20) = -inf;                              // column 20: +-Inf
  B(11, o.n - 1) = nan;                         // the last column: NaN (a partial tile)
  A(30, 12) = 0x1p100f, B(12, 40) = 0x1p100f;  // C(30, 40): the product overflows: +-Inf
  A(50, 13) = 0.5f * std::numeric_limits<float>::max();  // row 50: FLT_MAX-sized, finite sums
  A(60, 14) = std::numeric_limits<float>::max();         // row 60: FLT_MAX itself (TF32 rounds it up to Inf)
  if (!subnormals) return;
  A(70, 15) = 1e-40f, A(70, 16) = -3e-42f;      // row 70: subnormal operands
  B(17, 80) = 1e-39f;                           // column 80: a subnormal in B
  for (int64_t p = 0; p < o.k; ++p) A(o.m - 1, p) = 0x1p-130f * (p % 7 - 3);  // last row: all subnormal
}

// Checks every element: class as the FFMA reference, finite values within the FP32 bound (plus
// `per_product` of sum |a||b|: TF32's cut).
void expect_fp32(const std::vector<float>& c, const Stored& s, const Operands& o, const Reference& r,
                 const std::string& what, double per_product = 0.0) {
  int bad = 0;
  const double bound = ref::fp32_gemm_error_bound(o.k) + per_product;
  for (int64_t i = 0; i < o.m && bad < 8; ++i)
    for (int64_t j = 0; j < o.n && bad < 8; ++j) {
      const float got = c_at(c, s, i, j), want = r.ffma[static_cast<size_t>(i * o.n + j)];
      const std::string gc = float_class(got), wc = float_class(want);
      if (gc != wc) {
        ADD_FAILURE() << what << ": C(" << i << ", " << j << ") is " << got << " (" << gc << "), FP32 arithmetic gives "
                      << want << " (" << wc << ")";
        ++bad;
        continue;
      }
      if (wc != "finite") continue;
      const double ref = r.sum[static_cast<size_t>(i * o.n + j)], scale = r.abs_sum[static_cast<size_t>(i * o.n + j)];
      // The bound in units of sum |a||b|, plus FP32's smallest subnormal for the all-subnormal row.
      if (std::fabs(got - ref) > bound * scale + 0x1p-149) {
        ADD_FAILURE() << what << ": C(" << i << ", " << j << ") = " << got << ", FP64 reference " << ref
                      << " (error " << std::fabs(got - ref) / scale << " of sum |a||b|, bound " << bound << ")";
        ++bad;
      }
    }
}

struct SpecialCase {
  int64_t m, n, k;
  Layout layout;
  Op op_a, op_b;
};

class SpecialValues : public ::testing::TestWithParam<SpecialCase> {};

TEST_P(SpecialValues, ClassesAndValuesAsFp32) {
  const SpecialCase& tc = GetParam();
  Operands o = random_operands(tc.m, tc.n, tc.k, 17 + static_cast<unsigned>(tc.m));
  plant_specials(o);
  const Reference r = reference(o);
  const Stored s = store(o, tc.layout, tc.op_a, tc.op_b);
  for (const NamedRun& run : dense_runs()) {
    std::vector<float> c;
    try {
      c = run_gpu(s, o, run.opt);
    } catch (const Error& e) {  // a config that cannot run this product (e.g. GEMV-only shapes)
      EXPECT_NE(run.name.find("tiled:"), std::string::npos) << run.name << ": " << e.what();
      continue;
    }
    expect_fp32(c, s, o, r, run.name);
  }
}

std::string special_name(const testing::TestParamInfo<SpecialCase>& info) {
  const SpecialCase& c = info.param;
  return std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) + "_" + to_string(c.layout) + "_" +
         to_string(c.op_a) + to_string(c.op_b);
}

INSTANTIATE_TEST_SUITE_P(Fp32Contract, SpecialValues,
                         ::testing::Values(SpecialCase{200, 190, 300, Layout::RowMajor, Op::N, Op::N},
                                           SpecialCase{200, 190, 300, Layout::RowMajor, Op::T, Op::T},
                                           SpecialCase{200, 190, 300, Layout::ColMajor, Op::N, Op::T},
                                           SpecialCase{72, 130, 1000, Layout::RowMajor, Op::N, Op::T},
                                           SpecialCase{130, 90, 4096, Layout::RowMajor, Op::N, Op::N}),
                         special_name);

// Skinny products (Auto runs the GEMV kernels): one dimension <= 16.
TEST(Fp32Contract, SpecialValuesGemv) {
  for (const SpecialCase tc : {SpecialCase{72, 16, 512, Layout::RowMajor, Op::N, Op::N},
                               SpecialCase{16, 90, 512, Layout::RowMajor, Op::N, Op::T}}) {
    Operands o = random_operands(tc.m, tc.n, tc.k, 5);
    // The column and row specials of plant_specials that fit a 16-wide side.
    const float inf = std::numeric_limits<float>::infinity();
    o.a[3 * tc.k + 5] = inf;
    o.a[10 * tc.k + 7] = std::numeric_limits<float>::quiet_NaN();
    o.b[9 * tc.n + 2] = -inf;
    o.a[12 * tc.k + 12] = 0x1p100f, o.b[12 * tc.n + 4] = 0x1p100f;
    const Reference r = reference(o);
    const Stored s = store(o, tc.layout, tc.op_a, tc.op_b);
    for (const GemmOptions& opt : {GemmOptions{}, ffma_auto()})
      expect_fp32(run_gpu(s, o, opt), s, o, r,
                  "auto " + special_name(testing::TestParamInfo<SpecialCase>(tc, 0)));
  }
}

// BSR kernel 04 (3xTF32) and Auto's BSR pick, both products, with Inf / NaN / overflow /
// subnormals in W's stored blocks and large values in X (absent blocks are structural zeros: no
// product with them is formed, so specials go where the products exist).
TEST(Fp32Contract, SpecialValuesBsr) {
  const int64_t rows_w = 128, k = 256, batch = 96;
  for (const int block : {16, 32, 64}) {
    BsrMatrix w = generate_bsr(rows_w, k, block, block, 0.5, RowDistribution::Uniform, 11 + block);
    std::vector<float> wd(static_cast<size_t>(rows_w * k));
    bsr_to_dense(w, wd.data(), k);
    const int64_t col0 = w.block_indices[0] * block;  // block row 0's first stored block
    auto W = [&](int64_t i, int64_t p) -> float& { return wd[static_cast<size_t>(i * k + p)]; };
    W(0, col0) = std::numeric_limits<float>::infinity();
    W(3, col0 + 3) = std::numeric_limits<float>::quiet_NaN();
    W(1, col0 + 1) = 0x1p100f;
    W(2, col0 + 2) = 1e-40f;
    std::vector<uint8_t> mask(static_cast<size_t>((rows_w / block) * (k / block)), 0);
    for (int64_t br = 0; br < rows_w / block; ++br)
      for (int64_t e = w.index_pointer[br]; e < w.index_pointer[br + 1]; ++e)
        mask[static_cast<size_t>(br * (k / block) + w.block_indices[e])] = 1;
    w = dense_to_bsr_masked(wd.data(), rows_w, k, k, block, block, mask);
    const DeviceBsrMatrix dw(w);
    for (const bool xwt : {true, false}) {
      // xwt: Y (batch x rows_w) = X (batch x k) W^T; wx: Y (rows_w x batch) = W X (k x batch).
      const int64_t m = xwt ? batch : rows_w, n = xwt ? rows_w : batch;
      Operands o = random_operands(m, n, k, 3 + block);
      std::vector<float> x = xwt ? o.a : o.b;
      if (xwt) x[static_cast<size_t>(7 * k + col0 + 1)] = 0x1p100f;  // X row 7 x W row 1: overflow
      else x[static_cast<size_t>((col0 + 1) * n + 7)] = 0x1p100f;    // X column 7 x W row 1
      if (xwt) {
        o.a = x;
        for (int64_t p = 0; p < k; ++p)
          for (int64_t j = 0; j < n; ++j) o.b[static_cast<size_t>(p * n + j)] = W(j, p);
      } else {
        o.a = wd, o.b = x;
      }
      const Reference r = reference(o);
      const Stored s{Layout::RowMajor, Op::N, Op::N, {}, {}, k, n, n};
      DeviceBuffer<float> dx(x.size()), dy(static_cast<size_t>(m * n));
      cudaMemcpy(dx.get(), x.data(), x.size() * 4, cudaMemcpyHostToDevice);
      for (const BsrKernel kern : {BsrKernel::Auto, BsrKernel::Reduction, BsrKernel::SmallM, BsrKernel::Tiled,
                                   BsrKernel::TiledTf32x3}) {
        std::vector<float> y(static_cast<size_t>(m * n), std::numeric_limits<float>::quiet_NaN());
        cudaMemcpy(dy.get(), y.data(), y.size() * 4, cudaMemcpyHostToDevice);
        BsrOptions opt;
        opt.kernel = kern;
        try {
          if (xwt) bsr_xwt(m, n, k, 1.0f, dx.get(), k, dw, 0.0f, dy.get(), n, nullptr, opt);
          else bsr_wx(m, n, k, 1.0f, dw, dx.get(), n, 0.0f, dy.get(), n, nullptr, opt);
        } catch (const Error& e) {  // a kernel that does not take this product (the small-M kernel)
          EXPECT_NE(kern, BsrKernel::Auto) << e.what();
          continue;
        }
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        cudaMemcpy(y.data(), dy.get(), y.size() * 4, cudaMemcpyDeviceToHost);
        expect_fp32(y, s, o, r, std::string(xwt ? "bsr_xwt " : "bsr_wx ") + to_string(kern) + " block " +
                                    std::to_string(block));
      }
    }
  }
}

// ---- accuracy over the exponent range -------------------------------------------------------------

struct Errors {
  double componentwise = 0, normwise = 0;  // max |C - ref| / sum |a||b|; ||C - ref||_F / ||ref||_F
};
Errors errors(const std::vector<float>& c, const Reference& r) {
  Errors e;
  double num = 0, den = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    const double d = static_cast<double>(c[i]) - r.sum[i];
    if (r.abs_sum[i] > 0) e.componentwise = std::max(e.componentwise, std::fabs(d) / r.abs_sum[i]);
    if (!std::isfinite(c[i])) e.componentwise = std::numeric_limits<double>::infinity();
    num += d * d, den += r.sum[i] * r.sum[i];
  }
  e.normwise = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return e;
}

// cuBLAS SGEMM's result for the row-major product (C^T = B^T A^T in cuBLAS's column-major).
std::vector<float> cublas_result(const Operands& o) {
  DeviceBuffer<float> da(o.a.size()), db(o.b.size()), dc(static_cast<size_t>(o.m * o.n));
  cudaMemcpy(da.get(), o.a.data(), o.a.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(db.get(), o.b.data(), o.b.size() * 4, cudaMemcpyHostToDevice);
  cublasHandle_t h;
  EXPECT_EQ(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
  const float one = 1.0f, zero = 0.0f;
  EXPECT_EQ(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(o.n), static_cast<int>(o.m),
                        static_cast<int>(o.k), &one, db.get(), static_cast<int>(o.n), da.get(),
                        static_cast<int>(o.k), &zero, dc.get(), static_cast<int>(o.n)),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cublasDestroy(h);
  std::vector<float> c(static_cast<size_t>(o.m * o.n));
  cudaMemcpy(c.data(), dc.get(), c.size() * 4, cudaMemcpyDeviceToHost);
  return c;
}

struct Scale {
  int a, b;  // log2 of the scales of A and B
};

TEST(Fp32Contract, ScaledAccuracy) {
  const Scale scales[] = {{0, 0},      {-118, 100}, {100, -118}, {126, -126}, {-126, 126}, {-120, 120},
                          {120, -120}, {-60, -60},  {-50, -70},  {60, 50},    {-100, 0},   {-112, 10}};
  const int64_t ks[] = {64, 4096, 65536};
  std::printf("# componentwise error (max |C - ref| / sum |a||b|) / normwise (||C - ref||_F / ||ref||_F), 128 x 96 x K (64 x 48 x 65536)\n");
  std::printf("%-12s %6s  %-19s %-19s %-19s %-19s %-19s %-19s %-19s %-19s\n", "scales", "K", "auto-ffma", "auto",
              "level6", "level7", "ffma 64x64 k3", "tf32x3 64x64 k3", "wgmma-3xtf32", "cublas");
  const bool sm90 = hopper();
  const char* const kFfmaK3 = "tiled:64x64x16:w32x32:t8x4:s3:b6:k3:hilbert";
  const char* const kTf32x3K3 = "tiled:64x64x32:w32x32:tf32x3:s4:b2:k3:hilbert";
  for (const int64_t k : ks)
    for (const Scale sc : scales) {
      const int64_t m = k > 4096 ? 64 : 128, n = k > 4096 ? 48 : 96;  // the FP64 reference's time
      const Operands o = random_operands(m, n, k, 100 + static_cast<unsigned>(k) + sc.a,
                                         std::ldexp(1.0f, sc.a), std::ldexp(1.0f, sc.b));
      const Reference r = reference(o);
      const Stored s = store(o, Layout::RowMajor, Op::N, Op::N);
      const Errors ffma = errors(run_gpu(s, o, ffma_auto()), r);
      const Errors autom = errors(run_gpu(s, o, GemmOptions{}), r);
      const Errors l6 = errors(run_gpu(s, o, level(6)), r);
      const Errors l7 = errors(run_gpu(s, o, level(7)), r);
      const Errors ffma_k3 = errors(run_gpu(s, o, config(kFfmaK3)), r);
      const Errors split_k3 = errors(run_gpu(s, o, config(kTf32x3K3)), r);
      const Errors wgmma = sm90 ? errors(run_gpu(s, o, config("wgmma-3xtf32:128x128x32:s4")), r) : ffma;
      const Errors cub = errors(cublas_result(o), r);
      char label[32];
      std::snprintf(label, sizeof label, "2^%d 2^%d", sc.a, sc.b);
      std::printf("%-12s %6lld ", label, static_cast<long long>(k));
      for (const Errors& e : {ffma, autom, l6, l7, ffma_k3, split_k3, wgmma, cub})
        std::printf(" %.2e/%.2e  ", e.componentwise, e.normwise);
      std::printf("\n");
      // Each tensor-core path within twice the error of the FFMA path of the same decomposition
      // (Auto's against Auto on CUDA cores: the bar; the unsplit tiles, whose k runs in one
      // sequence per output, against level 6's), with a floor of one FP32 unit of sum |a||b| (FFMA
      // can be exact on a short K, where 3xTF32's 2^-22 per product shows).
      const struct {
        const char* name;
        Errors got, ffma;
      } pairs[] = {{"auto", autom, ffma},
                   {"level7 vs level6", l7, l6},
                   {"tf32x3 k3 vs ffma k3", split_k3, ffma_k3},
                   {"wgmma-3xtf32 vs level6", wgmma, l6}};
      for (const auto& pr : pairs) {
        EXPECT_LE(pr.got.componentwise, 2 * std::max(pr.ffma.componentwise, 0x1p-24))
            << pr.name << " at scales 2^" << sc.a << ", 2^" << sc.b << ", K = " << k;
        EXPECT_LE(pr.got.normwise, 2 * std::max(pr.ffma.normwise, 0x1p-24))
            << pr.name << " at scales 2^" << sc.a << ", 2^" << sc.b << ", K = " << k;
      }
    }
}

// Level 8's 3xTF32 on every layout and op combination, odd shapes (ragged tiles, k below one step,
// primes), offset operands (not 16-byte aligned: packed for TMA) and padded leading dimensions, with
// beta reading C: against the FP64 reference with FP32's bound, everything outside C untouched.
struct Shape {
  int64_t m, n, k;
};
const std::vector<std::string> kWgmmaTf32x3Runs = {"wgmma-3xtf32:128x128x32:s4", "wgmma-3xtf32:128x128x32:s4:c2",
                                                   "wgmma-3xtf32:128x128x32:s4:k2", "wgmma-3xtf32:128x128x32:s4:kc2"};
// Level 8's TF32 (family wgmma-tf32, math = tf32): the compiled tiles, alone and in clusters,
// split-K both ways; and as C^T (":t": the kernel's stores write C transposed, or the slices' sum),
// where an MN-major B is read as the register A (one and two fragment sets: 128 x 256, 128 x 192 and
// 192 x 128, 128 x 128 and the 64-row tiles; in clusters of 2).
const std::vector<std::string> kWgmmaTf32Runs = {"wgmma-tf32:128x256x32:s4", "wgmma-tf32:128x256x32:s4:c2",
                                                 "wgmma-tf32:128x192x32:s4", "wgmma-tf32:128x192x32:s4:c2",
                                                 "wgmma-tf32:192x128x32:s4",
                                                 "wgmma-tf32:128x128x32:s4", "wgmma-tf32:128x128x32:s4:k2",
                                                 "wgmma-tf32:128x256x32:s4:kc2", "wgmma-tf32:64x32x32:s12",
                                                 "wgmma-tf32:64x32x32:s12:kc2", "wgmma-tf32:64x128x32:s8",
                                                 "wgmma-tf32:128x256x32:s4:t", "wgmma-tf32:192x128x32:s4:t",
                                                 "wgmma-tf32:128x128x32:s4:t", "wgmma-tf32:128x128x32:s4:k2:t",
                                                 "wgmma-tf32:64x32x32:s12:kc2:t", "wgmma-tf32:64x32x32:s12:t",
                                                 "wgmma-tf32:128x192x32:s4:t", "wgmma-tf32:128x256x32:s4:c2:t",
                                                 "wgmma-tf32:64x128x32:s8:t"};
// TF32 cuts both operands to 10-bit mantissas (truncated: up to 2^-10 each), 2^-9 of each product
// beyond FP32's bound (with room for the product of the two cuts).
constexpr double kTf32PerProduct = 0x1.02p-9;

// Level 8 on FP32 data over every layout, op combination and alignment: FP32's bound (plus
// `per_product` of sum |a||b|: TF32's cut) against FP64, alpha and beta (beta = 0 where C is
// column-major and aligned: the stores that write C over, TMA's included), and C outside the matrix
// untouched.
void check_level8_fp32(const std::vector<Shape>& shapes, const std::vector<std::string>& configs,
                       Math math = Math::Fp32, double per_product = 0.0) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (const Shape sh : shapes)
    for (const Layout layout : {Layout::RowMajor, Layout::ColMajor})
      for (const Op op_a : {Op::N, Op::T})
        for (const Op op_b : {Op::N, Op::T})
          for (const int64_t skew : {0, 1}) {  // skew 1: every matrix 1 element into its buffer, ld + 3
            const Operands o = random_operands(sh.m, sh.n, sh.k, static_cast<unsigned>(sh.m * 3 + sh.k));
            const Stored tight = store(o, layout, op_a, op_b);
            // Re-store with the skew: rows of ld + 3 starting one element in.
            const bool row = layout == Layout::RowMajor;
            auto restore = [&](const std::vector<float>& src, int64_t ld, int64_t lines, int64_t& new_ld) {
              new_ld = ld + 3 * skew;
              std::vector<float> dst(static_cast<size_t>(skew + lines * new_ld), -7.0f);
              const int64_t inner = ld;
              for (int64_t l = 0; l < lines; ++l)
                for (int64_t e = 0; e < inner; ++e)
                  dst[static_cast<size_t>(skew + l * new_ld + e)] = src[static_cast<size_t>(l * ld + e)];
              return dst;
            };
            const int64_t a_lines = static_cast<int64_t>(tight.a.size()) / std::max<int64_t>(tight.lda, 1);
            const int64_t b_lines = static_cast<int64_t>(tight.b.size()) / std::max<int64_t>(tight.ldb, 1);
            int64_t lda = 0, ldb = 0, ldc = 0;
            const std::vector<float> ha = restore(tight.a, tight.lda, a_lines, lda);
            const std::vector<float> hb = restore(tight.b, tight.ldb, b_lines, ldb);
            const int64_t c_lines = row ? sh.m : sh.n;
            ldc = (row ? sh.n : sh.m) + 3 * skew;
            std::vector<float> c0(static_cast<size_t>(skew + c_lines * ldc));
            for (float& v : c0) v = dist(rng);
            const Reference r = reference(o);
            DeviceBuffer<float> da(ha.size()), db(hb.size()), dc(c0.size());
            cudaMemcpy(da.get(), ha.data(), ha.size() * 4, cudaMemcpyHostToDevice);
            cudaMemcpy(db.get(), hb.data(), hb.size() * 4, cudaMemcpyHostToDevice);
            for (const std::string& cfg : configs) {
              SCOPED_TRACE(cfg + " " + std::to_string(sh.m) + "x" + std::to_string(sh.n) + "x" +
                           std::to_string(sh.k) + (row ? " row " : " col ") + to_string(op_a) + to_string(op_b) +
                           " skew " + std::to_string(skew));
              cudaMemcpy(dc.get(), c0.data(), c0.size() * 4, cudaMemcpyHostToDevice);
              const float alpha = 1.5f, beta = skew == 0 && !row ? 0.0f : -0.5f;
              GemmOptions opt = config(cfg);
              opt.math = math;
              sgemm(layout, op_a, op_b, sh.m, sh.n, sh.k, alpha, da.get() + skew, lda, db.get() + skew, ldb, beta,
                    dc.get() + skew, ldc, nullptr, opt);
              ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
              std::vector<float> c(c0.size());
              cudaMemcpy(c.data(), dc.get(), c.size() * 4, cudaMemcpyDeviceToHost);
              const double bound = ref::fp32_gemm_error_bound(sh.k) + per_product;
              int bad = 0;
              for (size_t idx = 0; idx < c.size() && bad < 5; ++idx) {
                const int64_t pos = static_cast<int64_t>(idx) - skew;
                const int64_t line = pos >= 0 ? pos / ldc : -1, e = pos >= 0 ? pos % ldc : -1;
                const bool inside = pos >= 0 && e < (row ? sh.n : sh.m) && line < c_lines;
                if (!inside) {
                  if (c[idx] != c0[idx]) ADD_FAILURE() << "element " << idx << " outside C changed", ++bad;
                  continue;
                }
                const int64_t i = row ? line : e, j = row ? e : line;
                const size_t ri = static_cast<size_t>(i * sh.n + j);
                const double want = alpha * r.sum[ri] + beta * double(c0[idx]);
                const double scale = std::fabs(alpha) * r.abs_sum[ri] + std::fabs(beta * c0[idx]);
                if (idx == static_cast<size_t>(skew) && per_product > 0)  // TF32's error shows
                  EXPECT_NE(double(c[idx]), double(float(want))) << "C(0, 0) is FP32-exact: did TF32 run?";
                if (std::fabs(c[idx] - want) > bound * scale + 0x1p-149) {
                  ADD_FAILURE() << "C(" << i << ", " << j << ") = " << c[idx] << ", FP64 reference " << want;
                  ++bad;
                }
              }
            }
          }
}

TEST(Fp32Contract, Wgmma3xTf32EveryLayoutShapeAndAlignment) {
  if (!hopper()) GTEST_SKIP() << "level 8 needs a compute capability 9.0 device";
  check_level8_fp32({{1, 1, 1}, {7, 13, 5}, {129, 257, 33}, {300, 200, 1000}, {263, 131, 4099}}, kWgmmaTf32x3Runs);
}

// The sanitizer's set (tests/gpu/run_sanitizer.sh): ragged tiles, packed A, split both ways.
TEST(Fp32Contract, Wgmma3xTf32SmallOddShapes) {
  if (!hopper()) GTEST_SKIP() << "level 8 needs a compute capability 9.0 device";
  check_level8_fp32({{7, 13, 5}, {129, 140, 70}}, kWgmmaTf32x3Runs);
}

// TF32 (math = tf32): the same shapes, layouts and alignments (MN-major and unaligned operands run
// through their K-major copies), held to TF32's bound.
TEST(Tf32Math, WgmmaEveryLayoutShapeAndAlignment) {
  if (!hopper()) GTEST_SKIP() << "level 8 needs a compute capability 9.0 device";
  check_level8_fp32({{1, 1, 1}, {7, 13, 5}, {129, 257, 33}, {300, 200, 1000}, {263, 131, 4099}}, kWgmmaTf32Runs,
                    Math::Tf32, kTf32PerProduct);
}

// The sanitizer's set for TF32: ragged tiles, converted operands, split both ways.
TEST(Tf32Math, WgmmaSmallOddShapes) {
  if (!hopper()) GTEST_SKIP() << "level 8 needs a compute capability 9.0 device";
  check_level8_fp32({{7, 13, 5}, {129, 140, 70}}, kWgmmaTf32Runs, Math::Tf32, kTf32PerProduct);
}

// TF32 over the exponent range: A and B scaled by powers of two whose products stay normal (TF32 has
// FP32's exponent range), every layout's conversion path, against FP64 with TF32's bound.
TEST(Tf32Math, ScaledOperands) {
  if (!hopper()) GTEST_SKIP() << "level 8 needs a compute capability 9.0 device";
  GemmOptions tf32 = config("wgmma-tf32:128x256x32:s4");
  tf32.math = Math::Tf32;
  GemmOptions tf32_auto;
  tf32_auto.math = Math::Tf32;
  for (const auto& [sa, sb] : std::vector<std::pair<int, int>>{{-100, 100}, {60, -80}, {-60, -50}, {50, 60}})
    for (const SpecialCase tc : {SpecialCase{150, 270, 700, Layout::RowMajor, Op::N, Op::T},
                                 SpecialCase{150, 270, 700, Layout::ColMajor, Op::T, Op::N}}) {
      const Operands o = random_operands(tc.m, tc.n, tc.k, 41 + static_cast<unsigned>(sa + 200),
                                         std::ldexp(1.0f, sa), std::ldexp(1.0f, sb));
      const Reference r = reference(o);
      const Stored s = store(o, tc.layout, tc.op_a, tc.op_b);
      const std::string what = "2^" + std::to_string(sa) + " x 2^" + std::to_string(sb) + " " +
                               special_name(testing::TestParamInfo<SpecialCase>(tc, 0));
      expect_fp32(run_gpu(s, o, tf32), s, o, r, "wgmma-tf32 " + what, kTf32PerProduct);
      expect_fp32(run_gpu(s, o, tf32_auto), s, o, r, "auto " + what, kTf32PerProduct);
    }
}

// TF32 keeps FP32's IEEE classes where its operands are normal or special: Inf, NaN, products that
// overflow, FLT_MAX-sized operands (truncated to TF32, FLT_MAX stays finite), against the sequential
// FP32 FMA's classes and the finite values within TF32's bound. Every wgmma-tf32 config and Auto under
// math = tf32. (Subnormal operands are left out: docs/api.md says what TF32 does with them.)
TEST(Tf32Math, SpecialValues) {
  if (!hopper()) GTEST_SKIP() << "level 8 needs a compute capability 9.0 device";
  std::vector<NamedRun> runs;
  for (const std::string& c : kWgmmaTf32Runs) runs.push_back({c, config(c)});
  runs.push_back({"auto", GemmOptions{}});
  for (NamedRun& r : runs) r.opt.math = Math::Tf32;
  for (const SpecialCase tc : {SpecialCase{200, 190, 300, Layout::RowMajor, Op::N, Op::N},
                               SpecialCase{200, 190, 300, Layout::RowMajor, Op::T, Op::T},
                               SpecialCase{72, 130, 1000, Layout::ColMajor, Op::N, Op::T}}) {
    Operands o = random_operands(tc.m, tc.n, tc.k, 29 + static_cast<unsigned>(tc.k));
    plant_specials(o, /*subnormals=*/false);
    const Reference r = reference(o);
    const Stored s = store(o, tc.layout, tc.op_a, tc.op_b);
    for (const NamedRun& run : runs)
      expect_fp32(run_gpu(s, o, run.opt), s, o, r, run.name + " " + special_name(testing::TestParamInfo<SpecialCase>(tc, 0)),
                  kTf32PerProduct);
  }
}

}  // namespace
}  // namespace tilegemm
