// Strided batches on ladder level 8 (one launch for every batch: the persistent grid walks the tiles
// of all batches): bf16 and f16 (C in the input type or f32), FP32 as TF32 and as 3xTF32, both layouts
// and op combinations, A or B shared by a batch stride of 0, batch strides off 16 bytes (every batch
// packed or converted for TMA), split-K both ways, clusters, ping-pong, batch 1 and 0, against an FP64
// reference of every batch; the gaps between batches of C untouched; explain_choice names one launch.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/device_buffer.hpp"
#include "dense/matrix_extent.hpp"
#include "ref/reference.hpp"
#include "tilegemm/tilegemm.hpp"
#include "typed_values.hpp"

namespace tilegemm {
namespace {

struct BatchCase {
  DType in, out;
  Math math;  // F32 operands: Fp32 (3xTF32) or Tf32
  Layout layout;
  Op op_a, op_b;
  int64_t m, n, k, batch;
  // Elements between one batch's matrix and the next beyond its extent; -1: stride 0 (A or B shared).
  int64_t gap_a, gap_b, gap_c;
  int64_t offset;  // elements every matrix starts into its buffer
  float beta;
  std::string config;  // "" = Auto
};

std::string name_of(const BatchCase& t) {
  return std::to_string(t.batch) + " x " + std::to_string(t.m) + "x" + std::to_string(t.n) + "x" +
         std::to_string(t.k) + " " + to_string(t.in) + "->" + to_string(t.out) + (t.math == Math::Tf32 ? " tf32" : "") +
         (t.layout == Layout::RowMajor ? " row " : " col ") + (t.op_a == Op::N ? "N" : "T") +
         (t.op_b == Op::N ? "N" : "T") + " gaps " + std::to_string(t.gap_a) + "/" + std::to_string(t.gap_b) + "/" +
         std::to_string(t.gap_c) + " offset " + std::to_string(t.offset) + " beta " + std::to_string(t.beta) + " " +
         t.config;
}

void run_case(const BatchCase& t) {
  SCOPED_TRACE(name_of(t));
  const StoredOperands s = stored_shapes(t.op_a, t.op_b, t.m, t.n, t.k);
  const int64_t lda = s.a.min_ld(t.layout), ldb = s.b.min_ld(t.layout), ldc = s.c.min_ld(t.layout);
  const int64_t ext_a = s.a.extent(t.layout, lda), ext_b = s.b.extent(t.layout, ldb), ext_c = s.c.extent(t.layout, ldc);
  const int64_t stride_a = t.gap_a < 0 ? 0 : ext_a + t.gap_a, stride_b = t.gap_b < 0 ? 0 : ext_b + t.gap_b,
                stride_c = ext_c + t.gap_c;
  const int64_t batches = std::max<int64_t>(t.batch, 1);
  const int64_t size_a = t.offset + stride_a * (batches - 1) + ext_a, size_b = t.offset + stride_b * (batches - 1) + ext_b,
                size_c = t.offset + stride_c * (batches - 1) + ext_c;
  const int in_bytes = dtype_bytes(t.in), out_bytes = dtype_bytes(t.out);
  std::mt19937 rng(static_cast<unsigned>(t.m * 31 + t.n * 7 + t.k + t.batch * 1009 + t.gap_a));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> fa(size_a), fb(size_b), c_old(size_c);
  std::vector<unsigned char> ha(size_a * in_bytes), hb(size_b * in_bytes), hc(size_c * out_bytes);
  for (int64_t i = 0; i < size_a; ++i) store_value(&ha[i * in_bytes], fa[i] = round_to(dist(rng), t.in), t.in);
  for (int64_t i = 0; i < size_b; ++i) store_value(&hb[i * in_bytes], fb[i] = round_to(dist(rng), t.in), t.in);
  // C: NaN where beta = 0 (it must not be read); every element between the batches' results stays.
  for (int64_t i = 0; i < size_c; ++i)
    store_value(&hc[i * out_bytes], c_old[i] = t.beta == 0.0f ? NAN : round_to(dist(rng), t.out), t.out);
  DeviceBuffer<unsigned char> a(ha.size()), b(hb.size()), c(hc.size());
  a.upload(ha);
  b.upload(hb);
  c.upload(hc);

  GemmArgs args = product_args(t.layout, t.op_a, t.op_b, t.m, t.n, t.k, t.batch);
  args.a = {t.in, a.get() + t.offset * in_bytes, lda, stride_a};
  args.b = {t.in, b.get() + t.offset * in_bytes, ldb, stride_b};
  args.c = {t.out, c.get() + t.offset * out_bytes, ldc, stride_c};
  args.epilogue = {1.25f, t.beta};
  GemmOptions options;
  options.config = t.config;
  options.math = t.math;
  if (t.batch > 1 && t.config.empty() && t.in != DType::F32) {
    // Auto runs 16-bit batches in one launch of level 8 (its model counts every batch's tiles).
    const GemmChoice choice = explain_choice(args, options);
    EXPECT_EQ(choice.family.substr(0, 5), "wgmma") << choice.family;
    EXPECT_NE(choice.reason.find(std::to_string(t.batch) + " batches"), std::string::npos) << choice.reason;
  }
  gemm(args, nullptr, options);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<unsigned char> raw = c.download();
  std::vector<float> got(size_c);
  for (int64_t i = 0; i < size_c; ++i) got[i] = load_value(&raw[i * out_bytes], t.out);

  // FP32 accumulation of exact products, then the output's rounding; TF32 cuts each operand to a
  // 10-bit mantissa (up to 2^-10 each, truncated); 3xTF32 is FP32-accurate.
  const double u_out = ref::unit_roundoff(t.out);
  const double per_product = t.math == Math::Tf32 ? std::ldexp(1.0, -9) * 1.01 : 0.0;
  const double gamma = 2.0 * t.k * std::ldexp(1.0, -24) + per_product;
  std::vector<bool> result(size_c, false);
  int bad = 0;
  for (int64_t bb = 0; bb < t.batch && bad < 5; ++bb) {
    const float* a0 = fa.data() + t.offset + bb * stride_a;
    const float* b0 = fb.data() + t.offset + bb * stride_b;
    const int64_t c0 = t.offset + bb * stride_c;
    for (int64_t i = 0; i < t.m && bad < 5; ++i)
      for (int64_t j = 0; j < t.n && bad < 5; ++j) {
        double dot = 0, mag = 0;
        for (int64_t l = 0; l < t.k; ++l) {
          const double p = double(a0[t.op_a == Op::N ? stored_index(t.layout, i, l, lda) : stored_index(t.layout, l, i, lda)]) *
                           b0[t.op_b == Op::N ? stored_index(t.layout, l, j, ldb) : stored_index(t.layout, j, l, ldb)];
          dot += p;
          mag += std::fabs(p);
        }
        const int64_t e = c0 + stored_index(t.layout, i, j, ldc);
        result[e] = true;
        const double old = t.beta == 0.0f ? 0.0 : double(t.beta) * c_old[e];
        const double want = 1.25 * dot + old;
        const double tol = 2.0 * u_out * std::fabs(want) + 1.25 * gamma * mag + std::ldexp(std::fabs(old), -22) + 1e-30;
        if (!(std::fabs(got[e] - want) <= tol)) {
          ++bad;
          ADD_FAILURE() << "batch " << bb << " C(" << i << ", " << j << ") = " << got[e] << ", want " << want
                        << " (tolerance " << tol << ")";
        }
      }
  }
  for (int64_t e = 0; e < size_c && bad == 0; ++e) {
    if (result[e]) continue;
    const bool same = std::isnan(c_old[e]) ? std::isnan(got[e]) : got[e] == c_old[e];
    if (!same) {
      ++bad;
      ADD_FAILURE() << "C element " << e << " outside every batch's result written";
    }
  }
}

// The shapes every instance runs: ragged tiles in 3 batches, each layout and op pair, an operand
// shared (stride 0), strides off 16 bytes, beta over an old C.
std::vector<BatchCase> standard_cases(DType in, DType out, Math math, const std::string& config) {
  std::vector<BatchCase> list;
  const Layout layouts[] = {Layout::RowMajor, Layout::ColMajor};
  const Op ops[] = {Op::N, Op::T};
  int i = 0;
  for (Layout l : layouts)
    for (Op oa : ops)
      for (Op ob : ops) {
        // Aligned strides (extent + 8 elements: 16-byte multiples for the tight 136-element rows), A
        // or B shared in turn, then strides off 16 bytes with the other operand shared.
        const int64_t shared_a = i % 2 == 0 ? -1 : 8, shared_b = i % 2 == 0 ? 8 : -1;
        list.push_back({in, out, math, l, oa, ob, 136, 264, 72, 3, 8, 8, 8, 0, 0.0f, config});
        list.push_back({in, out, math, l, oa, ob, 129, 257, 70, 3, shared_a, shared_b, 3, 0, 0.5f, config});
        list.push_back({in, out, math, l, oa, ob, 65, 200, 33, 4, i % 2 == 0 ? 1 : -1, i % 2 == 0 ? -1 : 3, 1, 1,
                        0.0f, config});
        ++i;
      }
  return list;
}

TEST(WgmmaBatches, SixteenBitEveryLayoutSharedAndUnalignedStrides) {
  for (const char* config : {"", "wgmma:128x256x64:s4", "wgmma:128x128x64:s6:pp:c2", "wgmma:128x128x64:s4:k2",
                             "wgmma:128x128x64:s4:kc2"})
    for (const BatchCase& t : standard_cases(DType::BF16, DType::BF16, Math::Fp32, config)) run_case(t);
  for (const BatchCase& t : standard_cases(DType::F16, DType::F32, Math::Fp32, "wgmma:128x256x64:s4:c2")) run_case(t);
}

TEST(WgmmaBatches, Fp32As3xTf32AndTf32) {
  for (const char* config : {"", "wgmma-3xtf32:128x128x32:s4:c2", "wgmma-3xtf32:128x128x32:s4:k2"})
    for (const BatchCase& t : standard_cases(DType::F32, DType::F32, Math::Fp32, config)) run_case(t);
  for (const char* config : {"wgmma-tf32:128x256x32:s4", "wgmma-tf32:128x128x32:s4:kc2"})
    for (const BatchCase& t : standard_cases(DType::F32, DType::F32, Math::Tf32, config)) run_case(t);
}

// Many tiles per block across batches, more batches than SMs hold tiles, batch 1 with a stride given
// (ignored), batch 0 (nothing written), and a K-heavy batch split in k.
TEST(WgmmaBatches, ManyBatchesOneAndNone) {
  run_case({DType::BF16, DType::BF16, Math::Fp32, Layout::RowMajor, Op::N, Op::T, 256, 384, 128, 40, 0, 0, 0, 0, 0.0f,
            "wgmma:128x256x64:s4"});
  run_case({DType::BF16, DType::F32, Math::Fp32, Layout::RowMajor, Op::N, Op::N, 64, 64, 64, 300, 0, -1, 0, 0, 0.0f, ""});
  run_case({DType::F16, DType::F16, Math::Fp32, Layout::ColMajor, Op::T, Op::N, 100, 90, 80, 1, 5, 7, 9, 0, 1.0f,
            "wgmma:128x128x64:s4"});
  run_case({DType::BF16, DType::BF16, Math::Fp32, Layout::RowMajor, Op::N, Op::N, 50, 60, 70, 0, 0, 0, 0, 0, 0.0f, ""});
  run_case({DType::F32, DType::F32, Math::Fp32, Layout::RowMajor, Op::T, Op::N, 130, 140, 3000, 2, 0, 0, 0, 0, 0.0f,
            "wgmma-3xtf32:128x128x32:s4:k4"});
  // C^T computed (":t") for few rows in every batch: the reduction writes each batch's C transposed,
  // a shared operand and strides off 16 bytes included.
  for (const BatchCase& t : std::vector<BatchCase>{
           {DType::BF16, DType::BF16, Math::Fp32, Layout::RowMajor, Op::N, Op::T, 24, 520, 700, 3, 0, -1, 0, 0, 0.0f,
            "wgmma:128x64x64:s8:k4:t"},
           {DType::F16, DType::F32, Math::Fp32, Layout::ColMajor, Op::N, Op::N, 40, 300, 300, 5, 3, 1, 1, 1, 0.5f,
            "wgmma:128x128x64:s4:k2:t"},
           {DType::F32, DType::F32, Math::Tf32, Layout::RowMajor, Op::N, Op::T, 32, 264, 500, 3, -1, 8, 8, 0, 0.0f,
            "wgmma-tf32:128x64x32:s8:k4:t"},
           {DType::F32, DType::F32, Math::Fp32, Layout::RowMajor, Op::T, Op::N, 16, 200, 400, 2, 0, 0, 0, 0, 1.0f,
            "wgmma-3xtf32:128x128x32:s4:k2:t"},
           // ... and in one k slice (TF32's B read as the register A, C written by the kernel's stores).
           {DType::F32, DType::F32, Math::Tf32, Layout::RowMajor, Op::N, Op::N, 130, 140, 300, 3, 0, -1, 4, 0, 0.0f,
            "wgmma-tf32:128x128x32:s4:t"},
           {DType::F32, DType::F32, Math::Tf32, Layout::ColMajor, Op::T, Op::N, 70, 90, 100, 2, 1, 1, 1, 1, 0.5f,
            "wgmma-tf32:128x256x32:s4:t"},
           // Summed in the cluster on 64-row tiles, and 64 x 32 as stored.
           {DType::BF16, DType::BF16, Math::Fp32, Layout::RowMajor, Op::N, Op::T, 24, 520, 700, 3, 0, -1, 0, 0, 0.0f,
            "wgmma:64x32x64:s12:kc2:t"},
           {DType::F16, DType::F32, Math::Fp32, Layout::RowMajor, Op::N, Op::N, 40, 300, 900, 2, 3, 1, 1, 1, 0.5f,
            "wgmma:64x64x64:s13:kc2:t"},
           {DType::BF16, DType::BF16, Math::Fp32, Layout::RowMajor, Op::N, Op::T, 300, 24, 200, 3, 0, 0, 0, 0, 0.0f,
            "wgmma:64x32x64:s12"}})
    run_case(t);
}

TEST(WgmmaBatches, SmallOddShapes) {  // the sanitizer set (run_sanitizer.sh)
  run_case({DType::BF16, DType::BF16, Math::Fp32, Layout::RowMajor, Op::N, Op::T, 7, 13, 5, 3, 1, -1, 3, 1, 0.5f,
            "wgmma:128x128x64:s4:k2"});
  run_case({DType::F32, DType::F32, Math::Fp32, Layout::ColMajor, Op::N, Op::N, 9, 17, 40, 2, 3, 0, 1, 0, 0.0f,
            "wgmma-3xtf32:128x128x32:s4"});
  run_case({DType::F32, DType::F32, Math::Tf32, Layout::RowMajor, Op::T, Op::N, 11, 5, 33, 3, -1, 1, 0, 0, 0.0f,
            "wgmma-tf32:128x128x32:s4:kc2"});
  run_case({DType::F16, DType::F32, Math::Fp32, Layout::RowMajor, Op::N, Op::N, 5, 37, 150, 2, 3, -1, 1, 1, 1.0f,
            "wgmma:128x64x64:s8:k2:t"});
}

}  // namespace
}  // namespace tilegemm
