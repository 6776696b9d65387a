// The fused epilogue D = activation(alpha * op(A) op(B) + beta * C + bias): every activation, a bias per
// row and per column in f32 and in C's type, beta 0 over NaN and beta != 0, both layouts (a column-major
// call's rows are the canonical columns), batches; on level 8's store paths (TMA stores, staged
// stores, pair stores, split-K through workspace and summed in a cluster), skinny16's, and on
// families that do not fuse it (their elementwise pass), against an FP64 reference; the activations
// over their whole range; bad epilogue arguments refused before anything is written.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

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

// The activations in double, in the forms that keep their digits in the negative tails (0.5 x (1 +
// tanh u) and 1 + erf cancel there): GELU(tanh) = x / (1 + e^(-2u)), GELU(erf) = 0.5 x erfc(-x / sqrt 2).
double activate(double v, Activation a) {
  switch (a) {
    case Activation::Relu: return v < 0 ? 0 : v;
    case Activation::GeluTanh: return v / (1 + std::exp(-2 * std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
    case Activation::GeluErf: return 0.5 * v * std::erfc(-v / std::sqrt(2.0));
    case Activation::Silu: return v / (1 + std::exp(-v));
    default: return v;
  }
}

struct EpilogueCase {
  DType in, out;
  Math math;
  Layout layout;
  Op op_a, op_b;
  int64_t m, n, k, batch;
  BiasKind bias_kind;
  DType bias_type;
  Activation activation;
  float beta;
  std::string config;  // "" = Auto
};

void run_case(const EpilogueCase& t) {
  SCOPED_TRACE(std::to_string(t.batch) + " x " + std::to_string(t.m) + "x" + std::to_string(t.n) + "x" +
               std::to_string(t.k) + " " + to_string(t.in) + "->" + to_string(t.out) +
               (t.layout == Layout::RowMajor ? " row " : " col ") + (t.op_a == Op::N ? "N" : "T") +
               (t.op_b == Op::N ? "N" : "T") + " bias " + to_string(t.bias_kind) + " " + to_string(t.bias_type) + " " +
               to_string(t.activation) + " beta " + std::to_string(t.beta) + " " + t.config);
  const StoredOperands s = stored_shapes(t.op_a, t.op_b, t.m, t.n, t.k);
  const int64_t lda = s.a.min_ld(t.layout), ldb = s.b.min_ld(t.layout), ldc = s.c.min_ld(t.layout);
  const int64_t ext_a = s.a.extent(t.layout, lda), ext_b = s.b.extent(t.layout, ldb), ext_c = s.c.extent(t.layout, ldc);
  const int64_t size_a = ext_a * t.batch, size_b = ext_b * t.batch, size_c = ext_c * t.batch;
  const int64_t bias_count = t.bias_kind == BiasKind::PerRow ? t.m : t.n;
  const int ib = dtype_bytes(t.in), ob = dtype_bytes(t.out), bb = dtype_bytes(t.bias_type);
  std::mt19937 rng(static_cast<unsigned>(t.m * 31 + t.n * 7 + t.k + static_cast<int>(t.activation) * 101));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> fa(size_a), fb(size_b), fc(size_c), fbias(bias_count);
  std::vector<unsigned char> ha(size_a * ib), hb(size_b * ib), hc(size_c * ob), hbias(bias_count * bb + 1);
  for (int64_t i = 0; i < size_a; ++i) store_value(&ha[i * ib], fa[i] = round_to(dist(rng), t.in), t.in);
  for (int64_t i = 0; i < size_b; ++i) store_value(&hb[i * ib], fb[i] = round_to(dist(rng), t.in), t.in);
  for (int64_t i = 0; i < size_c; ++i)
    store_value(&hc[i * ob], fc[i] = t.beta == 0.0f ? NAN : round_to(dist(rng), t.out), t.out);
  for (int64_t i = 0; i < bias_count; ++i)
    store_value(&hbias[i * bb], fbias[i] = round_to(2 * dist(rng), t.bias_type), t.bias_type);
  DeviceBuffer<unsigned char> a(ha.size()), b(hb.size()), c(hc.size()), bias(hbias.size());
  a.upload(ha);
  b.upload(hb);
  c.upload(hc);
  bias.upload(hbias);

  GemmArgs args = product_args(t.layout, t.op_a, t.op_b, t.m, t.n, t.k, t.batch);
  args.a = {t.in, a.get(), lda, ext_a};
  args.b = {t.in, b.get(), ldb, ext_b};
  args.c = {t.out, c.get(), ldc, ext_c};
  args.epilogue = {1.25f, t.beta, t.bias_kind, t.bias_kind == BiasKind::None ? nullptr : bias.get(), t.bias_type,
                   t.activation};
  GemmOptions options;
  options.config = t.config;
  options.math = t.math;
  gemm(args, nullptr, options);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<unsigned char> raw = c.download();

  // The product in FP32 (TF32: operands cut to 10 bits), alpha, beta, bias, the activation in FP32,
  // the output's rounding (twice where a family that does not fuse stores C before the pass).
  const double u = ref::unit_roundoff(t.out);
  const double gamma = 2.0 * t.k * std::ldexp(1.0, -24) + (t.math == Math::Tf32 ? std::ldexp(1.0, -9) * 1.01 : 0.0);
  int bad = 0;
  for (int64_t bt = 0; bt < t.batch && bad < 5; ++bt)
    for (int64_t i = 0; i < t.m && bad < 5; ++i)
      for (int64_t j = 0; j < t.n && bad < 5; ++j) {
        double dot = 0, mag = 0;
        for (int64_t l = 0; l < t.k; ++l) {
          const int64_t ia = t.op_a == Op::N ? stored_index(t.layout, i, l, lda) : stored_index(t.layout, l, i, lda);
          const int64_t ib = t.op_b == Op::N ? stored_index(t.layout, l, j, ldb) : stored_index(t.layout, j, l, ldb);
          const double p = double(fa[bt * ext_a + ia]) * fb[bt * ext_b + ib];
          dot += p;
          mag += std::fabs(p);
        }
        const int64_t e = bt * ext_c + stored_index(t.layout, i, j, ldc);
        const double old = t.beta == 0.0f ? 0.0 : double(t.beta) * fc[e];
        const double bias_v = t.bias_kind == BiasKind::None ? 0.0 : fbias[t.bias_kind == BiasKind::PerRow ? i : j];
        const double pre = 1.25 * dot + old + bias_v, want = activate(pre, t.activation);
        const double tol = 1.2 * (1.25 * gamma * mag + std::ldexp(std::fabs(old) + std::fabs(bias_v), -22)) +
                           2.0 * u * (std::fabs(want) + std::fabs(pre)) + 1e-6 * (1 + std::fabs(pre));
        const double got = load_value(&raw[e * ob], t.out);
        if (!(std::fabs(got - want) <= tol)) {
          ++bad;
          ADD_FAILURE() << "batch " << bt << " C(" << i << ", " << j << ") = " << got << ", want " << want
                        << " (before the activation " << pre << ", tolerance " << tol << ")";
        }
      }
}

const Activation kActivations[] = {Activation::None, Activation::Relu, Activation::GeluTanh, Activation::GeluErf,
                                   Activation::Silu};

// Level 8's store paths: TMA stores (n a multiple of 8), staged stores (n odd, beta 0), pair stores
// (beta != 0), split-K through workspace (C, or C^T written transposed) and summed in a cluster,
// ping-pong; bias per row and column in f32 and bf16; a column-major call; two batches.
TEST(FusedEpilogue, Level8EveryStorePathAndActivation) {
  for (Activation act : kActivations) {
    run_case({DType::BF16, DType::BF16, Math::Fp32, Layout::RowMajor, Op::N, Op::T, 136, 264, 96, 2, BiasKind::PerColumn,
              DType::F32, act, 0.0f, "wgmma:128x256x64:s4"});
    run_case({DType::BF16, DType::F32, Math::Fp32, Layout::RowMajor, Op::N, Op::N, 130, 257, 96, 1, BiasKind::PerRow,
              DType::F32, act, 0.0f, "wgmma:128x128x64:s6:pp"});
    run_case({DType::F16, DType::F16, Math::Fp32, Layout::ColMajor, Op::T, Op::N, 129, 200, 200, 2, BiasKind::PerRow,
              DType::F16, act, 0.5f, "wgmma:128x256x64:s4:c2"});
    run_case({DType::BF16, DType::BF16, Math::Fp32, Layout::RowMajor, Op::N, Op::N, 100, 136, 700, 1,
              BiasKind::PerColumn, DType::BF16, act, 0.0f, "wgmma:128x128x64:s4:k4"});
    run_case({DType::BF16, DType::BF16, Math::Fp32, Layout::RowMajor, Op::T, Op::T, 100, 72, 700, 2, BiasKind::PerRow,
              DType::F32, act, -1.0f, "wgmma:128x128x64:s4:kc2"});
    run_case({DType::BF16, DType::BF16, Math::Fp32, Layout::RowMajor, Op::N, Op::N, 200, 400, 136, 1,
              BiasKind::PerColumn, DType::BF16, act, 0.0f, "wgmma:128x192x64:s4"});
    run_case({DType::F16, DType::F16, Math::Fp32, Layout::RowMajor, Op::N, Op::T, 400, 136, 136, 2, BiasKind::PerRow,
              DType::F32, act, 0.0f, "wgmma:192x128x64:s4"});
    // C^T computed (":t"): the reduction applies C's bias, along C's rows or columns, as it writes C.
    run_case({DType::BF16, DType::BF16, Math::Fp32, Layout::RowMajor, Op::N, Op::T, 40, 264, 700, 2,
              BiasKind::PerColumn, DType::F32, act, 0.0f, "wgmma:128x64x64:s8:k4:t"});
    run_case({DType::F16, DType::F32, Math::Fp32, Layout::ColMajor, Op::N, Op::N, 24, 300, 520, 1, BiasKind::PerRow,
              DType::F32, act, 0.5f, "wgmma:128x128x64:s4:k2:t"});
    // ... and in one k slice, the kernel's stores applying C's bias on C (TF32 reading B as the
    // register A).
    run_case({DType::F32, DType::F32, Math::Tf32, Layout::RowMajor, Op::N, Op::N, 140, 136, 80, 2, BiasKind::PerColumn,
              DType::F32, act, 0.0f, "wgmma-tf32:128x128x32:s4:t"});
    run_case({DType::F32, DType::F32, Math::Tf32, Layout::ColMajor, Op::T, Op::N, 70, 200, 96, 1, BiasKind::PerRow,
              DType::F32, act, 0.5f, "wgmma-tf32:128x256x32:s4:t"});
    // ... and summed in the cluster on 64-row tiles, which writes C transposed with C's bias; 64 x 32
    // as stored, the column bias staged for 32 columns (ColumnBiasRows<32>).
    const Layout row = Layout::RowMajor;
    for (const EpilogueCase& t : std::vector<EpilogueCase>{
             {DType::BF16, DType::BF16, Math::Fp32, row, Op::N, Op::T, 24, 300, 1500, 2, BiasKind::PerColumn,
              DType::BF16, act, 0.0f, "wgmma:64x32x64:s12:kc2:t"},
             {DType::F16, DType::F32, Math::Fp32, Layout::ColMajor, Op::T, Op::N, 48, 264, 900, 1, BiasKind::PerRow,
              DType::F32, act, 0.5f, "wgmma:64x64x64:s13:kc2:t"},
             {DType::BF16, DType::BF16, Math::Fp32, row, Op::N, Op::T, 300, 30, 200, 1, BiasKind::PerColumn,
              DType::F32, act, 0.0f, "wgmma:64x32x64:s12"}})
      run_case(t);
  }
}

TEST(FusedEpilogue, Fp32Skinny16AndUnfusedFamilies) {
  for (Activation act : {Activation::Relu, Activation::GeluErf, Activation::Silu}) {
    run_case({DType::F32, DType::F32, Math::Fp32, Layout::RowMajor, Op::N, Op::N, 140, 136, 80, 2, BiasKind::PerColumn,
              DType::F32, act, 0.0f, "wgmma-3xtf32:128x128x32:s4"});
    run_case({DType::F32, DType::F32, Math::Tf32, Layout::ColMajor, Op::N, Op::T, 140, 136, 80, 1, BiasKind::PerRow,
              DType::F32, act, 0.0f, "wgmma-tf32:128x256x32:s4"});
    // Families that do not fuse: the product, then the elementwise pass (Auto on FFMA, ladder levels,
    // level 7's tiles whole, in K slices and with a stream-K tail, FFMA tiles in K slices, GEMV).
    run_case({DType::F32, DType::F32, Math::FfmaOnly, Layout::RowMajor, Op::N, Op::T, 70, 90, 50, 2, BiasKind::PerRow,
              DType::F32, act, 0.5f, ""});
    run_case({DType::F32, DType::F32, Math::Fp32, Layout::ColMajor, Op::T, Op::N, 70, 90, 50, 1, BiasKind::PerColumn,
              DType::F32, act, 0.0f, "ladder:06-warp-tiled"});
    run_case({DType::F32, DType::F32, Math::Fp32, Layout::RowMajor, Op::N, Op::N, 300, 260, 200, 0, BiasKind::PerColumn,
              DType::F32, act, 0.5f, "ladder:07-mma-tf32x3"});
    run_case({DType::F32, DType::F32, Math::Fp32, Layout::RowMajor, Op::N, Op::T, 130, 250, 400, 1, BiasKind::PerRow,
              DType::F32, act, 0.0f, "tiled:64x64x32:w32x32:tf32x3:s4:b2:k3:hilbert"});
    run_case({DType::F32, DType::F32, Math::Fp32, Layout::ColMajor, Op::N, Op::N, 200, 300, 300, 2, BiasKind::PerColumn,
              DType::F32, act, 1.0f, "tiled:64x128x32:w32x64:tf32x3c4:s3:b2:tail3:hilbert"});
    run_case({DType::F32, DType::F32, Math::FfmaOnly, Layout::RowMajor, Op::T, Op::T, 190, 100, 300, 0,
              BiasKind::PerColumn, DType::F32, act, 0.0f, "tiled:64x64x16:w32x32:t8x4:s3:b6:k3:hilbert"});
    for (const char* level : {"ladder:1", "ladder:3", "ladder:5"})
      run_case({DType::F32, DType::F32, Math::FfmaOnly, Layout::RowMajor, Op::N, Op::N, 70, 90, 50, 1, BiasKind::PerRow,
                DType::F32, act, 0.5f, level});
    run_case({DType::F32, DType::F32, Math::FfmaOnly, Layout::RowMajor, Op::N, Op::T, 4, 300, 500, 0, BiasKind::PerColumn,
              DType::F32, act, 0.5f, "gemv-rows:s4:k2"});
    // skinny16 fuses it: m short (C's rows are X's), and n short (C's rows are W's lines), beta 0.5.
    run_case({DType::BF16, DType::BF16, Math::Fp32, Layout::RowMajor, Op::N, Op::T, 8, 300, 256, 1, BiasKind::PerColumn,
              DType::BF16, act, 0.0f, "skinny16"});
    run_case({DType::F16, DType::F16, Math::Fp32, Layout::RowMajor, Op::N, Op::N, 300, 8, 256, 1, BiasKind::PerRow,
              DType::F32, act, 0.5f, "skinny16:k2"});
    run_case({DType::BF16, DType::F32, Math::Fp32, Layout::ColMajor, Op::N, Op::N, 304, 5, 200, 1, BiasKind::PerColumn,
              DType::F32, act, 0.0f, "skinny16"});
  }
  // The quick return (alpha 0 through k = 0): C = activation(beta * C + bias).
  run_case({DType::BF16, DType::F32, Math::Fp32, Layout::RowMajor, Op::N, Op::N, 33, 17, 0, 2, BiasKind::PerColumn,
            DType::F32, Activation::GeluTanh, 0.5f, ""});
}

// The activations over their whole range, special values included: C = act(A * 1) with k = 1 (the
// product exact), A's column from -1e30 through the tails (|x| up to 20) to +1e30, +-Inf, NaN and a
// subnormal, f32 output: within 2^-14 of the double value (the approximate exp2 and erfc's fit stay
// under 2^-16) or 1e-36 (a result below |x| 2^-126 is a zero of x's sign: GELU(tanh) of -10 is
// -2.9e-38), NaN where the double formula gives NaN (GELU and SiLU of -Inf, as torch's).
// Level 8 (in registers) and a family that does not fuse (the pass) share the device functions.
TEST(FusedEpilogue, ActivationsOverTheirWholeRange) {
  std::vector<float> xs = {-1e30f, -INFINITY, INFINITY, NAN, 1e30f, 1e-40f, -1e-40f, 0.0f, -0.0f};
  for (int i = -400; i <= 400; ++i) xs.push_back(i * 0.05f);
  for (float& x : xs) x = round_to(x, DType::BF16);  // exact in both input types
  const int64_t m = static_cast<int64_t>(xs.size()), n = 8;
  DeviceBuffer<float> c(m * n);
  for (DType in : {DType::BF16, DType::F32}) {
    const int bytes = dtype_bytes(in);
    std::vector<unsigned char> ha(m * bytes), hb(n * bytes);
    for (int64_t i = 0; i < m; ++i) store_value(&ha[i * bytes], xs[i], in);
    for (int64_t j = 0; j < n; ++j) store_value(&hb[j * bytes], 1.0f, in);
    DeviceBuffer<unsigned char> a(ha.size()), b(hb.size());
    a.upload(ha);
    b.upload(hb);
    for (Activation act : kActivations) {
      GemmArgs g;
      g.m = m;
      g.n = n;
      g.k = 1;
      g.a = {in, a.get(), 1};
      g.b = {in, b.get(), n};
      g.c = {DType::F32, c.get(), n};
      g.epilogue.activation = act;
      GemmOptions options;  // level 8 for bf16; the ladder's FFMA level and the pass for f32
      options.config = in == DType::BF16 ? "wgmma:128x128x64:s4" : "ladder:06-warp-tiled";
      SCOPED_TRACE(options.config + " " + to_string(act));
      gemm(g, nullptr, options);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const std::vector<float> got = c.download();
      int bad = 0;
      for (int64_t i = 0; i < m && bad < 5; ++i) {
        const double want = activate(xs[i], act);
        for (int64_t j = 0; j < n && bad < 5; ++j) {
          const double v = got[i * n + j];
          const bool ok = std::isnan(want) ? std::isnan(v)
                                           : v == want || std::fabs(v - want) <= std::ldexp(std::fabs(want), -14) + 1e-36;
          if (!ok) ++bad, ADD_FAILURE() << "act(" << xs[i] << ") = " << v << ", want " << want;
        }
      }
    }
  }
}

TEST(FusedEpilogue, SmallOddShapes) {  // the sanitizer set (run_sanitizer.sh)
  run_case({DType::BF16, DType::BF16, Math::Fp32, Layout::RowMajor, Op::N, Op::T, 7, 16, 5, 2, BiasKind::PerColumn,
            DType::BF16, Activation::GeluErf, 0.0f, "wgmma:128x128x64:s4"});
  run_case({DType::F16, DType::F32, Math::Fp32, Layout::ColMajor, Op::N, Op::N, 9, 13, 70, 1, BiasKind::PerRow, DType::F32,
            Activation::Silu, 0.0f, "wgmma:128x128x64:s4:k2"});
}

TEST(FusedEpilogue, BadArgumentsAreRefusedBeforeAnythingIsWritten) {
  DeviceBuffer<float> a(64 * 64), b(64 * 64), c(64 * 64), bias(65);
  ASSERT_EQ(cudaMemset(c.get(), 0x7f, c.size() * sizeof(float)), cudaSuccess);
  const std::vector<float> before = c.download();
  GemmArgs args;
  args.m = args.n = args.k = 64;
  args.a = {DType::F32, a.get(), 64};
  args.b = {DType::F32, b.get(), 64};
  args.c = {DType::F32, c.get(), 64};
  auto refused = [&](GemmArgs g, const std::string& what) {
    try {
      gemm(g);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  GemmArgs g = args;
  g.epilogue.bias_kind = BiasKind::PerRow;
  refused(g, "args.epilogue.bias is null with args.epilogue.bias_kind = row");
  g.epilogue.bias = reinterpret_cast<const char*>(bias.get()) + 2;
  refused(g, "args.epilogue.bias is not aligned to its 4-byte elements");
  g.epilogue.bias = bias.get();
  g.epilogue.bias_type = DType::BF16;
  refused(g, "args.epilogue.bias_type = bf16: the bias is f32 or C's type (f32)");
  g.epilogue.bias_type = DType::F32;
  g.epilogue.bias = c.get() + 10;
  refused(g, "args.c.data overlaps args.epilogue.bias");
  g = args;
  g.epilogue.activation = static_cast<Activation>(9);
  refused(g, "args.epilogue.activation = 9 is not an Activation value");
  g = args;
  g.epilogue.bias_kind = static_cast<BiasKind>(3);
  refused(g, "args.epilogue.bias_kind = 3 is not a BiasKind value");
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(c.download(), before);
}

}  // namespace
}  // namespace tilegemm
