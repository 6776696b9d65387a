// Every ladder level, Auto and the configs Auto chooses among (every compiled tiled schedule whole,
// split-K and stream-K; the GEMV kernels where they apply) x both layouts x both ops x awkward shapes
// x alpha/beta x offset/padded memory, against the CPU reference (double accumulation). Outputs are
// poisoned beforehand; padding between rows must stay untouched.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/device_buffer.hpp"
#include "dense/config.hpp"
#include "dense/gemm_ops.hpp"
#include "dense/launch.hpp"
#include "dense/matrix_extent.hpp"
#include "ref/reference.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

struct Shape {
  int64_t m, n, k;
};

// Where the operands sit in memory.
enum class Memory {
  Tight,         // at the start of their buffers, tight leading dimensions
  OffsetPadded,  // pointers offset by one element, leading dimensions padded by 3
  Offset111,     // pointers offset by one element, tight leading dimensions (multiples of 4 here): 4-byte
                 // copies of level 6's as-is operands, level 7's rows shifted alike, or packed copies
  Offset123,     // A, B, C offset by 1, 2, 3 elements: B and C misaligned differently
  Offset123Ld5,  // A, B, C offset by 1, 2, 3 elements, leading dimensions padded by 5: with tight ones
                 // that are multiples of 4, rows 1 float further out of line each (OffsetPadded's + 3
                 // moves them 3): level 7's shifted rows in the other direction
};
struct Case {
  Shape shape;
  Layout layout;
  Op op_a, op_b;
  Memory memory;
};
const char* memory_name(Memory m) {
  switch (m) {
    case Memory::Tight: return "_tight";
    case Memory::OffsetPadded: return "_offset";
    case Memory::Offset111: return "_off111";
    case Memory::Offset123: return "_off123";
    case Memory::Offset123Ld5: return "_off123ld5";
  }
  return "";
}

std::string case_name(const testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  const bool small = c.shape.m * c.shape.n * c.shape.k <= 140 * 140 * 140;
  return std::string(small ? "Small_" : "Large_") + std::to_string(c.shape.m) + "x" +
         std::to_string(c.shape.n) + "x" + std::to_string(c.shape.k) + "_" + to_string(c.layout) +
         "_" + to_string(c.op_a) + to_string(c.op_b) + memory_name(c.memory);
}

// A stored operand in host memory, with its position inside a larger allocation.
struct HostMatrix {
  StoredMatrix shape;
  int64_t ld = 1, offset = 0;
  std::vector<float> storage;  // offset + extent (+ padding past the end)
  const float* data() const { return storage.data() + offset; }
  float* data() { return storage.data() + offset; }
};

// `which`: 0 for A, 1 for B, 2 for C (Memory::Offset123 offsets them by which + 1).
HostMatrix make_matrix(StoredMatrix shape, Layout layout, Memory memory, int which, std::mt19937& rng,
                       float pad_value) {
  HostMatrix h;
  h.shape = shape;
  h.ld = shape.min_ld(layout) + (memory == Memory::OffsetPadded ? 3 : memory == Memory::Offset123Ld5 ? 5 : 0);
  h.offset = memory == Memory::Tight                                                ? 0
             : memory == Memory::Offset123 || memory == Memory::Offset123Ld5 ? which + 1
                                                                                    : 1;
  const int64_t extent = shape.extent(layout, h.ld);
  h.storage.assign(static_cast<size_t>(h.offset + extent + 4), pad_value);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const int64_t outer = layout == Layout::RowMajor ? shape.rows : shape.cols;
  const int64_t inner = layout == Layout::RowMajor ? shape.cols : shape.rows;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) h.data()[o * h.ld + i] = dist(rng);
  return h;
}

float max_abs(const HostMatrix& h) {
  float v = 0.0f;
  for (float x : h.storage)
    if (std::isfinite(x)) v = std::max(v, std::fabs(x));
  return v;
}

