// Ladder level 8 (family wgmma, kernels/gemm/08_wgmma_tma.cuh): bf16 and f16 products with f32
// accumulation through the typed entry, against an FP64 reference computed from the same 16-bit
// inputs: both layouts x four op combinations, TMA-aligned and unaligned operands (the copy
// producer), C in the input type and in f32, alpha and beta (beta = 0 over a NaN C), the standard
// shapes (empty, k = 0, primes, 4095 x 4097 x 4093, skinny, k = 65536), everything outside the result
// untouched; mixed input types refused before launch.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "core/device_buffer.hpp"
#include "dense/matrix_extent.hpp"
#include "ref/reference.hpp"
#include "tilegemm/tilegemm.hpp"
#include "typed_values.hpp"

namespace tilegemm {
namespace {

struct WgmmaCase {
  DType in, out;
  Layout layout;
  Op op_a, op_b;
  int64_t m, n, k;
  int64_t pad;     // added to every leading dimension (not a multiple of 8: rows off 16 bytes, the copy producer)
  int64_t offset;  // elements every matrix starts into its buffer (odd: addresses off 16 bytes)
  float alpha, beta;
  std::string config;  // "" = Auto
};

void run_case(const WgmmaCase& t) {
  SCOPED_TRACE(std::to_string(t.m) + "x" + std::to_string(t.n) + "x" + std::to_string(t.k) + " " + to_string(t.in) +
               "->" + to_string(t.out) + (t.layout == Layout::RowMajor ? " row " : " col ") +
               (t.op_a == Op::N ? "N" : "T") + (t.op_b == Op::N ? "N" : "T") + " pad " + std::to_string(t.pad) +
               " offset " + std::to_string(t.offset) + " " + t.config);
  const StoredOperands s = stored_shapes(t.op_a, t.op_b, t.m, t.n, t.k);
  const int64_t lda = s.a.min_ld(t.layout) + t.pad, ldb = s.b.min_ld(t.layout) + t.pad,
                ldc = s.c.min_ld(t.layout) + t.pad;
  const size_t size_a = t.offset + s.a.extent(t.layout, lda), size_b = t.offset + s.b.extent(t.layout, ldb),
               size_c = t.offset + s.c.extent(t.layout, ldc);
  std::mt19937 rng(static_cast<unsigned>(t.m * 31 + t.n * 7 + t.k + t.pad));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint16_t> ha(size_a), hb(size_b);
  std::vector<float> fa(size_a), fb(size_b);
  for (size_t i = 0; i < size_a; ++i) fa[i] = from_bits(ha[i] = to_bits(dist(rng), t.in), t.in);
  for (size_t i = 0; i < size_b; ++i) fb[i] = from_bits(hb[i] = to_bits(dist(rng), t.in), t.in);
  const bool out16 = t.out != DType::F32;
  // C before the call: NaN where beta = 0 (it must not be read), every element outside the m x n
  // result too (it must stay as it was).
  std::vector<float> c_old(size_c);
  for (float& v : c_old) v = t.beta == 0.0f ? NAN : dist(rng);
  std::vector<uint16_t> hc16(size_c);
  if (out16)
    for (size_t i = 0; i < size_c; ++i) c_old[i] = from_bits(hc16[i] = to_bits(c_old[i], t.out), t.out);

  DeviceBuffer<uint16_t> a(std::max<size_t>(size_a, 1)), b(std::max<size_t>(size_b, 1));
  if (size_a) a.upload(ha);
  if (size_b) b.upload(hb);
  DeviceBuffer<uint16_t> c16(out16 ? std::max<size_t>(size_c, 1) : 1);
  DeviceBuffer<float> c32(out16 ? 1 : std::max<size_t>(size_c, 1));
  if (size_c) {
    if (out16) c16.upload(hc16);
    else c32.upload(c_old);
  }
  GemmArgs args = product_args(t.layout, t.op_a, t.op_b, t.m, t.n, t.k);
  args.a = {t.in, a.get() + t.offset, lda, 0};
  args.b = {t.in, b.get() + t.offset, ldb, 0};
  void* c_data = out16 ? static_cast<void*>(c16.get() + t.offset) : static_cast<void*>(c32.get() + t.offset);
  args.c = {t.out, c_data, ldc, 0};
  args.epilogue.alpha = t.alpha;
  args.epilogue.beta = t.beta;
  GemmOptions options;
  options.config = t.config;
  if (t.m > 0 && t.n > 0 && t.k > 0 && t.alpha != 0.0f) {
    const std::string family = explain_choice(args, options).family;
    EXPECT_TRUE(family == "wgmma" || family == "skinny16") << family;  // the 16-bit families
  }
  gemm(args, nullptr, options);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  if (size_c == 0) return;

  std::vector<float> got(size_c);
  if (out16) {
    const std::vector<uint16_t> raw = c16.download();
    for (size_t i = 0; i < size_c; ++i) got[i] = from_bits(raw[i], t.out);
  } else {
    got = c32.download();
  }
  auto a_at = [&](int64_t i, int64_t l) {
    return fa[t.offset + (t.op_a == Op::N ? stored_index(t.layout, i, l, lda) : stored_index(t.layout, l, i, lda))];
  };
  auto b_at = [&](int64_t l, int64_t j) {
    return fb[t.offset + (t.op_b == Op::N ? stored_index(t.layout, l, j, ldb) : stored_index(t.layout, j, l, ldb))];
  };
  // Every row of small products; of large ones the first, the last and 30 random rows, all columns.
  std::vector<int64_t> rows;
  if (t.m * t.n * std::max<int64_t>(t.k, 1) <= (int64_t(1) << 26)) {
    for (int64_t i = 0; i < t.m; ++i) rows.push_back(i);
  } else {
    rows = {0, t.m - 1};
    for (int r = 0; r < 30; ++r) rows.push_back(static_cast<int64_t>(rng() % t.m));
  }
  const double u = ref::unit_roundoff(t.out), gamma = 2.0 * t.k * std::ldexp(1.0, -24);
  std::vector<double> row_a(t.k);
  int bad = 0;
  for (int64_t i : rows) {
    for (int64_t l = 0; l < t.k; ++l) row_a[l] = a_at(i, l);
    for (int64_t j = 0; j < t.n && bad < 5; ++j) {
      double dot = 0, mag = 0;
      for (int64_t l = 0; l < t.k; ++l) {
        const double p = row_a[l] * b_at(l, j);
        dot += p;
        mag += std::fabs(p);
      }
      const size_t c_at = static_cast<size_t>(t.offset + stored_index(t.layout, i, j, ldc));
      const double want = t.alpha * dot + (t.beta == 0.0f ? 0.0 : double(t.beta) * c_old[c_at]);
      const double tol = 2.0 * u * std::fabs(want) + std::fabs(t.alpha) * gamma * mag +
                         (t.beta == 0.0f ? 0.0 : std::ldexp(std::fabs(double(t.beta) * c_old[c_at]), -23)) + 1e-30;
      if (!(std::fabs(got[c_at] - want) <= tol)) {
        ++bad;
        ADD_FAILURE() << "C(" << i << ", " << j << ") = " << got[c_at] << ", want " << want << " (tolerance " << tol
                      << ")";
      }
    }
  }
  // Everything outside the m x n result (the offset, the padding past each stored row) is untouched.
  std::vector<bool> result(size_c, false);
  for (int64_t i = 0; i < t.m; ++i)
    for (int64_t j = 0; j < t.n; ++j) result[t.offset + stored_index(t.layout, i, j, ldc)] = true;
  for (size_t e = 0; e < size_c; ++e) {
    if (result[e]) continue;
    const bool same = std::isnan(c_old[e]) ? std::isnan(got[e]) : got[e] == c_old[e];
    if (!same) {
      ADD_FAILURE() << "C element " << e << " outside the result written";
      return;
    }
  }
}

const Layout kLayouts[] = {Layout::RowMajor, Layout::ColMajor};
const Op kOps[] = {Op::N, Op::T};

// Every layout and op combination, 16-byte aligned operands (TMA) and operands off 16 bytes in their
// leading dimension and address (the copy producer), bf16 and f16, outputs in the input type and f32.
TEST(Wgmma, EveryLayoutOpAndAlignmentAgainstTheFp64Reference) {
  for (DType in : {DType::BF16, DType::F16})
    for (Layout layout : kLayouts)
      for (Op op_a : kOps)
        for (Op op_b : kOps) {
          const DType out = op_a == op_b ? in : DType::F32;
          run_case({in, out, layout, op_a, op_b, 257, 383, 200, 0, 0, 1.0f, 0.0f, ""});
          run_case({in, out, layout, op_a, op_b, 200, 129, 131, 3, 1, 1.5f, -0.5f, ""});
        }
}

TEST(Wgmma, BothTilesOnSeveralTilesPerBlock) {
  for (const char* config : {"wgmma:128x128x64:s4", "wgmma:128x192x64:s4", "wgmma:192x128x64:s4", "wgmma:128x256x64:s4",
                             "wgmma:128x64x64:s8", "wgmma:128x256x64:s4:c2", "wgmma:128x128x64:s6:pp",
                             "wgmma:128x128x64:s6:pp:c2"})
    for (Op op_a : kOps)
      for (Op op_b : kOps) {
        run_case({DType::BF16, DType::BF16, Layout::RowMajor, op_a, op_b, 2048, 1280, 384, 0, 0, 1.0f, 0.0f, config});
        run_case({DType::F16, DType::F32, Layout::ColMajor, op_a, op_b, 1536, 1100, 200, 5, 3, 1.0f, 1.0f, config});
      }
}

// The standard shapes: empty and one-element dimensions, k = 0 and alpha = 0 (C = beta C without
// reading A and B), primes, 4095 x 4097 x 4093, skinny and long-k products, padded leading
// dimensions, beta = 0 over NaN.
TEST(Wgmma, StandardShapes) {
  const DType bf = DType::BF16, h = DType::F16, f = DType::F32;
  const Layout row = Layout::RowMajor, col = Layout::ColMajor;
  const std::vector<WgmmaCase> cases = {
      {bf, bf, row, Op::N, Op::T, 0, 64, 64, 0, 0, 1.0f, 0.0f, ""},
      {bf, bf, row, Op::N, Op::T, 64, 0, 64, 0, 0, 1.0f, 0.0f, ""},
      {bf, bf, row, Op::N, Op::T, 33, 65, 0, 0, 0, 1.0f, 0.0f, ""},     // k = 0, beta = 0: zeros over NaN
      {h, h, col, Op::T, Op::N, 33, 65, 0, 2, 1, 1.0f, 0.5f, ""},       // k = 0: C = beta C
      {bf, f, row, Op::N, Op::N, 40, 50, 60, 0, 0, 0.0f, 2.0f, ""},     // alpha = 0
      {bf, bf, row, Op::N, Op::T, 1, 1, 1, 0, 0, 1.0f, 0.0f, ""},
      {bf, bf, col, Op::T, Op::T, 1, 4096, 4096, 0, 0, 1.0f, 0.0f, ""},  // decode
      {h, h, row, Op::N, Op::N, 4096, 1, 4096, 0, 0, 1.0f, 0.0f, ""},    // one column
      {bf, bf, row, Op::N, Op::T, 16, 4096, 4096, 0, 0, 1.0f, 0.0f, ""},
      {bf, bf, row, Op::T, Op::N, 31, 97, 61, 0, 0, 1.0f, 0.0f, ""},     // primes
      {h, f, col, Op::N, Op::T, 127, 251, 509, 0, 0, 1.0f, 0.0f, ""},
      {bf, bf, row, Op::N, Op::T, 4095, 4097, 4093, 0, 0, 1.0f, 0.0f, ""},
      {bf, bf, row, Op::N, Op::N, 4095, 4097, 4093, 0, 0, 1.0f, 0.0f, ""},
      {bf, f, row, Op::N, Op::T, 64, 128, 65536, 0, 0, 1.0f, 0.0f, ""},  // long k
      {h, h, col, Op::T, Op::N, 96, 80, 65536, 8, 0, 1.0f, 0.0f, ""},
      {bf, bf, row, Op::N, Op::T, 300, 500, 256, 64, 0, 1.0f, 0.0f, ""},  // padded, still aligned
  };
  for (const WgmmaCase& t : cases) run_case(t);
}

// Small odd shapes in every layout, op and alignment: the cases compute-sanitizer runs (memcheck:
// the copy producer never reads outside A and B; racecheck: the stages' handoff).
TEST(Wgmma, SmallOddShapes) {
  for (Layout layout : kLayouts)
    for (Op op_a : kOps)
      for (Op op_b : kOps) {
        run_case({DType::BF16, DType::BF16, layout, op_a, op_b, 5, 7, 3, 0, 0, 1.0f, 0.0f, ""});
        run_case({DType::BF16, DType::BF16, layout, op_a, op_b, 17, 9, 33, 1, 1, 1.0f, 0.0f, ""});
        run_case({DType::F16, DType::F32, layout, op_a, op_b, 65, 130, 70, 1, 3, 1.0f, 1.0f, ""});
        run_case({DType::F16, DType::F16, layout, op_a, op_b, 72, 136, 64, 0, 0, 1.0f, 0.0f, ""});
        const char* c2 = "wgmma:128x256x64:s4:c2";
        const char* pp = "wgmma:128x128x64:s6:pp";
        const char* pp_c2 = "wgmma:128x128x64:s6:pp:c2";
        run_case({DType::BF16, DType::BF16, layout, op_a, op_b, 130, 9, 70, 1, 0, 1.0f, 1.0f, c2});
        run_case({DType::F16, DType::F16, layout, op_a, op_b, 260, 140, 70, 0, 1, 1.0f, 1.0f, pp_c2});
        run_case({DType::BF16, DType::BF16, layout, op_a, op_b, 256, 128, 64, 0, 0, 1.0f, 0.0f, pp});  // staged stores
        // 128 x 192: the last store pass covers half its 256 bytes (16-bit C), TMA and staged stores.
        const char* w192 = "wgmma:128x192x64:s4";
        run_case({DType::BF16, DType::BF16, layout, op_a, op_b, 136, 392, 72, 0, 0, 1.0f, 0.0f, w192});
        run_case({DType::F16, DType::F32, layout, op_a, op_b, 70, 197, 40, 1, 1, 1.0f, 1.0f, w192});
        // 192 x 128: three consumer warpgroups, the third's rows past m on a ragged tile.
        const char* r192 = "wgmma:192x128x64:s4";
        run_case({DType::BF16, DType::BF16, layout, op_a, op_b, 200, 136, 72, 0, 0, 1.0f, 0.0f, r192});
        run_case({DType::F16, DType::F32, layout, op_a, op_b, 150, 70, 40, 1, 1, 1.0f, 1.0f, r192});
        // 128 x 64: one store pass, half of it for 16-bit C; ragged columns in the tile's one TMA box.
        const char* w64 = "wgmma:128x64x64:s8";
        run_case({DType::BF16, DType::BF16, layout, op_a, op_b, 136, 200, 72, 0, 0, 1.0f, 0.0f, w64});
        run_case({DType::F16, DType::F32, layout, op_a, op_b, 70, 37, 40, 1, 1, 1.0f, 1.0f, w64});
        // C^T through the reduction, written transposed: C's rows ragged against its 4-column quads.
        run_case({DType::BF16, DType::F32, layout, op_a, op_b, 7, 150, 200, 1, 1, 1.0f, 1.0f, "wgmma:128x64x64:s8:k2:t"});
        // ... and summed in the cluster, written transposed by the blocks (2 and 4 slices).
        run_case({DType::F16, DType::F16, layout, op_a, op_b, 9, 140, 300, 0, 0, 1.0f, 0.0f, "wgmma:128x64x64:s8:kc2:t"});
        run_case({DType::BF16, DType::BF16, layout, op_a, op_b, 5, 70, 600, 1, 1, 1.0f, 1.0f, "wgmma:128x128x64:s4:kc4:t"});
        // 64 x 64 tiles (one consumer warpgroup, either B orientation): as stored and as C^T.
        run_case({DType::BF16, DType::F32, layout, op_a, op_b, 70, 90, 200, 1, 1, 1.0f, 1.0f, "wgmma:64x64x64:s13"});
        run_case({DType::F16, DType::F16, layout, op_a, op_b, 37, 150, 300, 0, 0, 1.0f, 0.0f, "wgmma:64x64x64:s13:kc2:t"});
        // 64 x 128 tiles over few rows as stored: rows past m in the one consumer's tile, ragged
        // columns, 16-bit C through the staged stores and f32 C through TMA's.
        run_case({DType::BF16, DType::BF16, layout, op_a, op_b, 40, 300, 200, 1, 1, 1.0f, 1.0f, "wgmma:64x128x64:s8"});
        run_case({DType::F16, DType::F32, layout, op_a, op_b, 64, 256, 72, 0, 0, 1.0f, 0.0f, "wgmma:64x128x64:s8"});
      }
  // 64 x 32 tiles (one consumer warpgroup) where B's tile is K-major (a 32-column MN-major tile would
  // be half of a 64-column box): as stored (16-bit C through the staged stores, f32 C through TMA's),
  // and as C^T (A's rows K-major), through workspace and summed in the cluster.
  const Layout row = Layout::RowMajor;
  const char* w32 = "wgmma:64x32x64:s12";
  run_case({DType::BF16, DType::BF16, row, Op::N, Op::T, 100, 40, 72, 0, 0, 1.0f, 0.0f, w32});  // 80-byte rows
  run_case({DType::F16, DType::F32, row, Op::N, Op::T, 70, 37, 40, 1, 1, 1.0f, 1.0f, w32});
  run_case({DType::BF16, DType::F32, row, Op::N, Op::T, 130, 64, 64, 0, 0, 1.0f, 0.0f, w32});
  for (Op op_b : kOps) {
    run_case({DType::BF16, DType::BF16, row, Op::N, op_b, 7, 150, 200, 0, 0, 1.0f, 0.0f, "wgmma:64x32x64:s12:k2:t"});
    run_case({DType::F16, DType::F32, row, Op::N, op_b, 33, 70, 300, 1, 1, 1.0f, 1.0f, "wgmma:64x32x64:s12:kc2:t"});
  }
}

// Split-K (configs ":k<N>"): the slices' FP32 partial sums reduced in slice order, alpha and beta
// applied once; k not a multiple of the slices, fewer k steps than asked slices, every layout.
TEST(Wgmma, SplitKAgainstTheFp64Reference) {
  const DType bf = DType::BF16, h = DType::F16, f = DType::F32;
  const Layout row = Layout::RowMajor, col = Layout::ColMajor;
  const std::vector<WgmmaCase> cases = {
      {bf, bf, row, Op::N, Op::T, 256, 256, 4096, 0, 0, 1.0f, 0.0f, "wgmma:128x128x64:s4:k4"},
      {bf, f, row, Op::N, Op::N, 200, 300, 1000, 0, 0, 1.5f, -0.5f, "wgmma:128x256x64:s4:k8"},  // beta reads C
      {h, h, col, Op::T, Op::T, 129, 65, 4093, 3, 1, 1.0f, 0.0f, "wgmma:128x128x64:s4:k16"},   // packed, ragged
      {h, f, row, Op::T, Op::N, 64, 64, 65536, 0, 0, 1.0f, 0.0f, "wgmma:128x128x64:s4:k16"},
      {bf, bf, row, Op::N, Op::T, 100, 100, 100, 0, 0, 1.0f, 2.0f, "wgmma:128x128x64:s4:k16"},  // 2 k steps: 2 slices
      {bf, bf, row, Op::N, Op::T, 520, 300, 3000, 0, 0, 1.0f, 0.0f, "wgmma:128x256x64:s4:c2:k4"},  // clusters
      {h, f, col, Op::T, Op::N, 300, 200, 5000, 1, 0, 1.0f, 1.0f, "wgmma:128x128x64:s6:pp:k8"},     // ping-pong
      {bf, bf, row, Op::N, Op::N, 700, 260, 2500, 0, 0, 1.0f, 0.0f, "wgmma:128x128x64:s6:pp:c2:k4"},
      {h, h, row, Op::N, Op::N, 300, 400, 3000, 0, 0, 1.0f, 0.0f, "wgmma:128x192x64:s4:k4"},
      {bf, f, row, Op::T, Op::N, 500, 300, 3000, 0, 0, 1.0f, 0.5f, "wgmma:192x128x64:s4:k4"},
      {h, h, row, Op::N, Op::N, 300, 100, 3000, 0, 0, 1.0f, 0.0f, "wgmma:128x64x64:s8:k4"},
  };
  for (const WgmmaCase& t : cases) run_case(t);
}

// C^T computed (":k<N>:t", transposed_problem): few rows against many lines run with the lines on the
// tile's rows, and the reduction (or the cluster, ":kc<N>:t") writes C^T's sums into C transposed.
// Every layout and op combination, C's rows ragged against the sums' 4 columns, beta reading C, f32 C,
// packed operands, 1 to 8 slices, 64-row tiles on the few-row products they are for.
TEST(Wgmma, TransposedSplitKAgainstTheFp64Reference) {
  const DType bf = DType::BF16, h = DType::F16, f = DType::F32;
  for (Layout layout : kLayouts)
    for (Op op_a : kOps)
      for (Op op_b : kOps) {
        run_case({bf, bf, layout, op_a, op_b, 32, 1000, 1024, 0, 0, 1.0f, 0.0f, "wgmma:128x64x64:s8:k4:t"});
        run_case({h, f, layout, op_a, op_b, 13, 263, 700, 3, 1, 1.5f, -0.5f, "wgmma:128x128x64:s4:k2:t"});
        run_case({bf, bf, layout, op_a, op_b, 64, 520, 3000, 0, 0, 1.0f, 0.0f, "wgmma:128x256x64:s4:c2:k8:t"});
        // Summed in the cluster (":kc<N>:t"): each block writes its share of C^T's rows into C's columns.
        run_case({bf, bf, layout, op_a, op_b, 32, 1000, 1024, 0, 0, 1.0f, 0.0f, "wgmma:128x64x64:s8:kc4:t"});
        run_case({h, f, layout, op_a, op_b, 13, 263, 1500, 3, 1, 1.5f, -0.5f, "wgmma:128x128x64:s4:kc8:t"});
        // 64 x 64 tiles for 33-64 rows (either B orientation).
        run_case({bf, bf, layout, op_a, op_b, 64, 4096, 4096, 0, 0, 1.0f, 0.0f, "wgmma:64x64x64:s13:kc2:t"});
        // ... and 17-64 rows against a long n as stored on 64 x 128 tiles (no C^T, for comparison).
        run_case({bf, bf, layout, op_a, op_b, 48, 11008, 4096, 0, 0, 1.0f, 0.0f, "wgmma:64x128x64:s8"});
      }
  run_case({h, h, Layout::RowMajor, Op::N, Op::T, 1, 4096, 4096, 0, 0, 1.0f, 0.0f, "wgmma:128x64x64:s8:k4:t"});
  run_case({bf, bf, Layout::RowMajor, Op::N, Op::N, 48, 11008, 4096, 0, 0, 1.0f, 0.0f, "wgmma:192x128x64:s4:k2:t"});
  run_case({bf, bf, Layout::RowMajor, Op::N, Op::T, 40, 300, 70, 0, 0, 1.0f, 2.0f, "wgmma:128x64x64:s8:k16:t"});
  run_case({bf, bf, Layout::RowMajor, Op::N, Op::N, 48, 11008, 4096, 0, 0, 1.0f, 0.0f, "wgmma:192x128x64:s4:kc2:t"});
  run_case({bf, bf, Layout::RowMajor, Op::N, Op::T, 40, 300, 700, 0, 0, 1.0f, 2.0f, "wgmma:192x128x64:s4:kc8:t"});
  // 64 x 32 tiles (A's rows K-major: B of C^T), 2 to 8 slices, the few-row products they are for.
  for (Op op_b : kOps) {
    run_case({bf, bf, Layout::RowMajor, Op::N, op_b, 32, 4096, 4096, 0, 0, 1.0f, 0.0f, "wgmma:64x32x64:s12:kc2:t"});
    run_case({h, f, Layout::RowMajor, Op::N, op_b, 29, 263, 1500, 3, 1, 1.5f, -0.5f, "wgmma:64x32x64:s12:k4:t"});
    run_case({bf, bf, Layout::RowMajor, Op::N, op_b, 17, 333, 3000, 0, 0, 1.0f, 1.0f, "wgmma:64x32x64:s12:kc8:t"});
    run_case({bf, f, Layout::RowMajor, Op::N, op_b, 24, 4096, 14336, 0, 0, 1.0f, 0.0f, "wgmma:64x32x64:s12:k2:t"});
  }
  // Shares of rows not a multiple of 4 (3 and 7 slices: k of 3 and 7 steps), beta reading C.
  run_case({bf, bf, Layout::RowMajor, Op::N, Op::T, 24, 300, 150, 0, 0, 1.0f, 1.0f, "wgmma:64x32x64:s12:kc4:t"});
  run_case({h, f, Layout::RowMajor, Op::N, Op::N, 30, 130, 440, 0, 0, 1.0f, -1.0f, "wgmma:64x64x64:s13:kc8:t"});
  run_case({h, f, Layout::RowMajor, Op::N, Op::T, 48, 1000, 14336, 3, 1, 1.5f, -0.5f, "wgmma:64x64x64:s13:k2:t"});
}

// Split-K summed inside a cluster (":kc<N>"): the slices of a tile are the blocks of one cluster and
// each block sums a share of the tile's rows over distributed shared memory. 2, 4 and 8 slices (8: 16
// rows a block), both tiles, every layout and op combination, ragged tiles, beta reading C, C in f32 and
// with an odd leading dimension (element stores), packed operands, fewer k steps than slices (a
// cluster of what is left), a run-time schedule; then the same products summed through workspace give
// the same bits (both add the slices in slice order).
TEST(Wgmma, SplitKSummedInAClusterAgainstTheFp64Reference) {
  const DType bf = DType::BF16, h = DType::F16, f = DType::F32;
  for (Layout layout : kLayouts)
    for (Op op_a : kOps)
      for (Op op_b : kOps) {
        run_case({bf, bf, layout, op_a, op_b, 300, 200, 1500, 0, 0, 1.0f, 0.0f, "wgmma:128x128x64:s4:kc4"});
        run_case({h, f, layout, op_a, op_b, 129, 257, 1000, 3, 1, 1.5f, -0.5f, "wgmma:128x256x64:s4:kc2"});
      }
  const Layout row = Layout::RowMajor, col = Layout::ColMajor;
  for (const WgmmaCase& t : std::vector<WgmmaCase>{
           {bf, bf, row, Op::N, Op::T, 1024, 768, 3072, 0, 0, 1.0f, 0.0f, "wgmma:128x128x64:s4:kc2"},
           {bf, f, row, Op::N, Op::N, 256, 256, 8192, 0, 0, 1.0f, 1.0f, "wgmma:128x128x64:s4:kc8"},
           {h, h, col, Op::T, Op::T, 100, 77, 4093, 1, 0, 1.0f, 0.0f, "wgmma:128x128x64:s4:kc8"},  // odd ldc
           {bf, bf, row, Op::N, Op::T, 64, 64, 300, 0, 0, 1.0f, 2.0f, "wgmma:128x128x64:s4:kc8"},  // 5 k steps: 2 slices
           {bf, bf, row, Op::N, Op::T, 200, 300, 1000, 0, 0, 1.0f, 0.0f, "wgmma:128x256x64:s3:kc4"},  // run time
           {bf, bf, row, Op::N, Op::N, 1024, 768, 3072, 0, 0, 1.0f, 0.0f, "wgmma:128x192x64:s4:kc2"},
           {h, f, row, Op::N, Op::T, 400, 300, 2000, 0, 0, 1.0f, 1.0f, "wgmma:192x128x64:s4:kc4"},  // 48 rows a block
           {bf, bf, row, Op::T, Op::N, 200, 260, 3000, 0, 0, 1.0f, 0.0f, "wgmma:192x128x64:s4:kc8"},  // 24 rows
           {bf, bf, row, Op::N, Op::N, 1024, 768, 3072, 0, 0, 1.0f, 0.0f, "wgmma:128x64x64:s8:kc2"},
           {h, f, row, Op::N, Op::T, 300, 100, 2000, 0, 0, 1.0f, 1.0f, "wgmma:128x64x64:s8:kc4"},
       })
    run_case(t);

  // The same bits as the workspace sum.
  const int64_t m = 333, n = 260, k = 2900;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint16_t> ha(m * k), hb(k * n);
  for (uint16_t& v : ha) v = to_bits(dist(rng), bf);
  for (uint16_t& v : hb) v = to_bits(dist(rng), bf);
  DeviceBuffer<uint16_t> a(ha.size()), b(hb.size());
  a.upload(ha);
  b.upload(hb);
  for (const char* split : {"k2", "k4", "k8"}) {
    std::vector<std::vector<float>> results;
    for (const std::string way : {":", ":kc"}) {
      DeviceBuffer<float> c(m * n);
      GemmArgs args;
      args.m = m;
      args.n = n;
      args.k = k;
      args.a = {bf, a.get(), k, 0};
      args.b = {bf, b.get(), n, 0};
      args.c = {f, c.get(), n, 0};
      GemmOptions options;
      options.config = "wgmma:128x128x64:s4" + way + (way == ":" ? split : split + 1);
      gemm(args, nullptr, options);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      results.push_back(c.download());
    }
    EXPECT_EQ(results[0], results[1]) << split;
  }
}

// Clusters of two sharing B's tile (":c2") and ping-pong consumers (":pp"): ragged tile rows (m = 385,
// 129, 1000), one k step, fewer stages' worth of k steps than the pipeline holds, every layout, op and
// alignment, beta reading C; then several units per block (the producer running across tiles, the
// ping-pong handover reused, split slices of unequal length on alternating warpgroups).
TEST(Wgmma, ClustersAndPingPongAgainstTheFp64Reference) {
  for (const char* config : {"wgmma:128x256x64:s4:c2", "wgmma:128x128x64:s6:pp", "wgmma:128x128x64:s6:pp:c2"})
    for (Layout layout : kLayouts)
      for (Op op_a : kOps)
        for (Op op_b : kOps) {
          run_case({DType::BF16, DType::BF16, layout, op_a, op_b, 385, 700, 64, 0, 0, 1.0f, 0.0f, config});
          run_case({DType::F16, DType::F32, layout, op_a, op_b, 129, 257, 131, 3, 1, 1.5f, -0.5f, config});
          run_case({DType::BF16, DType::F32, layout, op_a, op_b, 1000, 600, 520, 0, 0, 1.0f, 1.0f, config});
          // Interior tiles through the shared-memory store path (16-byte rows of C, beta = 0), f32 and f16.
          run_case({DType::BF16, DType::F32, layout, op_a, op_b, 512, 640, 128, 0, 0, 0.5f, 0.0f, config});
          run_case({DType::F16, DType::F16, layout, op_a, op_b, 384, 520, 192, 0, 0, 1.0f, 0.0f, config});
        }
  const DType bf = DType::BF16, f = DType::F32;
  const Layout row = Layout::RowMajor;
  for (const WgmmaCase& t : std::vector<WgmmaCase>{
           {bf, bf, row, Op::N, Op::T, 4096, 4096, 128, 0, 0, 1.0f, 0.0f, "wgmma:128x256x64:s4:c2"},
           {bf, bf, row, Op::N, Op::N, 3072, 2048, 64, 0, 0, 1.0f, 0.0f, "wgmma:128x128x64:s6:pp"},
           {bf, f, row, Op::T, Op::T, 2048, 2100, 192, 0, 0, 1.0f, 0.5f, "wgmma:128x128x64:s6:pp:c2"},
           {bf, bf, row, Op::N, Op::T, 2048, 2048, 2000, 0, 0, 1.0f, 0.0f, "wgmma:128x128x64:s6:pp:k8"},
       })
    run_case(t);
}

// Tiles that cross C's last row or column, written through the shared-memory rows (C's rows 16-byte
// aligned, beta = 0): columns not a multiple of 8 (the last 16-byte piece element by element), n below
// one tile, the split-K partial sums of ragged tiles, each schedule.
TEST(Wgmma, StagedStoresOnRaggedTiles) {
  const DType bf = DType::BF16, h = DType::F16, f = DType::F32;
  for (const char* config : {"wgmma:128x256x64:s4", "wgmma:128x256x64:s4:c2", "wgmma:128x128x64:s6:pp",
                             "wgmma:128x128x64:s4:k2", "wgmma:128x256x64:s4:k4", "wgmma:128x128x64:s4:kc4"})
    for (const WgmmaCase& t : std::vector<WgmmaCase>{
             {bf, bf, Layout::RowMajor, Op::N, Op::T, 200, 250, 320, 6, 0, 1.0f, 0.0f, config},  // ldc 256
             {bf, f, Layout::RowMajor, Op::N, Op::N, 1000, 64, 64, 0, 0, 1.0f, 0.0f, config},
             {h, h, Layout::ColMajor, Op::T, Op::T, 300, 100, 200, 4, 0, 0.5f, 0.0f, config},  // ldc 304
             {bf, f, Layout::RowMajor, Op::T, Op::N, 129, 300, 130, 0, 0, 1.0f, 0.0f, config},
         })
      run_case(t);
}

// Schedules compiled at run time (NVRTC, the template of the compiled ones): five stages of 128 x 128
// in every op combination, 128 x 256 in clusters with three stages, ping-pong with three, 128 x 192 in
// clusters (B transposed: each block loads 96 of its K-major lines), 128 x 64 in six stages and in
// clusters (32 lines a block), and a compiled schedule's run-time twin; ragged edges, offsets and
// padded rows, beta reading C.
TEST(Wgmma, RunTimeSchedulesAgainstTheFp64Reference) {
  const DType bf = DType::BF16, h = DType::F16, f = DType::F32;
  const Layout row = Layout::RowMajor;
  for (Op op_a : kOps)
    for (Op op_b : kOps) run_case({bf, bf, row, op_a, op_b, 385, 700, 200, 0, 0, 1.0f, 0.0f, "wgmma:128x128x64:s5"});
  for (const WgmmaCase& t : std::vector<WgmmaCase>{
           {bf, f, row, Op::N, Op::T, 1000, 600, 520, 0, 0, 1.0f, 1.0f, "wgmma:128x256x64:s3:c2"},
           {h, h, Layout::ColMajor, Op::T, Op::N, 129, 257, 131, 3, 1, 1.5f, -0.5f, "wgmma:128x128x64:s3:pp"},
           {bf, bf, row, Op::N, Op::N, 2048, 2048, 192, 0, 0, 1.0f, 0.0f, "wgmma:128x256x64:s4:jit"},
           {bf, bf, row, Op::N, Op::T, 1000, 900, 520, 0, 0, 1.0f, 0.0f, "wgmma:128x192x64:s4:c2"},
           {h, f, row, Op::T, Op::T, 385, 500, 131, 3, 1, 1.0f, 1.0f, "wgmma:128x192x64:s4:c2"},
           {bf, bf, row, Op::N, Op::N, 1000, 700, 520, 0, 0, 1.0f, 0.0f, "wgmma:192x128x64:s4:c2"},
           {bf, bf, row, Op::N, Op::N, 1000, 700, 520, 0, 0, 1.0f, 0.0f, "wgmma:128x64x64:s6"},
           {h, f, row, Op::T, Op::T, 385, 500, 131, 3, 1, 1.0f, 1.0f, "wgmma:128x64x64:s4:c2"},  // B K-major
       })
    run_case(t);
}

// Family skinny16 on decode products with K-major operands (x @ W^T), 1 to 4 rows, long k, both input
// types, outputs in the input type and f32, beta, offsets.
TEST(Skinny16, DecodeProductsAgainstTheFp64Reference) {
  const DType bf = DType::BF16, h = DType::F16, f = DType::F32;
  const Layout row = Layout::RowMajor, col = Layout::ColMajor;
  const std::vector<WgmmaCase> cases = {
      {bf, bf, row, Op::N, Op::T, 1, 4096, 4096, 0, 0, 1.0f, 0.0f, "skinny16"},  // decode
      {h, h, row, Op::N, Op::T, 2, 1000, 520, 0, 0, 1.0f, 0.0f, "skinny16"},
      {bf, f, row, Op::N, Op::T, 3, 333, 64, 8, 0, 0.5f, 2.0f, "skinny16"},     // beta reads C
      {h, f, row, Op::N, Op::T, 4, 2048, 1024, 0, 8, 1.0f, 0.0f, "skinny16"},   // offset by 16 bytes
      {bf, bf, row, Op::N, Op::T, 4, 777, 4104, 0, 0, 1.0f, 0.0f, "skinny16"},
      {bf, bf, row, Op::N, Op::T, 3000, 3, 256, 0, 0, 1.0f, 0.0f, "skinny16"},  // n short: B is X
      {h, h, col, Op::T, Op::N, 600, 4, 128, 16, 0, 1.0f, -1.0f, "skinny16"},   // column-major x^T W
      {bf, bf, row, Op::N, Op::T, 1, 8, 8, 0, 0, 1.0f, 0.0f, "skinny16"},
  };
  for (const WgmmaCase& t : cases) run_case(t);
}

// Family skinny16 (kernels/gemm/skinny_16bit.cuh): a short side of 1 to 16 rows in every layout and
// op combination, so that W is stored along k or along its lines and X is copied along k, along its
// rows or element by element (odd row counts); every X-row instantiation (8 and 16 slots), edge
// tiles of lines and k, split-K summed in a cluster, both input types, outputs in the input type and
// f32, beta.
TEST(Skinny16, EveryLayoutAndShortSideAgainstTheFp64Reference) {
  const DType bf = DType::BF16, h = DType::F16, f = DType::F32;
  for (const char* config : {"skinny16", "skinny16:k4"})
    for (Layout layout : kLayouts)
      for (Op op_a : kOps)
        for (Op op_b : kOps) {
          run_case({bf, bf, layout, op_a, op_b, 1, 1000, 1016, 0, 0, 1.0f, 0.0f, config});     // decode
          run_case({h, f, layout, op_a, op_b, 5, 1000, 1016, 0, 8, 0.5f, 2.0f, config});       // beta, offset 16 bytes
          run_case({bf, f, layout, op_a, op_b, 13, 520, 2048, 0, 0, 1.0f, 0.0f, config});      // 16 row slots
          run_case({h, h, layout, op_a, op_b, 16, 1032, 264, 0, 0, 1.0f, -1.0f, config});     // 16 rows
          run_case({bf, bf, layout, op_a, op_b, 1000, 3, 1016, 0, 0, 1.0f, 0.0f, config});     // n short: B is X
          run_case({bf, f, layout, op_a, op_b, 704, 11, 520, 0, 0, 1.0f, 0.0f, config});  // 16 slots
          run_case({h, h, layout, op_a, op_b, 7, 1001, 1009, 7, 0, 1.0f, 0.0f, config});       // ragged lines and k
        }
}

// Small odd shapes for the sanitizers (tests/gpu/run_sanitizer.sh): every layout and op combination,
// each form of X, alone and split over a cluster.
TEST(Skinny16, SmallOddShapes) {
  for (const char* config : {"skinny16", "skinny16:k2"})
    for (Layout layout : kLayouts)
      for (Op op_a : kOps)
        for (Op op_b : kOps) {
          run_case({DType::BF16, DType::BF16, layout, op_a, op_b, 3, 136, 200, 0, 0, 1.0f, 0.0f, config});
          run_case({DType::F16, DType::F32, layout, op_a, op_b, 136, 15, 136, 0, 0, 1.0f, 1.0f, config});
        }
}

// Auto on skinny products: decode, few tokens and few columns in both orientations of the long
// operand run on one of the 16-bit families and match the reference.
TEST(Skinny16, AutoOnModelShapes) {
  const DType bf = DType::BF16;
  for (Op op_b : kOps)
    for (const auto& [m, n, k] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
             {1, 4096, 4096}, {8, 6144, 4096}, {4096, 1, 4096}, {2048, 16, 4096}, {32, 4096, 1024}})
      run_case({bf, bf, Layout::RowMajor, Op::N, op_b, m, n, k, 0, 0, 1.0f, 0.0f, ""});
}

// The long operand must have 16-byte aligned rows: skinny16 named on an offset W is refused before
// launch, C untouched.
TEST(Skinny16, RefusesAnUnalignedLongOperand) {
  const int64_t m = 4, n = 512, k = 256;
  DeviceBuffer<uint16_t> a(m * k), b(k * n + 1);
  DeviceBuffer<float> c(m * n);
  std::vector<float> before(m * n, 7.0f);
  c.upload(before);
  GemmArgs args;
  args.m = m, args.n = n, args.k = k;
  args.a = {DType::BF16, a.get(), k, 0};
  args.b = {DType::BF16, b.get() + 1, n, 0};  // 2 bytes off a 16-byte boundary
  args.c = {DType::F32, c.get(), n, 0};
  GemmOptions options;
  options.config = "skinny16";
  try {
    gemm(args, nullptr, options);
    ADD_FAILURE() << "skinny16 ran an unaligned long operand";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("16-byte aligned"), std::string::npos) << e.what();
  }
  EXPECT_EQ(c.download(), before);
}

