// Where the first product of a process spends its time: the CUDA context, tilegemm's device context,
// the choice (the tuning database is read on the first Auto choice), the first launch (the kernel's
// module is loaded on first use under CUDA's lazy loading), then the same call again.
// Build: bash scripts/build.sh; run in a fresh process each time:
//   build/tilegemm_first_call [M N K]                     (default 65536 36000 32)
//   CUDA_MODULE_LOADING=EAGER build/tilegemm_first_call   (every module of the binary loaded at start)
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "tilegemm/tilegemm.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "first_call: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const long long m = argc > 3 ? std::atoll(argv[1]) : 65536, n = argc > 3 ? std::atoll(argv[2]) : 36000,
                  k = argc > 3 ? std::atoll(argv[3]) : 32;
  const auto start = Clock::now();
  auto t = Clock::now();
  check(cudaFree(nullptr), "cudaFree(0)");
  const double context_ms = ms_since(t);

  float *a, *b, *c;  // uninitialized contents are fine: nothing here reads the result
  check(cudaMalloc(&a, sizeof(float) * m * k), "cudaMalloc(a)");
  check(cudaMalloc(&b, sizeof(float) * k * n), "cudaMalloc(b)");
  check(cudaMalloc(&c, sizeof(float) * m * n), "cudaMalloc(c)");
  check(cudaMemset(a, 0, sizeof(float) * m * k), "cudaMemset(a)");
  check(cudaMemset(b, 0, sizeof(float) * k * n), "cudaMemset(b)");
  check(cudaDeviceSynchronize(), "sync");

  t = Clock::now();
  const tilegemm::DeviceInfo info = tilegemm::current_device_info();
  const double device_ms = ms_since(t);

  using tilegemm::Layout;
  using tilegemm::Op;
  t = Clock::now();
  const tilegemm::GemmChoice choice =
      tilegemm::explain_choice(Layout::RowMajor, Op::N, Op::N, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
  const double choice_ms = ms_since(t);

  double call_ms[3], sync_ms[3];
  for (int i = 0; i < 3; ++i) {
    t = Clock::now();
    tilegemm::sgemm(Layout::RowMajor, Op::N, Op::N, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
    call_ms[i] = ms_since(t);
    t = Clock::now();
    check(cudaDeviceSynchronize(), "sync");
    sync_ms[i] = ms_since(t);
  }
  const char* loading = std::getenv("CUDA_MODULE_LOADING");
  std::printf("%s, %lldx%lldx%lld, config %s, CUDA_MODULE_LOADING=%s\n", info.name.c_str(), m, n, k,
              choice.config.c_str(), loading ? loading : "(default: lazy)");
  std::printf("  CUDA context (cudaFree(0))          %8.2f ms\n", context_ms);
  std::printf("  tilegemm device context             %8.2f ms\n", device_ms);
  std::printf("  first choice (tuning db, model)     %8.2f ms\n", choice_ms);
  for (int i = 0; i < 3; ++i)
    std::printf("  call %d: sgemm returns %8.2f ms, kernel done %8.2f ms later\n", i + 1, call_ms[i], sync_ms[i]);
  std::printf("  first product after the CUDA context %7.2f ms (device context + choice + call 1), later ones %.2f ms\n",
              device_ms + choice_ms + call_ms[0] + sync_ms[0], call_ms[2] + sync_ms[2]);
  std::printf("  total %8.2f ms\n", ms_since(start));
  cudaFree(a), cudaFree(b), cudaFree(c);
  return 0;
}