// Every ladder level (0 = Auto), then every config Auto chooses among that can run the case: each
// compiled tiled schedule whole, in 3 K slices and stream-K style (tail slices), each whole with both
// operands packed and in 3 K slices with B packed, each with its edge columns on the GEMV kernel where
// N mod BN is 1..16 (whole; in 3 K slices with both operands packed), and the GEMV kernel (whole and in
// 3 slices; the one-row columns kernel with each of its lane widths) where one output dimension is <= 16.
std::vector<GemmOptions> runs_for(const Case& tc, const float* a, int64_t lda, const float* b, int64_t ldb,
                                  float* c, int64_t ldc) {
  std::vector<GemmOptions> runs;
  for (int level = 0; level <= kNumLadderLevels; ++level) {
    GemmOptions opt;
    opt.kernel = static_cast<Kernel>(level);
    runs.push_back(opt);
  }
  if (tc.shape.m == 0 || tc.shape.n == 0 || tc.shape.k == 0) return runs;
  const detail::GemmProblem p = detail::describe(detail::canonicalize(
      tc.layout, tc.op_a, tc.op_b, tc.shape.m, tc.shape.n, tc.shape.k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc,
      Raster::Hilbert));
  std::vector<detail::GemmConfig> configs;
  for (const detail::TileShape& t : detail::kTiledSchedules)
    for (int splits : {1, 3})
      for (bool tail : {false, true}) {
        if (splits == 1 && tail) continue;
        detail::GemmConfig cfg;
        cfg.tile = t;
        cfg.splits = splits;
        cfg.tail_only = tail;
        configs.push_back(cfg);
        if (!tail) {
          cfg.pack_a = splits == 1;
          cfg.pack_b = true;
          configs.push_back(cfg);
          cfg.edge = true;  // where N mod BN is 1..16 (can_implement drops the rest)
          cfg.pack_a = cfg.pack_b = splits == 3;
          configs.push_back(cfg);
        }
      }
  for (detail::GemmFamily f : {detail::GemmFamily::GemvRows, detail::GemmFamily::GemvCols})
    for (int splits : {1, 3})
      for (int lanes : {0, 8, 16, 32}) {  // can_implement keeps lanes for gemv-cols:s1 alone
        detail::GemmConfig cfg;
        cfg.family = f;
        cfg.gemv_s = detail::gemv_bound(static_cast<int>(std::min(p.m, p.n)));
        cfg.gemv_lanes = lanes;
        cfg.splits = splits;
        configs.push_back(cfg);
        if (f == detail::GemmFamily::GemvRows && lanes == 0) {  // gemv-rows:s16 with its X packed
          detail::GemmConfig packed = cfg;
          packed.pack_a = p.m <= p.n;
          packed.pack_b = !packed.pack_a;
          configs.push_back(packed);
        }
      }
  for (const detail::GemmConfig& cfg : configs) {
    if (!detail::can_implement(p, cfg).empty()) continue;
    GemmOptions opt;
    opt.config = detail::to_string(cfg);
    runs.push_back(opt);
  }
  return runs;
}

class GemmLadder : public testing::TestWithParam<Case> {};