// A thread whose first CUDA call is the product (torch's autograd worker runs backward so): encoding
// TMA descriptors needs the context current, which the launch makes so.
TEST(Wgmma, RunsOnAThreadWithNoCudaCallBefore) {
  const int64_t n = 256;
  const uint16_t one = to_bits(1.0f, DType::BF16);
  DeviceBuffer<uint16_t> a(n * n), b(n * n), c(n * n);
  a.upload(std::vector<uint16_t>(n * n, one));
  b.upload(std::vector<uint16_t>(n * n, one));
  c.upload(std::vector<uint16_t>(n * n, 0));
  GemmArgs args;
  args.m = args.n = args.k = n;
  args.op_b = Op::T;
  args.a = {DType::BF16, a.get(), n, 0};
  args.b = {DType::BF16, b.get(), n, 0};
  args.c = {DType::BF16, c.get(), n, 0};
  std::string error;
  std::thread worker([&] {
    try {
      gemm(args);
      if (cudaDeviceSynchronize() != cudaSuccess) error = "synchronize failed";
    } catch (const Error& e) {
      error = e.what();
    }
  });
  worker.join();
  ASSERT_EQ(error, "");
  for (uint16_t v : c.download()) ASSERT_EQ(from_bits(v, DType::BF16), 256.0f);  // k ones, exact in bf16
}

TEST(Wgmma, MixedInputTypesAreRefusedBeforeAnythingIsWritten) {
  DeviceBuffer<uint16_t> a(64 * 64), b(64 * 64);
  DeviceBuffer<float> c(64 * 64);
  const std::vector<float> before(64 * 64, 7.0f);
  c.upload(before);
  GemmArgs args;
  args.m = args.n = args.k = 64;
  args.a = {DType::BF16, a.get(), 64, 0};
  args.b = {DType::F16, b.get(), 64, 0};
  args.c = {DType::F32, c.get(), 64, 0};
  try {
    gemm(args);
    ADD_FAILURE() << "a bf16 x f16 product ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("A and B must have one type"), std::string::npos) << e.what();
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(c.download(), before);
}

}  // namespace
}  // namespace tilegemm
