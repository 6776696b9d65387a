#include "tune/measure.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "kernels/common/out_convert.cuh"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

__global__ void fill_uniform_kernel(float* d, int64_t count, uint64_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x) {
    uint64_t x = (uint64_t(i) + 1) * 0x9E3779B97F4A7C15ull ^ seed * 0xD1B54A32D192ED03ull;
    x ^= x >> 31; x *= 0x7FB5D329728EA185ull; x ^= x >> 27; x *= 0x81DADEF4BC2DD44Dull; x ^= x >> 33;
    d[i] = float(x >> 40) * (2.0f / 16777216.0f) - 1.0f;  // 24 random bits -> [-1, 1)
  }
}
__global__ void fill_value_kernel(float* d, int64_t count, float v) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
    d[i] = v;
}
// max_bits[0]: max |x - y|, max_bits[1]: max |y| (non-negative floats order like their bits).
__global__ void compare_kernel(const float* x, const float* y, int64_t outer, int64_t inner, int64_t ld,
                               unsigned* max_bits, int* non_finite) {
  const int64_t count = outer * inner;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < count; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = (e / inner) * ld + e % inner;
    const float d = fabsf(x[i] - y[i]);
    if (!isfinite(x[i]) || !isfinite(d)) *non_finite = 1;
    else atomicMax(max_bits, __float_as_uint(d));
    if (isfinite(y[i])) atomicMax(max_bits + 1, __float_as_uint(fabsf(y[i])));
  }
}
template <class T>
__global__ void narrow_kernel(const float* src, T* dst, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
    dst[i] = kernels::to_out<T>(src[i]);
}
template <class T>
__global__ void widen_kernel(const T* src, float* dst, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
    dst[i] = kernels::from_out(src[i]);
}

// Reads `bytes` (a multiple of 16) and writes nothing unless a value is NaN, which the zero-filled flush
// buffer never holds: afterwards L2 holds only clean lines of the flush buffer. (A memset as the flush
// leaves L2 full of dirty lines whose write-backs then share the DRAM bandwidth with the timed kernel.)
__global__ void read_flush_kernel(const float4* d, size_t count4, float* sink) {
  float acc = 0.0f;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count4; i += size_t(gridDim.x) * blockDim.x) {
    const float4 v = __ldcg(d + i);
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc != acc) *sink = acc;
}

void fill_uniform(float* d, int64_t count, uint64_t seed, cudaStream_t s) {
  if (count <= 0) return;
  fill_uniform_kernel<<<1024, 256, 0, s>>>(d, count, seed);
  TILEGEMM_CHECK_LAUNCH();
}
void narrow_from_f32(const float* src, DType t, void* dst, int64_t count, cudaStream_t s) {
  if (count <= 0) return;
  if (t == DType::F32) {
    TILEGEMM_CUDA_CHECK(cudaMemcpyAsync(dst, src, count * sizeof(float), cudaMemcpyDeviceToDevice, s));
    return;
  }
  if (t == DType::F16) narrow_kernel<<<1024, 256, 0, s>>>(src, static_cast<kernels::f16_t*>(dst), count);
  else narrow_kernel<<<1024, 256, 0, s>>>(src, static_cast<kernels::bf16_t*>(dst), count);
  TILEGEMM_CHECK_LAUNCH();
}
void widen_to_f32(const void* src, DType t, float* dst, int64_t count, cudaStream_t s) {
  if (count <= 0) return;
  if (t == DType::F32) {
    TILEGEMM_CUDA_CHECK(cudaMemcpyAsync(dst, src, count * sizeof(float), cudaMemcpyDeviceToDevice, s));
    return;
  }
  if (t == DType::F16) widen_kernel<<<1024, 256, 0, s>>>(static_cast<const kernels::f16_t*>(src), dst, count);
  else widen_kernel<<<1024, 256, 0, s>>>(static_cast<const kernels::bf16_t*>(src), dst, count);
  TILEGEMM_CHECK_LAUNCH();
}
void fill_value(float* d, int64_t count, float value, cudaStream_t s) {
  if (count <= 0) return;
  fill_value_kernel<<<1024, 256, 0, s>>>(d, count, value);
  TILEGEMM_CHECK_LAUNCH();
}

Diff compare_matrix(const float* x, const float* y, int64_t outer, int64_t inner, int64_t ld, cudaStream_t s) {
  const int64_t count = outer * inner;
  DeviceBuffer<unsigned> max_bits(2);
  DeviceBuffer<int> non_finite(1);
  TILEGEMM_CUDA_CHECK(cudaMemsetAsync(max_bits.get(), 0, 2 * sizeof(unsigned), s));
  TILEGEMM_CUDA_CHECK(cudaMemsetAsync(non_finite.get(), 0, sizeof(int), s));
  if (count > 0) {
    compare_kernel<<<1024, 256, 0, s>>>(x, y, outer, inner, ld, max_bits.get(), non_finite.get());
    TILEGEMM_CHECK_LAUNCH();
  }
  // download() copies on the legacy stream, which is not ordered after a non-blocking stream.
  TILEGEMM_CUDA_CHECK(cudaStreamSynchronize(s));
  const std::vector<unsigned> bits = max_bits.download();
  Diff diff;
  float f[2];
  std::memcpy(f, bits.data(), sizeof f);
  diff.max_abs = f[0];
  diff.max_y = f[1];
  diff.non_finite = non_finite.download()[0] != 0;
  return diff;
}

