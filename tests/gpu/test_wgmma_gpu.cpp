// Ladder level 8 (family wgmma, kernels/gemm/08_wgmma_tma.cuh): bf16 and f16 products with f32
// accumulation through the typed entry, against an FP64 reference computed from the same 16-bit
// inputs; C in the input type and in f32; alpha and beta (beta = 0 over a NaN C); ragged tiles in m,
// n and k; padded leading dimensions; both storage orders of the K-contiguous form.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/device_buffer.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

// 16-bit values as their bits, converted on the host.
uint16_t to_bits(float v, DType t) {
  if (t == DType::F16) {
    const __half h = __float2half_rn(v);
    return *reinterpret_cast<const uint16_t*>(&h);
  }
  const __nv_bfloat16 h = __float2bfloat16_rn(v);
  return *reinterpret_cast<const uint16_t*>(&h);
}
float from_bits(uint16_t bits, DType t) {
  if (t == DType::F16) return __half2float(*reinterpret_cast<const __half*>(&bits));
  return __bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(&bits));
}
// The output type's unit roundoff (bf16: 8 significant bits, f16: 11).
double unit_roundoff(DType t) { return t == DType::BF16 ? std::ldexp(1.0, -8) : t == DType::F16 ? std::ldexp(1.0, -11) : 0.0; }

struct WgmmaCase {
  DType in, out;
  Layout layout;
  int64_t m, n, k;
  int64_t pad;  // added to every leading dimension (in elements; a multiple of 8 keeps TMA's 16 bytes)
  float alpha, beta;
  std::string config;  // "" = Auto
};

// Row-major: C = A B^T with A m x k and B n x k row-major (op_a N, op_b T). Column-major: the same
// memory as the column-major product C^T (n x m) = op(B') op(A') with op_a = T, op_b = N.
void run_case(const WgmmaCase& t) {
  SCOPED_TRACE(std::to_string(t.m) + "x" + std::to_string(t.n) + "x" + std::to_string(t.k) + " " +
               to_string(t.in) + "->" + to_string(t.out) + (t.layout == Layout::RowMajor ? " row" : " col") +
               " pad " + std::to_string(t.pad) + " " + t.config);
  const bool row = t.layout == Layout::RowMajor;
  // Stored: A as rows of k (m rows), B as rows of k (n rows), C as rows of n (m rows): in column-major
  // terms the transposes, the product C^T = B A^T over the same memory.
  const int64_t lda = t.k + t.pad, ldb = t.k + t.pad, ldc = t.n + t.pad;
  const int64_t c_rows = t.m;
  std::mt19937 rng(static_cast<unsigned>(t.m * 31 + t.n * 7 + t.k));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint16_t> ha(t.m * lda), hb(t.n * ldb);
  std::vector<float> fa(ha.size()), fb(hb.size());
  for (size_t i = 0; i < ha.size(); ++i) fa[i] = from_bits(ha[i] = to_bits(dist(rng), t.in), t.in);
  for (size_t i = 0; i < hb.size(); ++i) fb[i] = from_bits(hb[i] = to_bits(dist(rng), t.in), t.in);
  const size_t c_count = static_cast<size_t>(c_rows * ldc);
  const bool out16 = t.out != DType::F32;
  std::vector<float> c_old(c_count);
  for (float& v : c_old) v = t.beta == 0.0f ? NAN : dist(rng);
  std::vector<uint16_t> hc16(c_count);
  if (out16)
    for (size_t i = 0; i < c_count; ++i) c_old[i] = from_bits(hc16[i] = to_bits(c_old[i], t.out), t.out);

  DeviceBuffer<uint16_t> a(ha.size()), b(hb.size());
  a.upload(ha);
  b.upload(hb);
  DeviceBuffer<uint16_t> c16(out16 ? c_count : 1);
  DeviceBuffer<float> c32(out16 ? 1 : c_count);
  if (out16) c16.upload(hc16);
  else c32.upload(c_old);

  GemmArgs args;
  args.layout = t.layout;
  args.m = t.m;
  args.n = t.n;
  args.k = t.k;
  if (row) {  // C (m x n) = A (m x k) * op(B), B stored n x k: op_b = T
    args.op_a = Op::N, args.op_b = Op::T;
    args.a = {t.in, a.get(), lda, 0};
    args.b = {t.in, b.get(), ldb, 0};
  } else {  // column-major: A' = B's memory (k x n, op T), B' = A's memory (k x m, op N)
    args.m = t.n, args.n = t.m;
    args.op_a = Op::T, args.op_b = Op::N;
    args.a = {t.in, b.get(), ldb, 0};
    args.b = {t.in, a.get(), lda, 0};
  }
  args.c = {t.out, out16 ? static_cast<void*>(c16.get()) : static_cast<void*>(c32.get()), ldc, 0};
  args.epilogue.alpha = t.alpha;
  args.epilogue.beta = t.beta;
  GemmOptions options;
  options.config = t.config;
  EXPECT_EQ(explain_choice(args, options).family, "wgmma");
  gemm(args, nullptr, options);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  std::vector<float> got(c_count);
  if (out16) {
    const std::vector<uint16_t> raw = c16.download();
    for (size_t i = 0; i < c_count; ++i) got[i] = from_bits(raw[i], t.out);
  } else {
    got = c32.download();
  }
  // C[i][j] = alpha * sum_l A[i][l] B[j][l] + beta * C_old, at i * ldc + j in either form.
  const double u = unit_roundoff(t.out), gamma = 2.0 * t.k * std::ldexp(1.0, -24);
  int bad = 0;
  for (int64_t i = 0; i < t.m && bad < 5; ++i)
    for (int64_t j = 0; j < t.n && bad < 5; ++j) {
      double dot = 0, mag = 0;
      for (int64_t l = 0; l < t.k; ++l) {
        const double p = double(fa[i * lda + l]) * fb[j * ldb + l];
        dot += p;
        mag += std::fabs(p);
      }
      const size_t at = static_cast<size_t>(i * ldc + j);
      const double want = t.alpha * dot + (t.beta == 0.0f ? 0.0 : double(t.beta) * c_old[at]);
      const double tol = 2.0 * u * std::fabs(want) + std::fabs(t.alpha) * gamma * mag +
                         (t.beta == 0.0f ? 0.0 : std::ldexp(std::fabs(double(t.beta) * c_old[at]), -23)) + 1e-30;
      if (!(std::fabs(got[at] - want) <= tol)) {
        ++bad;
        ADD_FAILURE() << "C(" << i << ", " << j << ") = " << got[at] << ", want " << want << " (tolerance " << tol << ")";
      }
    }
  // Padding past each stored row is untouched (beta = 0 writes only C).
  if (t.pad > 0)
    for (int64_t r = 0; r < c_rows; ++r)
      for (int64_t e = t.n; e < ldc; ++e) {
        const size_t at = static_cast<size_t>(r * ldc + e);
        const bool same = std::isnan(c_old[at]) ? std::isnan(got[at]) : got[at] == c_old[at];
        if (!same) {
          ADD_FAILURE() << "padding element " << at << " written";
          return;
        }
      }
}