TEST_P(GemmLadder, MatchesCpuReference) {
  const Case& tc = GetParam();
  const int64_t m = tc.shape.m, n = tc.shape.n, k = tc.shape.k;
  const StoredOperands shapes = stored_shapes(tc.op_a, tc.op_b, m, n, k);
  std::mt19937 rng(static_cast<unsigned>(m * 7919 + n * 104729 + k * 31 + static_cast<int>(tc.memory)));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float pad = -777.0f;  // marks memory outside the matrices; must survive every call
  const HostMatrix a = make_matrix(shapes.a, tc.layout, tc.memory, 0, rng, pad);
  const HostMatrix b = make_matrix(shapes.b, tc.layout, tc.memory, 1, rng, pad);
  const HostMatrix c0 = make_matrix(shapes.c, tc.layout, tc.memory, 2, rng, pad);

  // Exact-ish product once; every level and alpha/beta is checked against it.
  std::vector<double> prod(static_cast<size_t>(m * n));
  ref::gemm_f64(tc.layout, tc.op_a, tc.op_b, m, n, k, a.data(), a.ld, b.data(), b.ld, prod.data());

  DeviceBuffer<float> da(a.storage.size()), db(b.storage.size()), dc(c0.storage.size());
  da.upload(a.storage);
  db.upload(b.storage);
  const double bound_ab = ref::fp32_gemm_error_bound(k) * max_abs(a) * max_abs(b);

  struct AlphaBeta {
    float alpha, beta;
  };
  const std::vector<GemmOptions> runs =
      runs_for(tc, da.get() + a.offset, a.ld, db.get() + b.offset, b.ld, dc.get() + c0.offset, c0.ld);
  for (const GemmOptions& opt : runs) {
    for (const AlphaBeta ab : {AlphaBeta{1.0f, 0.0f}, AlphaBeta{-0.75f, 1.5f}}) {
      SCOPED_TRACE((opt.config.empty() ? to_string(opt.kernel) : opt.config) + " alpha " + std::to_string(ab.alpha) +
                   " beta " + std::to_string(ab.beta));
      // beta == 0: C holds NaN, which must not leak (BLAS semantics). Otherwise C holds c0.
      HostMatrix c_in = c0;
      if (ab.beta == 0.0f) {
        const int64_t outer = tc.layout == Layout::RowMajor ? m : n;
        const int64_t inner = tc.layout == Layout::RowMajor ? n : m;
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) c_in.data()[o * c_in.ld + i] = nan;
      }
      dc.upload(c_in.storage);
      sgemm(tc.layout, tc.op_a, tc.op_b, m, n, k, ab.alpha, da.get() + a.offset, a.ld,
            db.get() + b.offset, b.ld, ab.beta, dc.get() + c0.offset, c0.ld, nullptr, opt);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const std::vector<float> out = dc.download();

      // Padding and memory around C untouched.
      std::vector<bool> inside(out.size(), false);
      double err2 = 0.0, ref2 = 0.0;
      int64_t bad = 0;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          const int64_t idx = c0.offset + (tc.layout == Layout::RowMajor ? i * c0.ld + j : j * c0.ld + i);
          inside[static_cast<size_t>(idx)] = true;
          const double beta_c = ab.beta == 0.0f ? 0.0 : double(ab.beta) * c0.storage[idx];
          const double expect = double(ab.alpha) * prod[i * n + j] + beta_c;
          const double got = out[static_cast<size_t>(idx)];
          const double tol = std::fabs(ab.alpha) * bound_ab + 2e-7 * std::fabs(beta_c) + 1e-30;
          err2 += (got - expect) * (got - expect);
          ref2 += expect * expect;
          if (!(std::fabs(got - expect) <= tol)) {
            if (bad++ < 5)
              ADD_FAILURE() << "C(" << i << "," << j << ") = " << got << ", expected " << expect
                            << " (tolerance " << tol << ")";
          }
        }
      }
      EXPECT_EQ(bad, 0) << "elements outside tolerance";
      if (ref2 > 0) {
        EXPECT_LE(std::sqrt(err2 / ref2), 1e-5) << "relative Frobenius error";
      }
      int64_t touched = 0;
      for (size_t idx = 0; idx < out.size(); ++idx)
        if (!inside[idx] && !(out[idx] == c_in.storage[idx])) ++touched;
      EXPECT_EQ(touched, 0) << "elements outside C were written";
    }
  }
}

