// The shim through its exported symbols, as a program sees it: reference-BLAS argument errors and
// quick returns, the Fortran ABI, CBLAS, and correct products on whatever route the environment
// selects. CTest runs this program several times (tests/blas/CMakeLists.txt): with the CPU BLAS, with
// the builtin loops, and with no visible GPU (the fallback). TILEGEMM_BLAS_TEST_ROUTE names the route
// every product must take (cpu, cpu_fallback, gpu_staged); TILEGEMM_BLAS_TEST_CPU_LIB the CPU BLAS.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "blas_test_util.hpp"

using namespace blas_test;
using tilegemm::Layout;

namespace {

int expected_route() {
  const char* v = std::getenv("TILEGEMM_BLAS_TEST_ROUTE");
  if (v == nullptr) return -1;
  if (std::strcmp(v, "cpu") == 0) return TILEGEMM_BLAS_CPU;
  if (std::strcmp(v, "cpu_fallback") == 0) return TILEGEMM_BLAS_CPU_FALLBACK;
  if (std::strcmp(v, "gpu_staged") == 0) return TILEGEMM_BLAS_GPU_STAGED;
  ADD_FAILURE() << "unknown TILEGEMM_BLAS_TEST_ROUTE " << v;
  return -1;
}

// Runs `products` products (none a quick return) and checks they all took the expected route.
template <class F>
void expect_route(int products, F&& body) {
  const int route = expected_route();
  const unsigned long long before = route >= 0 ? route_count(route) : 0;
  body();
  if (route >= 0) {
    EXPECT_EQ(route_count(route) - before, (unsigned long long)products) << "route " << route;
  }
}

const std::vector<Shape> kShapes = {{1, 1, 1}, {7, 13, 17}, {64, 48, 32}, {127, 129, 131},
                                    {1, 300, 200}, {300, 1, 200}, {33, 65, 1}};

// --- reference-BLAS argument errors: xerbla_("SGEMM ", info) and C untouched ------------------------

struct BadCall {
  const char* what;
  char ta, tb;
  int m, n, k, lda, ldb, ldc;
  int info;
};

TEST(BlasErrors, SgemmReportsTheReferencePosition) {
  const BadCall cases[] = {
      {"TRANSA", 'X', 'N', 4, 4, 4, 4, 4, 4, 1},  {"TRANSB", 'N', 'q', 4, 4, 4, 4, 4, 4, 2},
      {"M < 0", 'N', 'N', -1, 4, 4, 4, 4, 4, 3},  {"N < 0", 'N', 'N', 4, -1, 4, 4, 4, 4, 4},
      {"K < 0", 'N', 'N', 4, 4, -1, 4, 4, 4, 5},  {"LDA < M", 'N', 'N', 5, 4, 4, 4, 4, 5, 8},
      {"LDA < K (A^T)", 'T', 'N', 4, 4, 5, 4, 5, 4, 8}, {"LDA 0", 'N', 'N', 0, 4, 4, 0, 4, 1, 8},
      {"LDB < K", 'N', 'N', 4, 4, 5, 4, 4, 4, 10}, {"LDB < N (B^T)", 'N', 'T', 4, 5, 4, 4, 4, 4, 10},
      {"LDC < M", 'N', 'N', 5, 4, 4, 5, 4, 4, 13}, {"first bad wins", 'N', 'N', -1, -1, 4, 0, 0, 0, 3},
      {"TRANSA before sizes", 'Z', 'N', -1, 4, 4, 4, 4, 4, 1},
  };
  std::vector<float> a(64, 1.0f), b(64, 1.0f), c(64, 7.0f);
  const float alpha = 1.0f, beta = 0.0f;
  for (const BadCall& bc : cases) {
    SCOPED_TRACE(bc.what);
    reset_error_records();
    sgemm_(&bc.ta, &bc.tb, &bc.m, &bc.n, &bc.k, &alpha, a.data(), &bc.lda, b.data(), &bc.ldb, &beta,
           c.data(), &bc.ldc, 1, 1);
    EXPECT_EQ(g_xerbla.calls, 1);
    EXPECT_EQ(g_xerbla.info, bc.info);
    EXPECT_EQ(g_xerbla.routine, "SGEMM ");  // the reference passes the name blank-padded to 6
    EXPECT_EQ(g_xerbla.routine_len, 6u);
    for (float x : c) ASSERT_EQ(x, 7.0f) << "C was written";
  }
}

// The positions the reference CBLAS passes to cblas_xerbla, and RowMajorStrg while it does (measured
// with Debian's libblas3 3.11.0, the netlib reference, for every argument in both orders and each
// transpose: they do not depend on the transposes). Row-major calls are checked as the column-major
// call they stand for: M and N, lda and ldb trade positions, ldb is checked first, and a bad TransB
// is argument 2; RowMajorStrg = 1 tells a handler to map them back.
TEST(BlasErrors, CblasReportsTheReferencePositions) {
  struct BadCblas {
    const char* what;
    int order, ta, tb, m, n, k, lda, ldb, ldc, info;
  };
  std::vector<BadCblas> cases;
  for (const int order : {101, 102})
    for (const int ta : {111, 112})
      for (const int tb : {111, 112}) {
        const bool row = order == 101;
        const std::vector<BadCblas> per = {
            {"order", 100, ta, tb, 4, 4, 4, 8, 8, 8, 1},
            {"TransA", order, 110, tb, 4, 4, 4, 8, 8, 8, 2},
            {"TransB", order, ta, 115, 4, 4, 4, 8, 8, 8, row ? 2 : 3},
            {"M", order, ta, tb, -1, 4, 4, 8, 8, 8, row ? 5 : 4},
            {"N", order, ta, tb, 4, -1, 4, 8, 8, 8, row ? 4 : 5},
            {"K", order, ta, tb, 4, 4, -1, 8, 8, 8, 6},
            {"M and N", order, ta, tb, -1, -1, 4, 8, 8, 8, 4},
            {"TransA and TransB", order, 110, 110, 4, 4, 4, 8, 8, 8, 2},
            {"lda", order, ta, tb, 6, 7, 5, 1, 8, 8, row ? 11 : 9},
            {"ldb", order, ta, tb, 6, 7, 5, 8, 1, 8, row ? 9 : 11},
            {"ldc", order, ta, tb, 6, 7, 5, 8, 8, 1, 14},
            {"lda and ldb", order, ta, tb, 6, 7, 5, 1, 1, 8, 9},
            {"M and lda", order, ta, tb, -1, 7, 5, 0, 8, 8, row ? 5 : 4},
            {"TransB and M", order, ta, 115, -1, 4, 4, 8, 8, 8, row ? 2 : 3},
        };
        cases.insert(cases.end(), per.begin(), per.end());
      }
  std::vector<float> a(64, 1.0f), b(64, 1.0f), c(64, 7.0f);
  for (const BadCblas& bc : cases) {
    SCOPED_TRACE(std::string(bc.what) + " order " + std::to_string(bc.order) + " trans " + std::to_string(bc.ta) +
                 "/" + std::to_string(bc.tb));
    reset_error_records();
    cblas_sgemm(bc.order, bc.ta, bc.tb, bc.m, bc.n, bc.k, 1.0f, a.data(), bc.lda, b.data(), bc.ldb, 0.0f,
                c.data(), bc.ldc);
    EXPECT_EQ(g_cblas_xerbla.calls, 1);
    EXPECT_EQ(g_cblas_xerbla.info, bc.info);
    EXPECT_EQ(g_cblas_xerbla.routine, "cblas_sgemm");
    EXPECT_EQ(g_cblas_xerbla.row_major_strg, bc.order == 101 ? 1 : 0);
    EXPECT_EQ(RowMajorStrg, 0) << "cleared after the call";
    EXPECT_EQ(g_xerbla.calls, 0);
    for (float x : c) ASSERT_EQ(x, 7.0f) << "C was written";
  }
}

// --- quick returns and C = beta * C, exactly where the reference has them ------------------------

TEST(BlasQuickReturn, LeavesOrScalesCWithoutReadingAOrB) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const int m = 5, n = 3, k = 4, ld = 6;
  auto run = [&](int mm, int nn, int kk, float alpha, float beta, std::vector<float> c) {
    reset_error_records();
    sgemm_("N", "N", &mm, &nn, &kk, &alpha, nullptr, &ld, nullptr, &ld, &beta, c.data(), &ld, 1, 1);
    EXPECT_EQ(g_xerbla.calls, 0);
    return c;
  };
  std::vector<float> c(ld * n);
  for (size_t i = 0; i < c.size(); ++i) c[i] = float(i) - 3.0f;
  std::vector<float> c_nan(ld * n, nan);