namespace {

// The timing events and the graph, released whatever path leaves time_runs.
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  void create() {
    TILEGEMM_CUDA_CHECK(cudaEventCreate(&start));
    TILEGEMM_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~EventPair() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
  }
};

struct Graph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~Graph() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
  }
};

// Graph-mode failures: the message names the mode; the error a failed capture leaves behind (it is
// also returned by the next cudaGetLastError, e.g. a later launch check) is cleared first.
[[noreturn]] void graph_fail(int n, const std::string& what) {
  cudaGetLastError();
  throw Error(ErrorCode::CudaError, "graph mode (--graph-batch " + std::to_string(n) + "): " + what);
}
void graph_check(cudaError_t e, int n, const std::string& call) {
  if (e != cudaSuccess)
    graph_fail(n, call + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

// Captures n calls of `launch` on `s` into g.graph and instantiates it into g.exec. The capture is
// always ended, whatever `launch` did, so the stream never stays in capture mode.
void capture(const std::function<void()>& launch, int n, cudaStream_t s, Graph& g) {
  graph_check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), n, "cudaStreamBeginCapture");
  std::string failure;
  try {
    for (int i = 0; i < n; ++i) launch();
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {
    failure = "unknown exception";
  }
  const cudaError_t end = cudaStreamEndCapture(s, &g.graph);
  const std::string capturing = "capturing " + std::to_string(n) + " launches into a CUDA graph failed: ";
  if (!failure.empty()) graph_fail(n, capturing + failure);
  // No error inside the launches, but the capture was invalidated: a call not allowed while capturing
  // (a synchronous copy, an allocation, a device synchronization) or work joined from another stream.
  if (end != cudaSuccess)
    graph_fail(n, capturing + "cudaStreamEndCapture: " + cudaGetErrorName(end) + " (" + cudaGetErrorString(end) +
                      "): the launch makes a call that cannot be captured");
  size_t nodes = 0;
  graph_check(cudaGraphGetNodes(g.graph, nullptr, &nodes), n, "cudaGraphGetNodes");
  // Every launch enqueues at least one kernel; fewer nodes means work went to another stream (then
  // it ran once, eagerly, and the graph would time less than n launches).
  if (nodes < static_cast<size_t>(n))
    graph_fail(n, "the capture of " + std::to_string(n) + " launches holds " + std::to_string(nodes) +
                      " graph nodes: not all of the work is enqueued on the timed stream");
  graph_check(cudaGraphInstantiate(&g.exec, g.graph, 0), n, "cudaGraphInstantiate");
}

}  // namespace

Timing time_runs(const std::function<void()>& launch, double min_time_s, size_t flush_bytes, int graph_batch,
                 cudaStream_t s) {
  DeviceBuffer<char> flush(flush_bytes / 16 * 16);
  DeviceBuffer<float> sink(1);
  if (flush.size() > 0) TILEGEMM_CUDA_CHECK(cudaMemsetAsync(flush.get(), 0, flush.size(), s));
  auto flush_l2 = [&] {
    read_flush_kernel<<<1024, 256, 0, s>>>(reinterpret_cast<const float4*>(flush.get()), flush.size() / 16, sink.get());
    TILEGEMM_CHECK_LAUNCH();
  };
  EventPair ev;
  ev.create();
  // Warm-up: module load, first-touch, clocks; before a capture also every lazy one-time set-up of the
  // launch (kernel attributes, cuBLAS's heuristics), so none of it happens while capturing.
  for (int i = 0; i < kWarmupRuns; ++i) launch();
  TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
  Graph graph;
  if (graph_batch > 0) {
    capture(launch, graph_batch, s, graph);
    for (int i = 0; i < kWarmupRuns; ++i)  // the graph's own warm-up (upload to the device)
      graph_check(cudaGraphLaunch(graph.exec, s), graph_batch, "cudaGraphLaunch (warm-up)");
    graph_check(cudaStreamSynchronize(s), graph_batch, "the warm-up graph launch");
  }
  std::vector<double> samples;
  double total = 0.0;
  while ((samples.size() < size_t(kMinReps) || total < min_time_s * 1e3) && samples.size() < size_t(kMaxReps)) {
    // Cold L2: flushed before each sample; in graph mode that is before each graph launch, so only the
    // graph's first launch starts cold.
    if (flush.size() > 0) flush_l2();
    TILEGEMM_CUDA_CHECK(cudaEventRecord(ev.start, s));
    if (graph_batch > 0)
      graph_check(cudaGraphLaunch(graph.exec, s), graph_batch, "cudaGraphLaunch");
    else
      launch();
    TILEGEMM_CUDA_CHECK(cudaEventRecord(ev.stop, s));
    TILEGEMM_CUDA_CHECK(cudaEventSynchronize(ev.stop));
    float ms = 0;
    TILEGEMM_CUDA_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    samples.push_back(ms);
    total += ms;
  }
  std::sort(samples.begin(), samples.end());
  const double per_launch = graph_batch > 0 ? 1.0 / graph_batch : 1.0;  // a sample's share of one launch
  Timing t;
  t.reps = static_cast<int>(samples.size());
  t.graph_batch = graph_batch > 0 ? graph_batch : 0;
  t.min_ms = samples.front() * per_launch;
  t.max_ms = samples.back() * per_launch;
  t.median_ms = (samples.size() % 2 ? samples[samples.size() / 2]
                                    : 0.5 * (samples[samples.size() / 2 - 1] + samples[samples.size() / 2])) *
                per_launch;
  return t;
}

}  // namespace detail
}  // namespace tilegemm
