// Shared by the shim's test programs: random problems in either layout, the check against the CPU
// reference (double accumulation, tolerance scaled by K), recording error handlers and the route
// counters.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tilegemm/blas.h"
#include "tilegemm/types.hpp"

namespace blas_test {

// What the program's own xerbla_ / cblas_xerbla (which replace the shim's) last received.
struct ErrorRecord {
  int calls = 0;
  int info = 0;
  std::string routine;
  size_t routine_len = 0;  // xerbla_'s hidden length argument
  int row_major_strg = -1;  // RowMajorStrg while cblas_xerbla ran
};
extern ErrorRecord g_xerbla, g_cblas_xerbla;
void reset_error_records();

// One product with its inputs: A, B and C stored with `pad` extra elements per leading dimension;
// for beta == 0, C holds NaN (must not leak into the result).
struct Problem {
  tilegemm::Layout layout = tilegemm::Layout::ColMajor;
  char ta = 'N', tb = 'N';
  int m = 0, n = 0, k = 0;
  float alpha = 1.0f, beta = 0.0f;
  int lda = 1, ldb = 1, ldc = 1;
  std::vector<float> a, b, c0;
  bool trans_a() const { return ta != 'N' && ta != 'n'; }
  bool trans_b() const { return tb != 'N' && tb != 'n'; }
};
Problem make_problem(tilegemm::Layout layout, char ta, char tb, int m, int n, int k, int pad,
                     float alpha, float beta, unsigned seed);
std::string describe(const Problem& p);

// c (the whole stored C after the call) against alpha * op(A) op(B) + beta * C0 from the reference;
// the padding between columns (rows) must be untouched.
::testing::AssertionResult matches_reference(const Problem& p, const std::vector<float>& c);

// Calls the shim on p: sgemm_ (column-major problems only) or cblas_sgemm; returns C.
std::vector<float> call_sgemm(const Problem& p);
std::vector<float> call_cblas(const Problem& p);
// sgemm_ for column-major problems, cblas_sgemm for row-major ones.
std::vector<float> call_sgemm_or_cblas(const Problem& p);
// The same on caller-provided pointers (device or host).
void call_sgemm_on(const Problem& p, const float* a, const float* b, float* c);

unsigned long long route_count(int route);

// `threads` host threads each calling the shim on `per_thread` problems of their own at the same
// time (sizes around base_m x base_n x base_k, both layouts and op pairs, beta 0 and 0.5); every
// result is checked against the reference after all threads have joined.
void check_many_threads(int threads, int per_thread, int base_m, int step_m, int base_n, int base_k);

// The problems the correctness tests sweep: every op pair (including lower case and 'C'),
// odd and degenerate sizes, padded leading dimensions, the alpha/beta cases.
struct Shape {
  int m, n, k;
};
std::vector<Problem> sweep(tilegemm::Layout layout, const std::vector<Shape>& shapes, unsigned seed);

}  // namespace blas_test
