// Matrices of the GEMM command in the run's element type (--dtype fp32 | bf16 | fp16): device buffers
// counted in elements, uniform fills, and the FP64 reference a 16-bit run is checked against (its
// inputs widened to FP64; the product is computed by cuBLAS DGEMM, Cublas::dgemm).
#pragma once
#include <cstdint>

#include "core/device_buffer.hpp"
#include "profiler/harness.hpp"
#include "tilegemm/gemm.hpp"
#include "tilegemm/types.hpp"

namespace tilegemm {
namespace tools {

class TypedBuffer {
 public:
  TypedBuffer(DType type, int64_t count)
      : type_(type), bytes_(static_cast<size_t>(count) * static_cast<size_t>(dtype_bytes(type))) {}
  DType type() const { return type_; }
  // Element `i` of the buffer (the matrices start p.offset elements in).
  void* at(int64_t i) const { return bytes_.get() + i * dtype_bytes(type_); }

 private:
  DType type_;
  DeviceBuffer<unsigned char> bytes_;
};

// Uniform [-1, 1) (fill_uniform's values, rounded to the element type) and NaN poison, on
// bench_stream().
// `count` elements from element `first`.
void fill_uniform(const TypedBuffer& d, int64_t count, uint64_t seed, int64_t first = 0);
void fill_nan(const TypedBuffer& d, int64_t count);
// dst[i] = src[i] in FP64, on bench_stream().
void widen_to_f64(const TypedBuffer& src, int64_t count, double* dst);
// ref = activation(ref + bias), in FP64, over a strided matrix of `outer` lines (batches of `lines`
// lines each) of `inner` elements, ld apart, on bench_stream(). bias: none (nullptr) or a vector of
// bias_type indexed by the element's place in its line (bias_on_inner) or by its line in the batch.
// The activations in the forms that keep their digits in the negative tails (GELU(tanh) = x / (1 +
// e^(-2u)), GELU(erf) = 0.5 x erfc(-x / sqrt 2)).
void apply_epilogue_f64(double* ref, int64_t outer, int64_t inner, int64_t ld, int64_t lines, const void* bias,
                        DType bias_type, bool bias_on_inner, Activation activation);
// max |x - ref| over a strided matrix of x's element type against an FP64 reference, and whether any
// x is non-finite; max_ref: max |ref| over the same elements. Waits for bench_stream().
struct F64Diff {
  Diff diff;
  double max_ref = 0;
};
F64Diff compare_to_f64(const void* x, DType type, const double* ref, int64_t outer, int64_t inner, int64_t ld);

}  // namespace tools
}  // namespace tilegemm
