// Host-side values of the typed entry's element types, shared by the GPU tests: a float rounded to a
// type, stored into and loaded from raw bytes (16-bit values also as their bits), the index of a
// stored element, and a product's GemmArgs.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>

#include "tilegemm/gemm.hpp"
#include "tilegemm/types.hpp"

namespace tilegemm {

inline void store_value(unsigned char* at, float v, DType t) {
  if (t == DType::F16) {
    const __half h = __float2half_rn(v);
    std::memcpy(at, &h, 2);
  } else if (t == DType::BF16) {
    const __nv_bfloat16 h = __float2bfloat16_rn(v);
    std::memcpy(at, &h, 2);
  } else {
    std::memcpy(at, &v, 4);
  }
}
inline float load_value(const unsigned char* at, DType t) {
  if (t == DType::F16) {
    __half h;
    std::memcpy(&h, at, 2);
    return __half2float(h);
  }
  if (t == DType::BF16) {
    __nv_bfloat16 h;
    std::memcpy(&h, at, 2);
    return __bfloat162float(h);
  }
  float v;
  std::memcpy(&v, at, 4);
  return v;
}
// `v` rounded to nearest in `t` and back.
inline float round_to(float v, DType t) {
  unsigned char bytes[4];
  store_value(bytes, v, t);
  return load_value(bytes, t);
}
// A 16-bit type's bits (t is BF16 or F16).
inline uint16_t to_bits(float v, DType t) {
  uint16_t bits;
  store_value(reinterpret_cast<unsigned char*>(&bits), v, t);
  return bits;
}
inline float from_bits(uint16_t bits, DType t) { return load_value(reinterpret_cast<const unsigned char*>(&bits), t); }

// Index of stored element (r, c) in `layout` with leading dimension ld.
inline int64_t stored_index(Layout layout, int64_t r, int64_t c, int64_t ld) {
  return layout == Layout::RowMajor ? r * ld + c : r + c * ld;
}

// The typed entry's arguments for a product's shape (the matrices and epilogue left to the caller).
inline GemmArgs product_args(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, int64_t batch = 1) {
  GemmArgs args;
  args.layout = layout;
  args.op_a = op_a;
  args.op_b = op_b;
  args.m = m;
  args.n = n;
  args.k = k;
  args.batch = batch;
  return args;
}

}  // namespace tilegemm
