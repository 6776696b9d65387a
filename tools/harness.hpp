// Shared measuring harness of the tilegemm command: inputs, the cuBLAS baseline, verification and
// event timing (docs/benchmarking.md describes the method).
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>

#include "problem.hpp"

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

// Uniform [-1, 1) from a counter-based hash (deterministic per seed); fill(NaN) poisons outputs.
// Both are enqueued on bench_stream().
void fill_uniform(float* d, int64_t count, uint64_t seed);
void fill_value(float* d, int64_t count, float value);

// cuBLAS FP32 with CUBLAS_COMPUTE_32F_PEDANTIC (no TF32), mapped from our layout conventions, on
// bench_stream() with a workspace of its own (cublasSetWorkspace: 32 MiB on compute capability 9.x
// and later, 4 MiB before, the sizes cuBLAS documents for its default pool), so a call can be
// captured into a CUDA graph without cuBLAS allocating during the capture.
class Cublas {
 public:
  Cublas();
  ~Cublas();
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  void sgemm(const Problem& p, float alpha, const float* a, const float* b, float beta, float* c);

 private:
  cublasHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
};

// max |x - y| over `count` elements and whether any x is non-finite (unwritten NaN poison). Waits
// for bench_stream() (the work that wrote x and y) before reading the answer back.
struct Diff {
  double max_abs = 0.0;
  bool non_finite = false;
};
Diff compare(const float* x, const float* y, int64_t count);
// The same over a strided matrix: `outer` rows of `inner` elements, `ld` apart (padding not compared).
Diff compare_matrix(const float* x, const float* y, int64_t outer, int64_t inner, int64_t ld);
// C of `p` in buffers allocated with p.size_c() elements (the matrix starts at p.offset).
Diff compare_c(const Problem& p, const float* x_buffer, const float* y_buffer);

// Runs `launch` kWarmupRuns times, then repeats it (at least kMinReps times, until `min_time_s` of
// kernel time) timing each run with CUDA events. With `flush_bytes` > 0 a buffer that large is read before
// every run, outside the timed region, so each run starts with a cold L2. `launch` must enqueue its
// work on bench_stream() and nothing else; the events are recorded there.
//
// With `graph_batch` N > 0 (--graph-batch): after kWarmupRuns plain calls, N consecutive calls of
// `launch` are captured into one CUDA graph (cudaStreamCaptureModeThreadLocal on bench_stream()),
// which is instantiated and launched kWarmupRuns times as warm-up; then each sample is one whole-graph
// launch between two events (same min-time / kMinReps / kMaxReps loop), and median/min/max are the
// graph's time / N: the per-launch time of back-to-back launches, without the ~5 us floor of an event
// pair around each launch. The L2 flush happens once before each graph launch, so only the graph's
// first launch starts cold: graph mode is in effect warm-L2. A capture that fails (a CUDA, cuBLAS or
// cuSPARSE error, or a call not allowed while capturing) is ended cleanly, its sticky error cleared,
// and reported as Error(CudaError) whose message starts "graph mode (--graph-batch N): ".
Timing time_runs(const std::function<void()>& launch, double min_time_s, size_t flush_bytes, int graph_batch = 0);

}  // namespace tools
}  // namespace tilegemm