std::vector<Case> all_cases() {
  const std::vector<Shape> shapes = {
      {0, 5, 7},   {5, 0, 7},     {5, 7, 0},       {1, 5, 7},        {5, 1, 7},
      {5, 7, 1},   {1, 1, 1},     {7, 13, 17},     {64, 64, 64},     {127, 129, 131},
      {1000, 1000, 1000},         {4095, 4097, 4093}, {2048, 16, 4096}, {16, 2048, 4096},
      {64, 64, 65536},
      // One interior 128x256 tile over 5 K-tiles: the step-pipelined loop's bounds-free copies spread
      // over its first pass (the other shapes reach them only at sizes compute-sanitizer is slow on).
      {128, 256, 160},
      // Edge columns (260 = 256 + 4) with M below them: the edge's GEMV reads W from B's last columns.
      {4, 260, 96},
  };
  std::vector<Case> cases;
  for (const Shape& s : shapes)
    for (Layout layout : {Layout::RowMajor, Layout::ColMajor})
      for (Op op_a : {Op::N, Op::T})
        for (Op op_b : {Op::N, Op::T})
          for (Memory memory : {Memory::Tight, Memory::OffsetPadded}) {
            // The largest shape once per layout/op combination (with offsets and padding): it costs
            // ~70 GMAC of CPU reference each.
            if (s.m == 4095 && memory == Memory::Tight) continue;
            cases.push_back({s, layout, op_a, op_b, memory});
          }
  // Offset pointers with leading dimensions that are multiples of 4 (or those + 5): the aligning
  // widening of the tiled kernels, level 7's shifted rows, whole tiles, split-K (64x64x65536),
  // ragged edges, and the GEMV columns kernels' shifted tiles (1x124, 8x260).
  const std::vector<Shape> offset_shapes = {{64, 64, 64}, {128, 256, 160}, {132, 260, 96}, {1000, 1000, 1000},
                                                {64, 64, 65536}, {1, 124, 600}, {8, 260, 200}};
  for (const Shape& s : offset_shapes)
    for (Layout layout : {Layout::RowMajor, Layout::ColMajor})
      for (Op op_a : {Op::N, Op::T})
        for (Op op_b : {Op::N, Op::T})
          for (Memory memory : {Memory::Offset111, Memory::Offset123, Memory::Offset123Ld5}) {
            if (s.m >= 1000 && memory != Memory::Offset111) continue;  // ~1 GMAC of CPU reference each
            cases.push_back({s, layout, op_a, op_b, memory});
          }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmLadder, testing::ValuesIn(all_cases()), case_name);

// A row-major product C = 0.75 op(A) op(B) + beta C whose C starts c_off floats into its buffer
// (rows of ldc floats, the first n of them C's; every other float of the buffer holds `pad`).
struct GemvCall {
  int64_t m, n, k;
  Op op_b;
  const float* a;
  int64_t lda;
  const float* b;
  int64_t ldb;
  int64_t ldc, c_off;
};

// Runs `config` and its run-time twin on `call` with the buffer first holding c0 (C's elements NaN
// instead where beta == 0): C against `prod` (the double product of op(A) op(B)), the twin bitwise
// the same, and the buffer outside C untouched.
void expect_config_matches(const GemvCall& call, const std::string& config, float beta, const std::vector<float>& c0,
                           const std::vector<double>& prod, DeviceBuffer<float>& c, float pad) {
  SCOPED_TRACE(config + (beta == 0.0f ? " beta 0" : " beta " + std::to_string(beta)));
  const int64_t m = call.m, n = call.n, ldc = call.ldc, c_off = call.c_off;
  std::vector<float> c_in = c0;
  if (beta == 0.0f)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c_in[c_off + i * ldc + j] = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> aot;
  for (bool jit : {false, true}) {
    c.upload(c_in);
    GemmOptions opt;
    opt.config = config + (jit ? ":jit" : "");
    sgemm(Layout::RowMajor, Op::N, call.op_b, m, n, call.k, 0.75f, call.a, call.lda, call.b, call.ldb, beta,
          c.get() + c_off, ldc, nullptr, opt);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<float> got = c.download();
    if (jit) {
      EXPECT_EQ(std::memcmp(got.data(), aot.data(), got.size() * sizeof(float)), 0) << "the run-time twin differs";
      continue;
    }
    aot = got;
    const double tol = 0.75 * ref::fp32_gemm_error_bound(call.k) + 1e-6;
    int64_t bad = 0, touched = 0;
    for (int64_t idx = 0; idx < static_cast<int64_t>(got.size()); ++idx) {
      const int64_t i = (idx - c_off) / ldc, j = (idx - c_off) % ldc;
      if (idx < c_off || i >= m || j >= n) {
        touched += !(got[idx] == pad);
        continue;
      }
      const double want = 0.75 * prod[i * n + j] + (beta == 0.0f ? 0.0 : beta * double(c0[idx]));
      if (!(std::fabs(got[idx] - want) <= tol) && bad++ < 5)
        ADD_FAILURE() << "C(" << i << ", " << j << ") = " << got[idx] << ", expected " << want;
    }
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(touched, 0) << "memory around C was written";
  }
}