  // M = 0 or N = 0: nothing, even with NaN in C and no A or B.
  for (float x : run(0, n, k, 1.0f, 0.0f, c_nan)) EXPECT_TRUE(std::isnan(x));
  for (float x : run(m, 0, k, 1.0f, 0.0f, c_nan)) EXPECT_TRUE(std::isnan(x));
  // alpha == 0 (or K == 0) and beta == 1: C unchanged.
  for (float x : run(m, n, k, 0.0f, 1.0f, c_nan)) EXPECT_TRUE(std::isnan(x));
  for (float x : run(m, n, 0, 2.0f, 1.0f, c_nan)) EXPECT_TRUE(std::isnan(x));
  // alpha == 0, beta == 0: exact zeros over NaN, padding untouched.
  std::vector<float> z = run(m, n, k, 0.0f, 0.0f, c_nan);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < ld; ++i) {
      if (i < m) EXPECT_EQ(z[i + j * ld], 0.0f);
      else EXPECT_TRUE(std::isnan(z[i + j * ld]));
    }
  // K == 0, beta == 0.5: C scaled.
  std::vector<float> s = run(m, n, 0, 3.0f, 0.5f, c);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < ld; ++i) EXPECT_EQ(s[i + j * ld], i < m ? 0.5f * c[i + j * ld] : c[i + j * ld]);
}

