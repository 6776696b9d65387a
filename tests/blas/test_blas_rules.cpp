// The reference SGEMM's and CBLAS's argument rules as the shim encodes them (blas/sgemm_args.hpp),
// and the parsing of its numeric settings.
#include <gtest/gtest.h>

#include "settings.hpp"
#include "sgemm_args.hpp"

using namespace tilegemm::blas;

TEST(BlasRules, TransCharactersAsLsameReadsThem) {
  for (char c : {'N', 'n'}) EXPECT_EQ(parse_trans(c), 0);
  for (char c : {'T', 't', 'C', 'c'}) EXPECT_EQ(parse_trans(c), 1);
  for (char c : {'X', ' ', '\0', 'y', 'R'}) EXPECT_EQ(parse_trans(c), -1);
}

TEST(BlasRules, SgemmInfoMatchesTheReferenceOrder) {
  EXPECT_EQ(sgemm_info('N', 'N', 3, 4, 5, 3, 5, 3), 0);
  EXPECT_EQ(sgemm_info('T', 'T', 3, 4, 5, 5, 4, 3), 0);
  EXPECT_EQ(sgemm_info('N', 'N', 0, 0, 0, 1, 1, 1), 0);  // leading dimensions are at least 1
  EXPECT_EQ(sgemm_info('N', 'N', 0, 0, 0, 0, 1, 1), 8);
  EXPECT_EQ(sgemm_info('T', 'N', 3, 4, 5, 4, 5, 3), 8);   // A^T: lda >= K
  EXPECT_EQ(sgemm_info('N', 'T', 3, 4, 5, 3, 3, 3), 10);  // B^T: ldb >= N
  EXPECT_EQ(sgemm_info('N', 'N', 3, 4, 5, 3, 5, 2), 13);
  EXPECT_EQ(sgemm_info('N', 'x', -1, 4, 5, 3, 5, 3), 2);  // TRANSB is checked before M
  EXPECT_EQ(sgemm_info('N', 'N', 3, -1, -1, 0, 0, 0), 4);
}

TEST(BlasRules, CblasInfoUsesTheReferencePositionsAndRowLengths) {
  EXPECT_EQ(cblas_sgemm_info(101, 111, 111, 3, 4, 5, 5, 4, 4), 0);
  EXPECT_EQ(cblas_sgemm_info(101, 111, 111, 3, 4, 5, 3, 4, 4), 11);  // row-major A: lda >= K, reported as 11
  EXPECT_EQ(cblas_sgemm_info(101, 111, 111, 3, 4, 5, 5, 3, 4), 9);   // row-major B: ldb >= N, reported as 9
  EXPECT_EQ(cblas_sgemm_info(101, 111, 111, -1, 4, 5, 5, 4, 4), 5);  // row-major M: 5
  EXPECT_EQ(cblas_sgemm_info(101, 111, 111, 3, -1, 5, 5, 4, 4), 4);  // row-major N: 4
  EXPECT_EQ(cblas_sgemm_info(101, 111, 7, 3, 4, 5, 5, 4, 4), 2);     // row-major TransB: 2
  EXPECT_EQ(cblas_sgemm_info(102, 111, 7, 3, 4, 5, 5, 4, 4), 3);
  EXPECT_EQ(cblas_sgemm_info(102, 111, 111, -1, 4, 5, 5, 4, 4), 4);
  EXPECT_EQ(cblas_sgemm_info(102, 111, 111, 3, 4, 5, 2, 5, 3), 9);
  EXPECT_EQ(cblas_sgemm_info(101, 112, 113, 3, 4, 5, 3, 5, 4), 0);   // A^T: lda >= M; B^T: ldb >= K
  EXPECT_EQ(cblas_sgemm_info(102, 111, 111, 3, 4, 5, 3, 5, 3), 0);
  EXPECT_EQ(cblas_sgemm_info(102, 111, 111, 3, 4, 5, 3, 5, 2), 14);
  EXPECT_EQ(cblas_sgemm_info(0, 0, 0, -1, -1, -1, 0, 0, 0), 1);
}

TEST(BlasRules, RowMajorIsTheTransposedColumnMajorProduct) {
  float a[1], b[1], c[1];
  const ColMajorCall call = from_cblas(101, 112, 111, 3, 4, 5, 2.0f, a, 7, b, 8, 0.5f, c, 9);
  EXPECT_FALSE(call.trans_a);  // B's op comes first
  EXPECT_TRUE(call.trans_b);
  EXPECT_EQ(call.m, 4);
  EXPECT_EQ(call.n, 3);
  EXPECT_EQ(call.k, 5);
  EXPECT_EQ(call.a, b);
  EXPECT_EQ(call.lda, 8);
  EXPECT_EQ(call.b, a);
  EXPECT_EQ(call.ldb, 7);
  EXPECT_EQ(call.c, c);
  EXPECT_EQ(call.ldc, 9);
  EXPECT_EQ(call.alpha, 2.0f);
  EXPECT_EQ(call.beta, 0.5f);
}

TEST(BlasRules, QuickReturnAndScaleOnlyCases) {
  ColMajorCall call;
  call.m = 2, call.n = 2, call.k = 2, call.alpha = 1.0f, call.beta = 0.0f;
  EXPECT_FALSE(is_quick_return(call));
  EXPECT_FALSE(only_scales_c(call));
  call.alpha = 0.0f;
  EXPECT_FALSE(is_quick_return(call));  // beta == 0 still zeroes C
  EXPECT_TRUE(only_scales_c(call));
  call.beta = 1.0f;
  EXPECT_TRUE(is_quick_return(call));
  call.alpha = 1.0f, call.k = 0;
  EXPECT_TRUE(is_quick_return(call));
  call.beta = 2.0f;
  EXPECT_FALSE(is_quick_return(call));
  EXPECT_TRUE(only_scales_c(call));
  call.m = 0;
  EXPECT_TRUE(is_quick_return(call));
}

TEST(BlasRules, CountSettingsParse) {
  double v = -1;
  EXPECT_TRUE(parse_count("1e8", &v));
  EXPECT_EQ(v, 1e8);
  EXPECT_TRUE(parse_count("0", &v));
  EXPECT_EQ(v, 0);
  for (const char* bad : {"", "-5", "1e8x", "abc", "inf", "nan"}) EXPECT_FALSE(parse_count(bad, &v)) << bad;
}
