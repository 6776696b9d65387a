#include "blas_test_util.hpp"

#include <cmath>
#include <cstdarg>
#include <cstring>
#include <limits>
#include <random>
#include <thread>

#include "ref/reference.hpp"
#include "settings.hpp"  // the shim's reading of TILEGEMM_BLAS_MATH

using tilegemm::Layout;

namespace blas_test {

ErrorRecord g_xerbla, g_cblas_xerbla;

void reset_error_records() { g_xerbla = g_cblas_xerbla = ErrorRecord{}; }

}  // namespace blas_test

// The program's own handlers take the place of the shim's, as they would of the reference BLAS's.
extern "C" void xerbla_(const char* srname, const int* info, size_t len) {
  auto& r = blas_test::g_xerbla;
  ++r.calls;
  r.info = *info;
  r.routine.assign(srname, len);
  r.routine_len = len;
}

extern "C" void cblas_xerbla(int p, const char* rout, const char*, ...) {
  auto& r = blas_test::g_cblas_xerbla;
  ++r.calls;
  r.info = p;
  r.routine = rout;
  r.row_major_strg = RowMajorStrg;
}

namespace blas_test {
namespace {

// Stored extents (outer x inner, inner contiguous) of a rows x cols matrix in `layout`.
void stored(Layout layout, int rows, int cols, int* outer, int* inner) {
  *outer = layout == Layout::ColMajor ? cols : rows;
  *inner = layout == Layout::ColMajor ? rows : cols;
}

std::vector<float> random_matrix(int outer, int ld, std::mt19937& gen) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(size_t(std::max(outer, 1)) * size_t(ld));
  for (float& x : v) x = dist(gen);
  return v;
}

size_t index_of(const Problem& p, int i, int j) {
  return p.layout == Layout::ColMajor ? size_t(i) + size_t(j) * p.ldc : size_t(i) * p.ldc + size_t(j);
}

}  // namespace

Problem make_problem(Layout layout, char ta, char tb, int m, int n, int k, int pad, float alpha,
                     float beta, unsigned seed) {
  Problem p;
  p.layout = layout, p.ta = ta, p.tb = tb, p.m = m, p.n = n, p.k = k, p.alpha = alpha, p.beta = beta;
  std::mt19937 gen(seed);
  int outer, inner;
  stored(layout, p.trans_a() ? k : m, p.trans_a() ? m : k, &outer, &inner);
  p.lda = std::max(inner, 1) + pad;
  p.a = random_matrix(outer, p.lda, gen);
  stored(layout, p.trans_b() ? n : k, p.trans_b() ? k : n, &outer, &inner);
  p.ldb = std::max(inner, 1) + pad;
  p.b = random_matrix(outer, p.ldb, gen);
  stored(layout, m, n, &outer, &inner);
  p.ldc = std::max(inner, 1) + pad;
  p.c0 = random_matrix(outer, p.ldc, gen);
  if (beta == 0.0f)
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) p.c0[index_of(p, i, j)] = std::numeric_limits<float>::quiet_NaN();
  return p;
}

std::string describe(const Problem& p) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s %c%c %dx%dx%d lda=%d ldb=%d ldc=%d alpha=%g beta=%g",
                p.layout == Layout::ColMajor ? "col" : "row", p.ta, p.tb, p.m, p.n, p.k, p.lda, p.ldb,
                p.ldc, double(p.alpha), double(p.beta));
  return buf;
}

::testing::AssertionResult matches_reference(const Problem& p, const std::vector<float>& c) {
  using tilegemm::Op;
  std::vector<double> prod(size_t(p.m) * p.n);
  auto max_abs = [](const std::vector<float>& v) {
    double mx = 0;
    for (float x : v) mx = std::max(mx, double(std::fabs(x)));
    return mx;
  };
  if (p.k > 0)
    tilegemm::ref::gemm_f64(p.layout, p.trans_a() ? Op::T : Op::N, p.trans_b() ? Op::T : Op::N, p.m,
                            p.n, p.k, p.a.data(), p.lda, p.b.data(), p.ldb, prod.data());
  // FP32's bound; under TILEGEMM_BLAS_MATH=tf32 (the shim's own reading of it) each product's two
  // operands cut to TF32 add up to 2^-9 of |a||b| (as the library's TF32 tests allow).
  const bool tf32 = tilegemm::blas::settings().math == tilegemm::blas::Settings::Math::Tf32;
  const double per_unit = tilegemm::ref::fp32_gemm_error_bound(p.k) + (tf32 ? 0x1.02p-9 * p.k : 0.0);
  const double bound = per_unit * max_abs(p.a) * max_abs(p.b);
  std::vector<bool> inside(c.size(), false);
  int bad = 0;
  std::string first;
  for (int i = 0; i < p.m; ++i) {
    for (int j = 0; j < p.n; ++j) {
      const size_t idx = index_of(p, i, j);
      inside[idx] = true;
      const double beta_c = p.beta == 0.0f ? 0.0 : double(p.beta) * p.c0[idx];
      const double expect = double(p.alpha) * prod[size_t(i) * p.n + j] + beta_c;
      const double tol = std::fabs(p.alpha) * bound + 2e-7 * std::fabs(beta_c) + 1e-30;
      if (!(std::fabs(double(c[idx]) - expect) <= tol) && bad++ == 0)
        first = "C(" + std::to_string(i) + "," + std::to_string(j) + ") = " + std::to_string(c[idx]) +
                ", expected " + std::to_string(expect);
    }
  }
  if (bad > 0) return ::testing::AssertionFailure() << describe(p) << ": " << bad << " wrong, first " << first;
  for (size_t idx = 0; idx < c.size(); ++idx)
    if (!inside[idx] && std::memcmp(&c[idx], &p.c0[idx], sizeof(float)) != 0)
      return ::testing::AssertionFailure() << describe(p) << ": padding element " << idx << " changed";
  return ::testing::AssertionSuccess();
}

