// The reference BLAS SGEMM's argument rules, as plain functions (no CUDA, no BLAS): which argument
// is invalid (the `info` XERBLA receives), when the call returns at once, and when it only scales C.
// The shim's entry points and its tests share them.
#pragma once
#include <cstdint>

namespace tilegemm {
namespace blas {

// One column-major product C = alpha * op(A) * op(B) + beta * C, every argument by value. Both
// entry points (sgemm_ and cblas_sgemm, whose row-major form is the transposed column-major product)
// reduce to this.
struct ColMajorCall {
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  const float* a = nullptr;
  int64_t lda = 1;
  const float* b = nullptr;
  int64_t ldb = 1;
  float beta = 0.0f;
  float* c = nullptr;
  int64_t ldc = 1;

  // op(A) is m x k: stored as m x k (N) or k x m (T); op(B) is k x n: stored k x n or n x k.
  int64_t rows_a() const { return trans_a ? k : m; }
  int64_t cols_a() const { return trans_a ? m : k; }
  int64_t rows_b() const { return trans_b ? n : k; }
  int64_t cols_b() const { return trans_b ? k : n; }
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
};

// A transpose character as the reference LSAME reads it: 'N'/'n' -> 0 (no transpose), 'T'/'t'/'C'/'c'
// -> 1 (transpose; real data, so conjugate-transpose is transpose), anything else -> -1.
int parse_trans(char t);

// The reference SGEMM's checks in its order: 1 TRANSA, 2 TRANSB, 3 M, 4 N, 5 K, 8 LDA, 10 LDB, 13 LDC.
// Returns 0 when the arguments are valid, else the position of the first invalid one.
int sgemm_info(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
               int64_t ldc);

// cblas_sgemm's checks as the reference CBLAS makes them: the position it passes to cblas_xerbla
// (1 Order, 2 TransA, 3 TransB, 4 M, 5 N, 6 K, 9 lda, 11 ldb, 14 ldc for column-major). For row-major
// storage the reference checks the column-major call it makes, B and A swapped: it passes 5 for a
// bad M, 4 for N, 11 for lda, 9 for ldb (ldb checked before lda), 2 for a bad TransB, and sets
// RowMajorStrg so that its cblas_xerbla prints the caller's positions (Debian's libblas3 3.11.0,
// every argument in both orders, docs/blas.md). 0 when the arguments are valid.
int cblas_sgemm_info(int order, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
                     int64_t lda, int64_t ldb, int64_t ldc);

// The reference returns without touching C when M or N is 0, or when (alpha == 0 or K == 0) and
// beta == 1.
bool is_quick_return(const ColMajorCall& call);

// Otherwise, alpha == 0 or K == 0 only scales C (C = beta * C, exact zeros for beta == 0) and reads
// neither A nor B.
bool only_scales_c(const ColMajorCall& call);

// C = beta * C on host memory, the reference's way: beta == 0 writes zeros without reading C.
void scale_c_host(const ColMajorCall& call);

// CBLAS enum values (cblas.h): CblasRowMajor 101, CblasColMajor 102, CblasNoTrans 111, CblasTrans 112,
// CblasConjTrans 113.
inline constexpr int kCblasRowMajor = 101, kCblasColMajor = 102;
inline constexpr int kCblasNoTrans = 111, kCblasTrans = 112, kCblasConjTrans = 113;

// The column-major call a cblas_sgemm call computes (row-major: C^T = op(B)^T * op(A)^T, so A and B
// swap places and M and N swap). Call only with valid arguments (cblas_sgemm_info == 0).
ColMajorCall from_cblas(int order, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
                        float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                        float beta, float* c, int64_t ldc);

}  // namespace blas
}  // namespace tilegemm
