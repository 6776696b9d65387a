#include "sgemm_args.hpp"

#include <algorithm>

namespace tilegemm {
namespace blas {

int parse_trans(char t) {
  switch (t) {
    case 'N': case 'n': return 0;
    case 'T': case 't': case 'C': case 'c': return 1;
    default: return -1;
  }
}

int sgemm_info(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
               int64_t ldc) {
  const int ta = parse_trans(transa), tb = parse_trans(transb);
  if (ta < 0) return 1;
  if (tb < 0) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  const int64_t nrowa = ta ? k : m, nrowb = tb ? n : k;
  if (lda < std::max<int64_t>(1, nrowa)) return 8;
  if (ldb < std::max<int64_t>(1, nrowb)) return 10;
  if (ldc < std::max<int64_t>(1, m)) return 13;
  return 0;
}

namespace {
bool valid_cblas_trans(int t) { return t == kCblasNoTrans || t == kCblasTrans || t == kCblasConjTrans; }
}  // namespace

int cblas_sgemm_info(int order, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
                     int64_t lda, int64_t ldb, int64_t ldc) {
  if (order != kCblasRowMajor && order != kCblasColMajor) return 1;
  const bool row = order == kCblasRowMajor;
  if (!valid_cblas_trans(trans_a)) return 2;
  if (!valid_cblas_trans(trans_b)) return row ? 2 : 3;  // the reference's row-major branch says 2
  const char ta = trans_a == kCblasNoTrans ? 'N' : 'T', tb = trans_b == kCblasNoTrans ? 'N' : 'T';
  // The reference checks the column-major call it makes (row-major: B and A swapped, N and M
  // swapped) and reports SGEMM's position + 1, the place that argument has in cblas_sgemm's list.
  const int info = row ? sgemm_info(tb, ta, n, m, k, ldb, lda, ldc) : sgemm_info(ta, tb, m, n, k, lda, ldb, ldc);
  return info == 0 ? 0 : info + 1;
}

bool is_quick_return(const ColMajorCall& call) {
  return call.m == 0 || call.n == 0 || ((call.alpha == 0.0f || call.k == 0) && call.beta == 1.0f);
}

bool only_scales_c(const ColMajorCall& call) { return call.alpha == 0.0f || call.k == 0; }

void scale_c_host(const ColMajorCall& call) {
  for (int64_t j = 0; j < call.n; ++j) {
    float* col = call.c + j * call.ldc;
    if (call.beta == 0.0f) {
      std::fill(col, col + call.m, 0.0f);
    } else {
      for (int64_t i = 0; i < call.m; ++i) col[i] *= call.beta;
    }
  }
}

ColMajorCall from_cblas(int order, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
                        float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                        float beta, float* c, int64_t ldc) {
  ColMajorCall call;
  call.alpha = alpha;
  call.beta = beta;
  call.c = c;
  call.ldc = ldc;
  call.k = k;
  const bool ta = trans_a != kCblasNoTrans, tb = trans_b != kCblasNoTrans;
  if (order == kCblasColMajor) {
    call.trans_a = ta, call.trans_b = tb;
    call.m = m, call.n = n;
    call.a = a, call.lda = lda;
    call.b = b, call.ldb = ldb;
  } else {
    call.trans_a = tb, call.trans_b = ta;
    call.m = n, call.n = m;
    call.a = b, call.lda = ldb;
    call.b = a, call.ldb = lda;
  }
  return call;
}

}  // namespace blas
}  // namespace tilegemm