void call_sgemm_on(const Problem& p, const float* a, const float* b, float* c) {
  if (p.layout != Layout::ColMajor) {
    cblas_sgemm(101, p.trans_a() ? 112 : 111, p.trans_b() ? 112 : 111, p.m, p.n, p.k, p.alpha, a,
                p.lda, b, p.ldb, p.beta, c, p.ldc);
    return;
  }
  sgemm_(&p.ta, &p.tb, &p.m, &p.n, &p.k, &p.alpha, a, &p.lda, b, &p.ldb, &p.beta, c, &p.ldc, 1, 1);
}

std::vector<float> call_sgemm(const Problem& p) {
  EXPECT_EQ(p.layout, Layout::ColMajor) << "sgemm_ is column-major";
  return call_sgemm_or_cblas(p);
}

std::vector<float> call_sgemm_or_cblas(const Problem& p) {
  std::vector<float> c = p.c0;
  call_sgemm_on(p, p.a.data(), p.b.data(), c.data());
  return c;
}

std::vector<float> call_cblas(const Problem& p) {
  std::vector<float> c = p.c0;
  const int order = p.layout == Layout::ColMajor ? 102 : 101;
  auto trans = [](char t) { return t == 'N' || t == 'n' ? 111 : (t == 'C' || t == 'c') ? 113 : 112; };
  cblas_sgemm(order, trans(p.ta), trans(p.tb), p.m, p.n, p.k, p.alpha, p.a.data(), p.lda, p.b.data(),
              p.ldb, p.beta, c.data(), p.ldc);
  return c;
}

unsigned long long route_count(int route) {
  unsigned long long counts[TILEGEMM_BLAS_ROUTES];
  tilegemm_blas_route_counts(counts);
  return counts[route];
}

void check_many_threads(int threads, int per_thread, int base_m, int step_m, int base_n, int base_k) {
  std::vector<std::vector<Problem>> work(threads);
  for (int t = 0; t < threads; ++t)
    for (int i = 0; i < per_thread; ++i)
      work[t].push_back(make_problem(i % 2 ? Layout::RowMajor : Layout::ColMajor, "NT"[i % 2], "TN"[t % 2],
                                     base_m + step_m * t, base_n + 5 * i, base_k + t + i, i % 3, 1.0f,
                                     i % 2 ? 0.5f : 0.0f, 1000 + 31 * t + i));
  std::vector<std::vector<std::vector<float>>> got(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (const Problem& p : work[t]) got[t].push_back(call_sgemm_or_cblas(p));
    });
  for (std::thread& th : pool) th.join();
  for (int t = 0; t < threads; ++t)
    for (int i = 0; i < per_thread; ++i) EXPECT_TRUE(matches_reference(work[t][i], got[t][i]));
}

std::vector<Problem> sweep(Layout layout, const std::vector<Shape>& shapes, unsigned seed) {
  struct AlphaBeta {
    float alpha, beta;
  };
  const char ops[][2] = {{'N', 'N'}, {'n', 't'}, {'T', 'N'}, {'c', 'T'}};
  const AlphaBeta abs[] = {{1.0f, 0.0f}, {-0.75f, 1.5f}, {2.0f, 1.0f}};
  std::vector<Problem> out;
  int i = 0;
  for (const Shape& s : shapes)
    for (const auto& op : ops)
      for (int pad : {0, 3}) {
        const AlphaBeta ab = abs[i++ % 3];
        out.push_back(make_problem(layout, op[0], op[1], s.m, s.n, s.k, pad, ab.alpha, ab.beta, seed + i));
      }
  return out;
}

}  // namespace blas_test
