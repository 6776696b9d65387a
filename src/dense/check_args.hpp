// The device-free argument checks of the GEMM entries, over one typed description of the call, with
// the argument names of the entry that was called: sgemm's ("lda") or gemm()'s ("args.a.ld").
#pragma once
#include "tilegemm/gemm.hpp"

namespace tilegemm {
namespace detail {

struct GemmArgNames {
  const char *layout, *op_a, *op_b, *m, *n, *k, *batch;
  const char *a, *lda, *stride_a, *a_type;
  const char *b, *ldb, *stride_b, *b_type;
  const char *c, *ldc, *stride_c, *c_type;
  const char *bias, *bias_kind, *bias_type, *activation;
};
inline constexpr GemmArgNames kSgemmArgNames{"layout", "op_a", "op_b", "m", "n", "k", "batch",
                                             "a", "lda", "stride_a", "a_type",
                                             "b", "ldb", "stride_b", "b_type",
                                             "c", "ldc", "stride_c", "c_type",
                                             "bias", "bias_kind", "bias_type", "activation"};
inline constexpr GemmArgNames kGemmArgNames{"args.layout", "args.op_a", "args.op_b", "args.m", "args.n", "args.k",
                                            "args.batch", "args.a.data", "args.a.ld", "args.a.batch_stride",
                                            "args.a.type", "args.b.data", "args.b.ld", "args.b.batch_stride",
                                            "args.b.type", "args.c.data", "args.c.ld", "args.c.batch_stride",
                                            "args.c.type", "args.epilogue.bias", "args.epilogue.bias_kind",
                                            "args.epilogue.bias_type", "args.epilogue.activation"};

// sgemm's arguments as the typed entry's (F32 operands, batch 1).
GemmArgs sgemm_args(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                    int64_t lda, const float* b, int64_t ldb, float beta, const float* c, int64_t ldc);

// Throws Error(InvalidArgument) naming the argument: enum values, sizes, leading dimensions, null
// pointers, 64-bit extents, batch strides (C's batches must not overlap), C overlapping A or B, and the
// epilogue (enum values; a bias of F32 or C's type, aligned to its elements, not overlapping C).
// A and B may be null when alpha == 0 or k == 0 (reference BLAS: they are not read).
void check_gemm(const GemmArgs& args, const GemmArgNames& names);

}  // namespace detail
}  // namespace tilegemm
