// The shim's default error handlers, in their own file so that calls to them from entry.cpp go
// through the dynamic symbol table and a program's own xerbla_ / cblas_xerbla takes their place.
// They print what the reference prints and return: the reference XERBLA stops the program, and a
// library must never end its host.
#include <cstdarg>
#include <cstddef>
#include <cstdio>

#include "tilegemm/blas.h"

extern "C" {

__attribute__((visibility("default"))) void xerbla_(const char* srname, const int* info, size_t len) {
  size_t n = 0;  // the routine name without its trailing blanks, as the reference trims it
  for (size_t i = 0; i < len && srname[i] != '\0'; ++i)
    if (srname[i] != ' ') n = i + 1;
  std::fprintf(stderr, " ** On entry to %.*s parameter number %2d had an illegal value\n", int(n), srname, *info);
}

// The reference CBLAS's flag "the current call is row-major", which its cblas_xerbla (and a
// program's own, written against it) reads to turn the swapped column-major positions back into the
// caller's. cblas_sgemm sets it around the handler's call, as the reference does.
__attribute__((visibility("default"))) int RowMajorStrg = 0;

__attribute__((visibility("default"))) void cblas_xerbla(int p, const char* rout, const char* form, ...) {
  if (RowMajorStrg) {  // the reference's mapping for the gemm routines
    if (p == 4 || p == 5) p = 9 - p;
    else if (p == 9 || p == 11) p = 20 - p;
  }
  if (p != 0) std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", p, rout);
  va_list args;
  va_start(args, form);
  std::vfprintf(stderr, form, args);
  va_end(args);
}

}  // extern "C"
