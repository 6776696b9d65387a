// One GEMM problem of the tilegemm command (bench, check, tune gemm). Pure host
// code (no CUDA headers), so the CPU tests can use it.
#pragma once
#include <cstdint>
#include <string>

#include "tilegemm/gemm.hpp"
#include "tilegemm/types.hpp"

namespace tilegemm {
namespace tools {

struct Problem {
  Layout layout = Layout::RowMajor;
  Op op_a = Op::N, op_b = Op::N;
  bool ops_fixed = false;  // the preset fixed op_a/op_b (--trans leaves them alone)
  int64_t m = 0, n = 0, k = 0;
  // Strided batches (--batch, the batched preset): `batch` products, each matrix's batches one after
  // the other, stored rows (row-major; columns col-major) x ld apart, as a contiguous 3-D tensor.
  int64_t batch = 1;
  DType dtype = DType::F32;  // A, B and C (--dtype)
  Math math = Math::Fp32;    // F32 data: --dtype tf32 is Math::Tf32 (and cuBLAS's FAST_TF32 the baseline)
  // Memory layout (--ld, --offset): every leading dimension is ld_abs when > 0, else the tight one
  // plus ld_pad; every matrix starts `offset` elements into its buffer.
  int64_t ld_pad = 0, ld_abs = 0, offset = 0;
  // The fused epilogue (--epilogue): C = activation(A B + bias), the bias a vector in C's type of m
  // (PerRow) or n (PerColumn) values after C's batches in C's buffer, at a 256-byte boundary (bias_in).
  BiasKind bias = BiasKind::None;
  Activation activation = Activation::None;
  bool plain_epilogue() const { return bias == BiasKind::None && activation == Activation::None; }
  int64_t bias_count() const { return bias == BiasKind::None ? 0 : bias == BiasKind::PerRow ? m : n; }
  // "none", "bias", "row-bias", "gelu-tanh", "bias+gelu-tanh", ... (the --epilogue text).
  std::string epilogue_name() const;
  int64_t lda() const;
  int64_t ldb() const;
  int64_t ldc() const;
  int64_t stride_a() const;  // elements from one batch's matrix to the next (0 with one batch)
  int64_t stride_b() const;
  int64_t stride_c() const;
  int64_t size_a() const;  // elements to allocate: offset + the batches' extent
  int64_t size_b() const;
  int64_t size_c() const;
  // C's buffer: C's batches, then the bias from bias_first() (elements).
  int64_t bias_first() const { return (size_c() * dtype_bytes(dtype) + 255) / 256 * 256 / dtype_bytes(dtype); }
  int64_t size_c_buffer() const { return bias_count() > 0 ? bias_first() + bias_count() : size_c(); }
  // C's stored rows (row-major) or columns (col-major) over every batch, and the elements used in each.
  int64_t c_outer() const { return batch * (layout == Layout::RowMajor ? m : n); }
  int64_t c_inner() const { return layout == Layout::RowMajor ? n : m; }
  bool tight() const { return ld_pad == 0 && ld_abs == 0 && offset == 0; }
  double flops() const { return 2.0 * m * n * k * batch; }
  // FP32 math is checked against cuBLAS's SGEMM; 16-bit, tf32 and epilogue runs against the FP64
  // product (with the epilogue applied), whose buffers count in problem_bytes.
  bool fp64_reference() const { return dtype != DType::F32 || math == Math::Tf32 || !plain_epilogue(); }
  std::string dims() const;  // "MxNxK"
  // "MxNxK row NN", then " ld+P" / " ld=L", " off=O" and " epi=E" when set; batched: "B x MxNxK row NN ...".
  std::string str() const;
};

// The bias of a problem whose C (its first element) is at `c`: after C's batches in the same buffer,
// 256-byte aligned as a cudaMalloc'd vector is (cuBLASLt's epilogues may refuse a less aligned one).
inline const void* bias_in(const Problem& p, const void* c) {
  return static_cast<const char*>(c) + (p.bias_first() - p.offset) * dtype_bytes(p.dtype);
}

}  // namespace tools
}  // namespace tilegemm