TEST(Wgmma, Bf16AndF16AgainstTheFp64Reference) {
  const std::vector<WgmmaCase> cases = {
      {DType::BF16, DType::BF16, Layout::RowMajor, 256, 256, 256, 0, 1.0f, 0.0f, ""},
      {DType::BF16, DType::BF16, Layout::RowMajor, 1000, 776, 520, 0, 1.0f, 0.0f, ""},    // ragged m, n, k
      {DType::BF16, DType::BF16, Layout::RowMajor, 129, 257, 72, 8, 1.5f, -0.5f, ""},     // beta reads C
      {DType::BF16, DType::F32, Layout::RowMajor, 300, 200, 136, 0, 0.75f, 0.0f, ""},     // f32 output
      {DType::F16, DType::F16, Layout::RowMajor, 384, 640, 1024, 16, 1.0f, 0.0f, ""},
      {DType::F16, DType::F32, Layout::ColMajor, 200, 333, 200, 8, 1.0f, 2.0f, ""},       // column-major form
      {DType::BF16, DType::BF16, Layout::ColMajor, 77, 1, 64, 0, 1.0f, 0.0f, ""},        // one column
      {DType::BF16, DType::BF16, Layout::RowMajor, 1, 4096, 8, 0, 1.0f, 0.0f, ""},       // one row, k < 64
      {DType::BF16, DType::BF16, Layout::RowMajor, 2048, 1024, 2048, 0, 1.0f, 0.0f, "wgmma:128x128x64:s4"},
      {DType::F16, DType::F16, Layout::RowMajor, 1536, 2304, 4096, 0, 1.0f, 0.0f, "wgmma:128x256x64:s4"},  // several tiles per block
  };
  for (const WgmmaCase& t : cases) run_case(t);
}

TEST(Wgmma, LayoutsItCannotRunAreRefusedNamingTheReason) {
  DeviceBuffer<uint16_t> a(64 * 64), b(64 * 64), c(64 * 64);
  GemmArgs args;
  args.m = args.n = args.k = 64;
  args.a = {DType::BF16, a.get(), 64, 0};
  args.b = {DType::BF16, b.get(), 64, 0};
  args.c = {DType::BF16, c.get(), 64, 0};
  args.op_b = Op::N;  // B contiguous along n: not yet
  try {
    gemm(args);
    ADD_FAILURE() << "an NN bf16 product ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("wgmma: A and B must both be contiguous along k"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tilegemm
