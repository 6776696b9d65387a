// Shared measuring harness of the tilegemm command, for every operation: the stream, inputs,
// verification and timing (docs/benchmarking.md describes the method).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>

#include "report.hpp"
#include "tune/measure.hpp"

namespace tilegemm {
namespace tools {

// The one stream the command works on: every contender (our kernels, cuBLAS, cuSPARSE), the helper
// kernels below and the timing events. Created on first use (after the device checks) with
// cudaStreamNonBlocking and kept for the life of the process: not the legacy default stream, which
// cannot be captured into a CUDA graph (--graph-batch). A non-blocking stream is not ordered after
// the legacy stream, so host code that copies with cudaMemcpy (DeviceBuffer::upload/download,
// DeviceBsrMatrix) synchronizes the device before using the data on this stream, and this stream
// before reading results back.
cudaStream_t bench_stream();

// One block of an empty kernel on bench_stream(): the floor of a launch's host cost (overhead).
void launch_empty_kernel();

// Uniform [-1, 1) inputs and NaN poison on bench_stream() (tune/measure.hpp).
inline void fill_uniform(float* d, int64_t count, uint64_t seed) { detail::fill_uniform(d, count, seed, bench_stream()); }
inline void fill_value(float* d, int64_t count, float value) { detail::fill_value(d, count, value, bench_stream()); }

// max |x - y| and unwritten poison (tune/measure.hpp), after the work on bench_stream().
using detail::Diff;
inline Diff compare_matrix(const float* x, const float* y, int64_t outer, int64_t inner, int64_t ld) {
  return detail::compare_matrix(x, y, outer, inner, ld, bench_stream());
}
inline Diff compare(const float* x, const float* y, int64_t count) { return compare_matrix(x, y, 1, count, count); }

// The timing method of every contender (detail::time_runs, tune/measure.hpp) on bench_stream():
// cold L2 with `flush_bytes` > 0, CUDA graphs of `graph_batch` launches with --graph-batch.
inline Timing time_runs(const std::function<void()>& launch, double min_time_s, size_t flush_bytes,
                        int graph_batch = 0) {
  return detail::time_runs(launch, min_time_s, flush_bytes, graph_batch, bench_stream());
}

// How a run times its contenders (--min-time, cold or warm L2, --graph-batch).
struct TimingPlan {
  double min_time_s = 0.5;
  size_t flush_bytes = 0;
  int graph_batch = 0;
};

// The one measuring step of every bench, whatever the operation. Unless `compare` is empty (the run's
// reference itself): `poison` fills the output with NaN, `run` computes it once, and `compare` measures
// it against the reference; a wrong result makes a FAILED row, which gets no time. Then `run` is timed:
// the row gets its timing, TFLOP/s (`flops` per run) and % of `peak_tflops`. A tilegemm::Error other
// than out-of-memory makes a FAILED row; out-of-memory stops the run.
void verify_and_time(Row& r, const std::function<void()>& run, const std::function<void()>& poison,
                     const std::function<Diff()>& compare, double flops, double peak_tflops, const TimingPlan& timing);

}  // namespace tools
}  // namespace tilegemm
