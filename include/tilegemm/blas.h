/* The BLAS drop-in, libtilegemm_blas.so (docs/blas.md): the reference BLAS SGEMM and CBLAS
 * cblas_sgemm on host or device memory, run on the GPU when that pays off and on the CPU BLAS it
 * shadows otherwise. A C header: programs normally reach these through their own BLAS headers
 * (cblas.h, or a Fortran compiler); this one adds the shim's own counters. LP64: 32-bit integers. */
#ifndef TILEGEMM_BLAS_H
#define TILEGEMM_BLAS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fortran SGEMM (column-major, every argument by reference, then the hidden lengths of TRANSA and
 * TRANSB that gfortran passes; only their first character is read). */
void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
            const float* beta, float* c, const int* ldc, size_t transa_len, size_t transb_len);

/* CBLAS: order 101 row-major / 102 column-major; trans 111 N, 112 T, 113 C (same as T). */
void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                 const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);

/* The error handlers the shim calls for an invalid argument. Its own print the reference message
 * and return (the reference XERBLA stops the program; a library must not). A program replaces them
 * by defining its own, as with the reference BLAS. */
void xerbla_(const char* srname, const int* info, size_t srname_len);
void cblas_xerbla(int p, const char* rout, const char* form, ...);
/* As in the reference CBLAS: 1 while cblas_sgemm calls cblas_xerbla for a row-major call, whose
 * positions are then those of the column-major call it stands for (5 for M, 4 for N, 11 for lda,
 * 9 for ldb); a handler maps them back with it, as the reference's does. 0 otherwise. */
extern int RowMajorStrg;

/* Where the shim's calls went, counted since the process started. */
enum tilegemm_blas_route {
  TILEGEMM_BLAS_QUICK = 0,        /* quick return or C = beta*C on the host: no BLAS needed */
  TILEGEMM_BLAS_CPU = 1,          /* below TILEGEMM_BLAS_MIN_FLOPS: the CPU BLAS */
  TILEGEMM_BLAS_CPU_FALLBACK = 2, /* meant for the GPU, ran (or finished) on the CPU BLAS */
  TILEGEMM_BLAS_GPU_DIRECT = 3,   /* device pointers: the product ran in place */
  TILEGEMM_BLAS_GPU_STAGED = 4,   /* host pointers: staged through device memory */
  TILEGEMM_BLAS_FAILED = 5,       /* device pointers and no usable GPU: C left unchanged */
  TILEGEMM_BLAS_ROUTES = 6
};
void tilegemm_blas_route_counts(unsigned long long counts[TILEGEMM_BLAS_ROUTES]);

/* The CPU BLAS the shim calls: the path of the library holding its sgemm_, or "builtin" (docs/blas.md
 * says how it is found). Looks it up on the first call. */
const char* tilegemm_blas_cpu_library(void);

#ifdef __cplusplus
}
#endif
#endif