// --- the Fortran ABI: long TRANS strings with their hidden lengths ---------------------------------

TEST(BlasFortranAbi, ReadsOnlyTheFirstCharacterOfTrans) {
  Problem p = make_problem(Layout::ColMajor, 'T', 'N', 9, 7, 5, 2, 1.5f, 0.5f, 11);
  std::vector<float> c = p.c0;
  // gfortran passes CALL SGEMM('Transpose', 'no transpose', ...) as pointers plus lengths 9 and 12.
  sgemm_("Transpose", "no transpose", &p.m, &p.n, &p.k, &p.alpha, p.a.data(), &p.lda, p.b.data(),
         &p.ldb, &p.beta, c.data(), &p.ldc, 9, 12);
  EXPECT_TRUE(matches_reference(p, c));
}

// --- products ------------------------------------------------------------------------------------

TEST(BlasProducts, SgemmMatchesTheReference) {
  const std::vector<Problem> problems = sweep(Layout::ColMajor, kShapes, 100);
  expect_route(int(problems.size()), [&] {
    for (const Problem& p : problems) EXPECT_TRUE(matches_reference(p, call_sgemm(p)));
  });
}

TEST(BlasProducts, CblasBothLayoutsMatchTheReference) {
  std::vector<Problem> problems = sweep(Layout::RowMajor, kShapes, 200);
  for (Problem& p : sweep(Layout::ColMajor, {{19, 23, 29}}, 300)) problems.push_back(p);
  expect_route(int(problems.size()), [&] {
    for (const Problem& p : problems) EXPECT_TRUE(matches_reference(p, call_cblas(p)));
  });
}

TEST(BlasProducts, ManyThreadsAtOnce) {
  expect_route(8 * 6, [] { check_many_threads(8, 6, 40, 7, 33, 21); });
}

TEST(BlasSetup, UsesTheExpectedCpuBlas) {
  const std::string lib = tilegemm_blas_cpu_library();
  const char* want = std::getenv("TILEGEMM_BLAS_TEST_CPU_LIB");
  if (want == nullptr) GTEST_SKIP() << "TILEGEMM_BLAS_TEST_CPU_LIB not set; the shim uses " << lib;
  if (std::strcmp(want, "builtin") == 0) {
    EXPECT_EQ(lib, "builtin");
  } else {
    EXPECT_NE(lib.find(want), std::string::npos) << lib;
  }
}

}  // namespace
