// Device-side measuring blocks shared by `tilegemm bench` and the tuner: random inputs, poison,
// element-wise comparison, and event timing with a cold L2 (docs/benchmarking.md). Everything is
// enqueued on the given stream.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>

#include "tilegemm/types.hpp"
#include "tune/timing.hpp"

namespace tilegemm {
namespace detail {

// Uniform [-1, 1) from a counter-based hash (deterministic per seed); fill_value(NaN) poisons.
void fill_uniform(float* d, int64_t count, uint64_t seed, cudaStream_t s);
void fill_value(float* d, int64_t count, float value, cudaStream_t s);
// dst[i] = src[i] rounded to nearest even in `t` (F32: copied), and dst[i] = src[i] widened to FP32
// (exact): a 16-bit product's operands, their FP32 copies for a reference, its output compared.
void narrow_from_f32(const float* src, DType t, void* dst, int64_t count, cudaStream_t s);
void widen_to_f32(const void* src, DType t, float* dst, int64_t count, cudaStream_t s);

// max |x - y| over a strided matrix (`outer` rows of `inner` elements, `ld` apart; padding not
// compared) and whether any x is non-finite (unwritten NaN poison). Waits for `s` before reading the
// answer back.
struct Diff {
  double max_abs = 0.0;
  double max_y = 0.0;  // max |y| over the finite y: the scale of an error bound relative to the result
  bool non_finite = false;
};
Diff compare_matrix(const float* x, const float* y, int64_t outer, int64_t inner, int64_t ld, cudaStream_t s);

// Runs `launch` kWarmupRuns times, then repeats it (at least kMinReps times, until `min_time_s` of
// kernel time) timing each run with CUDA events. With `flush_bytes` > 0 a buffer that large is read
// before every run, outside the timed region, so each run starts with a cold L2. `launch` must
// enqueue its work on `s` and nothing else; the events are recorded there.
//
// With `graph_batch` N > 0: after kWarmupRuns plain calls, N consecutive calls of `launch` are
// captured into one CUDA graph (cudaStreamCaptureModeThreadLocal on `s`), which is instantiated and
// launched kWarmupRuns times as warm-up; then each sample is one whole-graph launch between two
// events, and median/min/max are the graph's time / N: the per-launch time of back-to-back launches,
// without the ~5 us floor of an event pair around each launch. The L2 flush happens once before each
// graph launch, so only the graph's first launch starts cold. A capture that fails is ended cleanly,
// its sticky error cleared, and reported as Error(CudaError) whose message starts
// "graph mode (--graph-batch N): ".
Timing time_runs(const std::function<void()>& launch, double min_time_s, size_t flush_bytes, int graph_batch,
                 cudaStream_t s);

}  // namespace detail
}  // namespace tilegemm
