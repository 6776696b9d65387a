#include <cmath>
#include <cstring>

#include "core/cuda_check.hpp"
#include "kernels/common/out_convert.cuh"
#include "tune/measure.hpp"
#include "typed_matrices.hpp"

namespace tilegemm {
namespace tools {

namespace {

template <class T>
__global__ void widen_kernel(const T* src, double* dst, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
    dst[i] = kernels::from_out(src[i]);
}
// Non-negative doubles order like their bit patterns: atomicMax on the bits is max on the values.
template <class T>
__global__ void compare_f64_kernel(const T* x, const double* ref, int64_t outer, int64_t inner, int64_t ld,
                                   unsigned long long* max_diff, unsigned long long* max_ref, int* non_finite) {
  double d = 0, r = 0;
  bool bad = false;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < outer * inner;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t at = (i / inner) * ld + i % inner;
    const double v = kernels::from_out(x[at]);
    if (!isfinite(v)) bad = true;
    else d = fmax(d, fabs(v - ref[at]));
    r = fmax(r, fabs(ref[at]));
  }
  atomicMax(max_diff, static_cast<unsigned long long>(__double_as_longlong(d)));
  atomicMax(max_ref, static_cast<unsigned long long>(__double_as_longlong(r)));
  if (bad) atomicOr(non_finite, 1);
}

template <class T>
__global__ void epilogue_f64_kernel(double* ref, int64_t outer, int64_t inner, int64_t ld, int64_t lines,
                                    const T* bias, bool bias_on_inner, int activation) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < outer * inner;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t line = i / inner, place = i % inner;
    double v = ref[line * ld + place];
    if (bias) v += kernels::from_out(bias[bias_on_inner ? place : line % lines]);
    switch (static_cast<Activation>(activation)) {
      case Activation::Relu: v = v < 0 ? 0.0 : v; break;
      case Activation::GeluTanh: v = v / (1 + exp(-2 * 0.7978845608028654 * (v + 0.044715 * v * v * v))); break;
      case Activation::GeluErf: v = 0.5 * v * erfc(-0.7071067811865476 * v); break;
      case Activation::Silu: v = v / (1 + exp(-v)); break;
      default: break;
    }
    ref[line * ld + place] = v;
  }
}

template <class F>
void with_type(DType t, F&& f) {
  if (t == DType::BF16) f(__nv_bfloat16{});
  else if (t == DType::F16) f(__half{});
  else f(float{});
}

}  // namespace

void fill_uniform(const TypedBuffer& d, int64_t count, uint64_t seed, int64_t first) {
  if (count <= 0) return;
  if (d.type() == DType::F32) return fill_uniform(static_cast<float*>(d.at(first)), count, seed);
  DeviceBuffer<float> wide(static_cast<size_t>(count));
  fill_uniform(wide.get(), count, seed);
  detail::narrow_from_f32(wide.get(), d.type(), d.at(first), count, bench_stream());
  TILEGEMM_CUDA_CHECK(cudaStreamSynchronize(bench_stream()));  // before `wide` is freed
}

void fill_nan(const TypedBuffer& d, int64_t count) {
  if (count <= 0) return;
  if (d.type() == DType::F32) return fill_value(static_cast<float*>(d.at(0)), count, std::nanf(""));
  // 0xFFFF is a NaN in both bf16 and f16.
  TILEGEMM_CUDA_CHECK(cudaMemsetAsync(d.at(0), 0xFF, static_cast<size_t>(count) * 2, bench_stream()));
}

void widen_to_f64(const TypedBuffer& src, int64_t count, double* dst) {
  if (count <= 0) return;
  with_type(src.type(), [&](auto tag) {
    using T = decltype(tag);
    widen_kernel<T><<<1024, 256, 0, bench_stream()>>>(static_cast<const T*>(src.at(0)), dst, count);
  });
  TILEGEMM_CHECK_LAUNCH();
}

void apply_epilogue_f64(double* ref, int64_t outer, int64_t inner, int64_t ld, int64_t lines, const void* bias,
                        DType bias_type, bool bias_on_inner, Activation activation) {
  if (outer * inner <= 0) return;
  with_type(bias_type, [&](auto tag) {
    using T = decltype(tag);
    epilogue_f64_kernel<T><<<1024, 256, 0, bench_stream()>>>(ref, outer, inner, ld, lines, static_cast<const T*>(bias),
                                                             bias_on_inner, static_cast<int>(activation));
  });
  TILEGEMM_CHECK_LAUNCH();
}

F64Diff compare_to_f64(const void* x, DType type, const double* ref, int64_t outer, int64_t inner, int64_t ld) {
  cudaStream_t s = bench_stream();
  DeviceBuffer<unsigned long long> maxima(2);
  DeviceBuffer<int> non_finite(1);
  TILEGEMM_CUDA_CHECK(cudaMemsetAsync(maxima.get(), 0, 2 * sizeof(unsigned long long), s));
  TILEGEMM_CUDA_CHECK(cudaMemsetAsync(non_finite.get(), 0, sizeof(int), s));
  if (outer * inner > 0) {
    with_type(type, [&](auto tag) {
      using T = decltype(tag);
      compare_f64_kernel<T><<<1024, 256, 0, s>>>(static_cast<const T*>(x), ref, outer, inner, ld, maxima.get(),
                                                 maxima.get() + 1, non_finite.get());
    });
    TILEGEMM_CHECK_LAUNCH();
  }
  // download() copies on the legacy stream, which is not ordered after a non-blocking stream.
  TILEGEMM_CUDA_CHECK(cudaStreamSynchronize(s));
  const std::vector<unsigned long long> bits = maxima.download();
  F64Diff out;
  std::memcpy(&out.diff.max_abs, &bits[0], sizeof(double));
  std::memcpy(&out.max_ref, &bits[1], sizeof(double));
  out.diff.non_finite = non_finite.download()[0] != 0;
  return out;
}

}  // namespace tools
}  // namespace tilegemm
