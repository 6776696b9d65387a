// The exported entry points: argument checks as the reference BLAS makes them, then the route
// (quick return, CPU BLAS, GPU in place, GPU staged) and the fallbacks. No exception leaves here.
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <string>

#include "cpu_blas.hpp"
#include "gpu_sgemm.hpp"
#include "settings.hpp"
#include "sgemm_args.hpp"
#include "tilegemm/blas.h"
#include "tilegemm/device.hpp"

namespace tilegemm {
namespace blas {
namespace {

std::atomic<unsigned long long> g_route_counts[TILEGEMM_BLAS_ROUTES];

void print_line(const std::string& line) { std::fprintf(stderr, "tilegemm_blas: %s\n", line.c_str()); }

// The one warning a process gets when the GPU cannot be used (TILEGEMM_BLAS_QUIET=1 silences it).
void warn_once(const std::string& what) {
  static std::once_flag once;
  if (settings().quiet) return;
  std::call_once(once, [&] {
    if (!cpu_blas_warning().empty()) print_line("warning: " + cpu_blas_warning());
    print_line("warning: " + what + "; running on the CPU BLAS (" + cpu_blas_name() + ")");
  });
}

// A malformed environment variable is said once, at the first call (it is the user's setting).
void report_settings_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (!settings().problem.empty()) print_line("warning: " + settings().problem);
  });
}

// The GPU's state for the process: unknown until a call wants it, then usable or not.
enum class GpuState { Unknown, Usable, Unusable };
std::atomic<GpuState> g_gpu{GpuState::Unknown};

bool gpu_usable() {
  GpuState s = g_gpu.load();
  if (s == GpuState::Unknown) {
    s = device_count() > 0 ? GpuState::Usable : GpuState::Unusable;
    g_gpu.store(s);
    if (s == GpuState::Unusable) warn_once("no CUDA device is visible");
  }
  return s == GpuState::Usable;
}

std::string describe(const ColMajorCall& call) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%c%c %lldx%lldx%lld alpha=%g beta=%g", call.trans_a ? 'T' : 'N',
                call.trans_b ? 'T' : 'N', (long long)call.m, (long long)call.n, (long long)call.k,
                double(call.alpha), double(call.beta));
  return buf;
}

// Counts the call's route and, with TILEGEMM_BLAS_LOG=1, prints it (strings are only built then:
// this runs on every call, however small).
void finish(const char* entry, const ColMajorCall& call, int route, const char* where) {
  g_route_counts[route].fetch_add(1, std::memory_order_relaxed);
  if (!settings().log) return;
  const bool cpu = route == TILEGEMM_BLAS_CPU || route == TILEGEMM_BLAS_CPU_FALLBACK;
  print_line(std::string(entry) + " " + describe(call) + " -> " + where +
             (cpu ? " (" + cpu_blas_name() + ")" : std::string()));
}