// gemv-rows:s16 runs gemv_rows_staged.cuh: X contiguous along s (small N, B not transposed) or along
// k (small M, A not transposed), W's rows 16-byte aligned or not (blocks of rows 32, 8 or 1 apart as
// lda allows, stages from their 128-byte boundary), X copied 16 or 4 bytes at a time (behind unaligned
// W, X's rows of k 16, 8 or 4 as each row's offset allows, or all 16 where they sit at W's offset),
// with every tail at once: fewer than 16 rows of X, W rows past the last block (of 32 rows, or of a
// group of 1024), K not a multiple of the 128-k stage nor of 4 (rows padded with NaN, which must never
// be read), split and not (a slice's first k inside an unaligned row's chunk, its last k past the
// stages), X packed by a prologue the product waits for or overlaps (480 blocks; rows of k behind
// unaligned W as four shifted copies, every lead among the blocks), and the run-time twin bitwise
// the same; K of 2 and 3 (both ends of a slice in one 16-byte chunk). alpha != 1, beta = 0 over NaN and beta != 0; C's padding untouched.
TEST(GemvRowsStaged, Small_TailsAndBothStagingsMatchTheReference) {
  using detail::GemvStaging;
  struct StagedCase {
    int64_t m, n, k;
    Op op_b;
    int64_t lda, ldb;
    GemvStaging staging;
    bool vec_w, vec_x;
    int64_t a_off = 0;  // A starts this many floats into its buffer
    int64_t b_off = 0;  // B likewise
  } cases[] = {
      {1000, 13, 1001, Op::N, 1004, 16, GemvStaging::XRowsAlongS, true, true},
      {77, 16, 130, Op::N, 132, 16, GemvStaging::XRowsAlongS, true, true},
      {13, 999, 1001, Op::T, 1004, 1004, GemvStaging::XRowsAlongK, true, true},
      {16, 2049, 515, Op::T, 516, 516, GemvStaging::XRowsAlongK, true, true},
      {1000, 13, 1001, Op::N, 1001, 16, GemvStaging::XRowsAlongS, false, true},   // W shifted
      {1000, 13, 1001, Op::N, 1004, 13, GemvStaging::XRowsAlongS, true, false},   // X 4-byte
      {13, 999, 1001, Op::T, 1001, 1004, GemvStaging::XRowsAlongK, true, false},  // X = A 4-byte
      {13, 999, 1001, Op::T, 1004, 1003, GemvStaging::XRowsAlongK, false, false},  // W = B shifted, X transposed
      {13, 999, 1001, Op::T, 1001, 1003, GemvStaging::XRowsAlongK, false, false},
      {1000, 13, 1001, Op::N, 1001, 13, GemvStaging::XRowsAlongS, false, false},
      {1000, 16, 1001, Op::N, 1003, 16, GemvStaging::XRowsAlongS, false, true},
      {1100, 16, 1001, Op::N, 1001, 16, GemvStaging::XRowsAlongS, false, true},    // a partial group of 1024 rows
      {16, 2049, 515, Op::T, 516, 515, GemvStaging::XRowsAlongK, false, false},   // 16 rows of X behind unaligned W
      {4100, 13, 600, Op::N, 601, 13, GemvStaging::XRowsAlongS, false, false},    // k3: 480 blocks
      {1100, 16, 1001, Op::N, 1024, 16, GemvStaging::XRowsAlongS, false, true, 1},  // consecutive rows, tiles past the last
      {1100, 16, 1001, Op::N, 1012, 16, GemvStaging::XRowsAlongS, false, true, 3},  // rows 8 apart
      // X's rows of k at W's offset (A and B both 1 or 3 floats in): 16-byte X copies, rows 8 apart
      {16, 2049, 515, Op::T, 516, 516, GemvStaging::XRowsAlongK, false, true, 1, 1},
      {4100, 13, 601, Op::T, 604, 604, GemvStaging::XRowsAlongK, false, true, 3, 3},
      {13, 999, 1001, Op::T, 1004, 1004, GemvStaging::XRowsAlongK, false, false, 1, 2},  // offsets differ
      // K of 2 or 3 behind unaligned rows: both ends of the slice in one 16-byte chunk, or in two
      {13, 999, 2, Op::T, 7, 7, GemvStaging::XRowsAlongK, false, false},
      {16, 2049, 3, Op::T, 5, 5, GemvStaging::XRowsAlongK, false, false},
      {1000, 13, 3, Op::N, 5, 13, GemvStaging::XRowsAlongS, false, false},
  };
  const float nan = std::numeric_limits<float>::quiet_NaN(), pad = -777.0f;
  for (const StagedCase& sc : cases) {
    SCOPED_TRACE(std::to_string(sc.m) + "x" + std::to_string(sc.n) + "x" + std::to_string(sc.k) +
                 (sc.op_b == Op::T ? " NT" : " NN") + " lda " + std::to_string(sc.lda) + " ldb " + std::to_string(sc.ldb) +
                 " A offset " + std::to_string(sc.a_off) + " B offset " + std::to_string(sc.b_off));
    const int64_t m = sc.m, n = sc.n, k = sc.k, lda = sc.lda, ldb = sc.ldb, ldc = n + 3, a_off = sc.a_off,
                  b_off = sc.b_off;
    const int64_t b_rows = sc.op_b == Op::T ? n : k, b_cols = sc.op_b == Op::T ? k : n;
    std::mt19937 rng(static_cast<unsigned>(m * 31 + n * 7 + k));
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> ha(a_off + m * lda, nan), hb(b_off + b_rows * ldb, nan), hc(m * ldc, pad);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < k; ++j) ha[a_off + i * lda + j] = dist(rng);
    for (int64_t i = 0; i < b_rows; ++i)
      for (int64_t j = 0; j < b_cols; ++j) hb[b_off + i * ldb + j] = dist(rng);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) hc[i * ldc + j] = dist(rng);
    // The NaN padding stays out of the reference: it reads k columns only.
    std::vector<double> prod(m * n);
    ref::gemm_f64(Layout::RowMajor, Op::N, sc.op_b, m, n, k, ha.data() + a_off, lda, hb.data() + b_off, ldb, prod.data());
    DeviceBuffer<float> a(ha.size()), b(hb.size()), c(hc.size());
    a.upload(ha);
    b.upload(hb);
    const detail::GemmProblem problem = detail::describe(detail::canonicalize(
        Layout::RowMajor, Op::N, sc.op_b, m, n, k, 1.0f, a.get() + a_off, lda, b.get() + b_off, ldb, 0.0f, c.get(), ldc,
        Raster::Hilbert));
    // With X packed where it is not copied 16 bytes at a time: the prologue copies it into aligned rows
    // in its own orientation, and its rows of k behind unaligned W as four copies shifted by 0-3
    // floats (each block reads the one its stages find aligned).
    const std::string pack = m <= n ? ":pack-a" : ":pack-b";
    std::vector<std::string> configs = {"gemv-rows:s16:k1", "gemv-rows:s16:k3"};
    if (!sc.vec_x) configs.push_back("gemv-rows:s16:k3" + pack);
    for (const std::string& config : configs) {
      const detail::GemmConfig cfg = detail::parse_gemm_config(config, "config");
      const bool packed = cfg.pack_a || cfg.pack_b;
      const detail::GemvForm form = detail::gemv_form(detail::gemv_view(detail::packed_problem(problem, cfg)), cfg);
      ASSERT_EQ(form.staging, sc.staging) << config;
      const detail::PackPlan plan = detail::plan_pack(problem, cfg);
      ASSERT_EQ(plan.x_copies, packed && sc.staging == GemvStaging::XRowsAlongK && !sc.vec_w ? 4 : 1) << config;
      ASSERT_EQ(form.vec_w, sc.vec_w) << config;
      ASSERT_EQ(form.vec_x, packed || sc.vec_x) << config;
      for (float beta : {0.0f, 0.5f})
        expect_config_matches({m, n, k, sc.op_b, a.get() + a_off, lda, b.get() + b_off, ldb, ldc, 0}, config, beta, hc,
                              prod, c, pad);
    }
  }
}

