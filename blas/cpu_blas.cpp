#include "cpu_blas.hpp"

#include <dlfcn.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

extern "C" void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*,
                       const float*, const int*, const float*, const int*, const float*, float*,
                       const int*, size_t, size_t);

namespace tilegemm {
namespace blas {
namespace {

// The Fortran SGEMM ABI (gfortran): every argument by reference, then the hidden lengths of the two
// character arguments.
using FortranSgemm = void (*)(const char*, const char*, const int*, const int*, const int*,
                              const float*, const float*, const int*, const float*, const int*,
                              const float*, float*, const int*, size_t, size_t);

struct CpuBlas {
  FortranSgemm fn = nullptr;  // nullptr: builtin_sgemm
  std::string name = "builtin";
  std::string warning;
};

// Accepts a resolved sgemm_ unless it is the shim's own (which would recurse).
bool accept(CpuBlas& out, void* sym) {
  if (sym == nullptr || sym == reinterpret_cast<void*>(&sgemm_)) return false;
  out.fn = reinterpret_cast<FortranSgemm>(sym);
  Dl_info info{};
  out.name = (dladdr(sym, &info) != 0 && info.dli_fname != nullptr) ? info.dli_fname : "sgemm_";
  return true;
}

bool accept_library(CpuBlas& out, const char* path) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return false;
  if (accept(out, dlsym(handle, "sgemm_"))) return true;
  dlclose(handle);
  return false;
}

CpuBlas find_cpu_blas() {
  CpuBlas found;
  if (const char* lib = std::getenv("TILEGEMM_BLAS_CPU_LIB"); lib != nullptr && *lib != '\0') {
    if (std::strcmp(lib, "builtin") == 0) return found;
    if (accept_library(found, lib)) return found;
    found.warning = std::string("TILEGEMM_BLAS_CPU_LIB='") + lib +
                    "' has no loadable sgemm_; looking for the system BLAS instead";
  }
  if (accept(found, dlsym(RTLD_NEXT, "sgemm_"))) return found;
  if (accept_library(found, "libblas.so.3")) return found;
  return found;
}

const CpuBlas& cpu_blas() {
  static const CpuBlas blas = find_cpu_blas();
  return blas;
}

}  // namespace

const std::string& cpu_blas_name() { return cpu_blas().name; }
const std::string& cpu_blas_warning() { return cpu_blas().warning; }

void cpu_sgemm(const ColMajorCall& call) {
  const CpuBlas& blas = cpu_blas();
  if (blas.fn == nullptr) return builtin_sgemm(call);
  const char ta = call.trans_a ? 'T' : 'N', tb = call.trans_b ? 'T' : 'N';
  const int m = int(call.m), n = int(call.n), k = int(call.k);
  const int lda = int(call.lda), ldb = int(call.ldb), ldc = int(call.ldc);
  blas.fn(&ta, &tb, &m, &n, &k, &call.alpha, call.a, &lda, call.b, &ldb, &call.beta, call.c, &ldc, 1, 1);
}

void builtin_sgemm(const ColMajorCall& call) {
  const int64_t m = call.m, n = call.n, k = call.k;
  auto A = [&](int64_t i, int64_t j) { return call.a[i + j * call.lda]; };  // stored (i, j)
  auto B = [&](int64_t i, int64_t j) { return call.b[i + j * call.ldb]; };
  auto C = [&](int64_t i, int64_t j) -> float& { return call.c[i + j * call.ldc]; };
  if (is_quick_return(call)) return;
  if (only_scales_c(call)) return scale_c_host(call);
  for (int64_t j = 0; j < n; ++j) {
    if (!call.trans_a) {
      // C(:, j) = beta * C(:, j) + sum_l alpha * op(B)(l, j) * A(:, l), as the reference orders it.
      for (int64_t i = 0; i < m; ++i) C(i, j) = call.beta == 0.0f ? 0.0f : call.beta * C(i, j);
      for (int64_t l = 0; l < k; ++l) {
        const float t = call.alpha * (call.trans_b ? B(j, l) : B(l, j));
        for (int64_t i = 0; i < m; ++i) C(i, j) += t * A(i, l);
      }
    } else {
      for (int64_t i = 0; i < m; ++i) {
        float t = 0.0f;
        for (int64_t l = 0; l < k; ++l) t += A(l, i) * (call.trans_b ? B(j, l) : B(l, j));
        C(i, j) = call.alpha * t + (call.beta == 0.0f ? 0.0f : call.beta * C(i, j));
      }
    }
  }
}

}  // namespace blas
}  // namespace tilegemm
