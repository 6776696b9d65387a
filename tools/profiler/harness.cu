#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "harness.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace tools {

__global__ void empty_kernel() {}

void launch_empty_kernel() {
  empty_kernel<<<1, 32, 0, bench_stream()>>>();
  TILEGEMM_CHECK_LAUNCH();
}

cudaStream_t bench_stream() {
  // Never destroyed: it lives as long as the process (destroying it from a static destructor could run
  // after the CUDA runtime has shut down).
  static const cudaStream_t stream = [] {
    cudaStream_t s = nullptr;
    TILEGEMM_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
  }();
  return stream;
}


void verify_and_time(Row& r, const std::function<void()>& run, const std::function<void()>& poison,
                     const std::function<Diff()>& compare, double flops, double peak_tflops, const TimingPlan& timing) {
  try {
    if (compare) {
      poison();  // unwritten elements show up
      run();
      TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
      const Diff d = compare();
      r.max_err = d.max_abs;
      if (d.non_finite || d.max_abs > r.tol) {
        char msg[160];
        std::snprintf(msg, sizeof msg, "FAILED: %s max |result - reference| = %.3g > tolerance %.3g",
                      d.non_finite ? "non-finite output," : "", d.max_abs, r.tol);
        r.status = msg;
        return;
      }
    }
    r.t = time_runs(run, timing.min_time_s, timing.flush_bytes, timing.graph_batch);
    r.status = "ok";
    r.tflops = flops / (r.t.median_ms * 1e-3) / 1e12;
    r.peak_pct = peak_tflops > 0 ? 100.0 * r.tflops / peak_tflops : 0;
  } catch (const Error& e) {
    if (e.code() == ErrorCode::OutOfMemory) throw;
    r.status = std::string("FAILED: ") + e.what();
  }
}

}  // namespace tools
}  // namespace tilegemm