void run(const char* entry, const ColMajorCall& call) {
  report_settings_once();
  if (is_quick_return(call)) return finish(entry, call, TILEGEMM_BLAS_QUICK, "quick return");
  // Pointers can only be device memory when the process has loaded the CUDA driver; otherwise
  // nothing touches CUDA and small products cost no more than the CPU BLAS call.
  OnDevice on;
  if (cuda_driver_loaded()) on = classify(call);
  if (only_scales_c(call)) {  // A and B are not read
    if (!on.c) {
      scale_c_host(call);
      return finish(entry, call, TILEGEMM_BLAS_QUICK, "C = beta*C on the host");
    }
    on.a = on.b = true;
  }
  const bool want_gpu = on.any() || call.flops() >= settings().min_flops;
  if (want_gpu && gpu_usable()) {
    GpuPath path = GpuPath::Direct;
    const std::optional<GpuFailure> failure = gpu_sgemm(call, on, &path);
    if (!failure) {
      return finish(entry, call,
                    path == GpuPath::Direct ? TILEGEMM_BLAS_GPU_DIRECT : TILEGEMM_BLAS_GPU_STAGED,
                    path == GpuPath::Direct ? "gpu (device memory)" : "gpu (staged from host memory)");
    }
    if (failure->device_unusable) g_gpu.store(GpuState::Unusable);
    if (!failure->cpu_rest) {
      print_line("error: " + std::string(entry) + " " + describe(call) + " on device memory failed on the GPU (" +
                 failure->message + "); C may be incomplete");
      return finish(entry, call, TILEGEMM_BLAS_FAILED, "failed");
    }
    warn_once("the GPU failed (" + failure->message + ")");
    cpu_sgemm(*failure->cpu_rest);
    return finish(entry, call, TILEGEMM_BLAS_CPU_FALLBACK, "cpu after a GPU failure");
  }
  if (on.any()) {
    print_line("error: " + std::string(entry) + " " + describe(call) +
               " has device pointers and no usable GPU; C is unchanged");
    return finish(entry, call, TILEGEMM_BLAS_FAILED, "failed");
  }
  cpu_sgemm(call);
  if (want_gpu) return finish(entry, call, TILEGEMM_BLAS_CPU_FALLBACK, "cpu, no usable GPU");
  finish(entry, call, TILEGEMM_BLAS_CPU, "cpu below TILEGEMM_BLAS_MIN_FLOPS");
}

// Nothing may unwind into a Fortran or C caller.
template <class F>
void guarded(const char* entry, F&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    print_line(std::string("error: ") + entry + ": " + e.what());
  } catch (...) {
    print_line(std::string("error: ") + entry + ": unknown failure");
  }
}

}  // namespace
}  // namespace blas
}  // namespace tilegemm

using namespace tilegemm::blas;

extern "C" {

__attribute__((visibility("default"))) void sgemm_(const char* transa, const char* transb,
                                                   const int* m, const int* n, const int* k,
                                                   const float* alpha, const float* a, const int* lda,
                                                   const float* b, const int* ldb, const float* beta,
                                                   float* c, const int* ldc, size_t, size_t) {
  const int info = sgemm_info(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc);
  if (info != 0) {
    xerbla_("SGEMM ", &info, 6);
    return;
  }
  ColMajorCall call;
  call.trans_a = parse_trans(*transa) == 1;
  call.trans_b = parse_trans(*transb) == 1;
  call.m = *m, call.n = *n, call.k = *k;
  call.alpha = *alpha, call.beta = *beta;
  call.a = a, call.lda = *lda;
  call.b = b, call.ldb = *ldb;
  call.c = c, call.ldc = *ldc;
  guarded("sgemm_", [&] { run("sgemm_", call); });
}

__attribute__((visibility("default"))) void cblas_sgemm(int order, int trans_a, int trans_b, int m,
                                                        int n, int k, float alpha, const float* a,
                                                        int lda, const float* b, int ldb, float beta,
                                                        float* c, int ldc) {
  const int info = cblas_sgemm_info(order, trans_a, trans_b, m, n, k, lda, ldb, ldc);
  if (info != 0) {
    // As the reference: the handler sees RowMajorStrg set for row-major calls (its positions are
    // those of the swapped column-major call), and the flag is clear again after the call.
    RowMajorStrg = order == kCblasRowMajor ? 1 : 0;
    cblas_xerbla(info, "cblas_sgemm", "");
    RowMajorStrg = 0;
    return;
  }
  const ColMajorCall call = from_cblas(order, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  guarded("cblas_sgemm", [&] { run("cblas_sgemm", call); });
}

__attribute__((visibility("default"))) void tilegemm_blas_route_counts(
    unsigned long long counts[TILEGEMM_BLAS_ROUTES]) {
  for (int i = 0; i < TILEGEMM_BLAS_ROUTES; ++i) counts[i] = g_route_counts[i].load();
}

__attribute__((visibility("default"))) const char* tilegemm_blas_cpu_library(void) {
  return cpu_blas_name().c_str();
}

}  // extern "C"