// The columns kernels (gemv_cols.cuh, gemv_cols_one.cuh) over W rows that all sit 1, 2 or 3 floats
// past a 16-byte boundary (GemvColsW::Shifted: column tiles start at the boundary): small M (W = B,
// row-major NN) with 1, 3 and 16 rows of X, each lane width of the one-row kernel, whole and in 3 K
// slices, K not a multiple of any step; l_count 124 leaves a spare tile (it returns), 1030 a ragged
// last one. Memory before W and between its rows is NaN (never read into a kept column), C starts
// 1 float into its buffer with padded rows (untouched: a store to column -1 would land there), beta =
// 0 over NaN and beta != 0, and the run-time twin bitwise the same.
TEST(GemvColsShifted, Small_OffsetRowsMatchTheReference) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), pad = -777.0f;
  for (int64_t m : {1, 3, 16})
    for (int64_t n : {124, 1030})
      for (int64_t b_off : {1, 2, 3}) {
        const int64_t k = 601, lda = k + 3, ldb = (n + 3) / 4 * 4 + 4, ldc = n + 5, c_off = 1;
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " B offset " +
                     std::to_string(b_off));
        std::mt19937 rng(static_cast<unsigned>(m * 31 + n * 7 + b_off));
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        std::vector<float> ha(m * lda, nan), hb(b_off + k * ldb, nan), hc(c_off + m * ldc, pad);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < k; ++j) ha[i * lda + j] = dist(rng);
        for (int64_t i = 0; i < k; ++i)
          for (int64_t j = 0; j < n; ++j) hb[b_off + i * ldb + j] = dist(rng);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) hc[c_off + i * ldc + j] = dist(rng);
        std::vector<double> prod(m * n);
        ref::gemm_f64(Layout::RowMajor, Op::N, Op::N, m, n, k, ha.data(), lda, hb.data() + b_off, ldb, prod.data());
        DeviceBuffer<float> a(ha.size()), b(hb.size()), c(hc.size());
        a.upload(ha);
        b.upload(hb);
        const detail::GemmProblem problem = detail::describe(detail::canonicalize(
            Layout::RowMajor, Op::N, Op::N, m, n, k, 1.0f, a.get(), lda, b.get() + b_off, ldb, 0.0f, c.get() + c_off, ldc,
            Raster::Hilbert));
        const std::string s = "gemv-cols:s" + std::to_string(detail::gemv_bound(static_cast<int>(m)));
        std::vector<std::string> configs;
        for (const char* slices : {":k1", ":k3"}) {
          if (m > 1) configs.push_back(s + slices);
          else
            for (const char* lanes : {":l8", ":l16", ":l32"}) configs.push_back(s + lanes + slices);
        }
        for (const std::string& config : configs) {
          const detail::GemmConfig cfg = detail::parse_gemm_config(config, "config");
          const detail::GemvForm form = detail::gemv_form(detail::gemv_view(problem), cfg);
          ASSERT_TRUE(form.shift_w && !form.vec_w) << config;
          for (float beta : {0.0f, 0.5f})
            expect_config_matches({m, n, k, Op::N, a.get(), lda, b.get() + b_off, ldb, ldc, c_off}, config, beta, hc,
                                  prod, c, pad);
        }
      }
}

// Level 7 (3xTF32 on tensor cores) is FP32-class: over a long K its relative (Frobenius) error against
// a double reference is at most twice level 6's (FFMA), for each tensor-core schedule, whole and
// split. Auto under Math::FfmaOnly runs an FFMA config.
TEST(Level7, Large_ErrorOverLongKWithinTwiceFfma) {
  const int64_t m = 256, n = 192, k = 16384;
  std::mt19937 rng(71);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> ha(m * k), hb(k * n);
  for (float& v : ha) v = dist(rng);
  for (float& v : hb) v = dist(rng);
  std::vector<double> want(m * n);
  ref::gemm_f64(Layout::RowMajor, Op::N, Op::N, m, n, k, ha.data(), k, hb.data(), n, want.data());
  DeviceBuffer<float> a(ha.size()), b(hb.size()), c(size_t(m * n));
  a.upload(ha);
  b.upload(hb);
  auto error_of = [&](const GemmOptions& opt) {
    sgemm(Layout::RowMajor, Op::N, Op::N, m, n, k, 1.0f, a.get(), k, b.get(), n, 0.0f, c.get(), n, nullptr, opt);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<float> got = c.download();
    double e2 = 0.0, r2 = 0.0;
    for (size_t i = 0; i < got.size(); ++i) {
      e2 += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
      r2 += want[i] * want[i];
    }
    return std::sqrt(e2 / r2);
  };
  GemmOptions level6;
  level6.kernel = Kernel::WarpTiled;
  const double ffma = error_of(level6);
  EXPECT_GT(ffma, 0.0);  // the FP32 sum is not exact: the comparison means something
  std::vector<GemmOptions> runs;
  GemmOptions level7;
  level7.kernel = Kernel::MmaTf32x3;
  runs.push_back(level7);
  for (const detail::TileShape& t : detail::kTiledSchedules)
    for (int splits : {1, 8}) {
      if (!t.tensor_cores()) continue;
      detail::GemmConfig cfg;
      cfg.tile = t;
      cfg.splits = splits;
      GemmOptions opt;
      opt.config = detail::to_string(cfg);
      runs.push_back(opt);
    }
  for (const GemmOptions& opt : runs) {
    const double err = error_of(opt);
    std::printf("[ info ] k = %lld relative error: level 6 %.3g, %s %.3g\n", static_cast<long long>(k), ffma,
                opt.config.empty() ? "level 7" : opt.config.c_str(), err);
    EXPECT_LE(err, 2.0 * ffma) << opt.config;
  }
  GemmOptions ffma_only;
  ffma_only.math = Math::FfmaOnly;
  const GemmChoice pick =
      explain_choice(Layout::RowMajor, Op::N, Op::N, m, n, k, 1.0f, a.get(), k, b.get(), n, 0.0f, c.get(), n, ffma_only);
  EXPECT_EQ(pick.config.find("tf32x3"), std::string::npos) << pick.config;
}

}  // namespace
}  // namespace tilegemm
