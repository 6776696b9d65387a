#include "ops/gemm_call.hpp"

#include "dense/matrix_extent.hpp"
#include "ops/fused_epilogue.hpp"

namespace tilegemm {
namespace ops {

GemmCall gemm_call(const GemmArgs& args, const GemmOptions& options) {
  const bool row = args.layout == Layout::RowMajor;
  const MatrixArg& a = row ? args.a : args.b;
  const MatrixArg& b = row ? args.b : args.a;
  GemmCall call;
  Problem& p = call.problem;
  p.kind = OpKind::Gemm;
  p.a_type = a.type;
  p.b_type = b.type;
  p.c_type = args.c.type;
  p.math = options.math;
  p.m = row ? args.m : args.n;
  p.n = row ? args.n : args.m;
  p.k = args.k;
  p.batch = args.batch;
  p.trans_a = (row ? args.op_a : args.op_b) == Op::T;
  p.trans_b = (row ? args.op_b : args.op_a) == Op::T;
  // The facts hold for every batch: a batch stride that is not a multiple of 16 bytes moves the later
  // batches' rows off the 16-byte boundary (and off the first batch's offset), so it counts against
  // the pitch's alignment.
  auto facts = [&args](const void* ptr, int64_t ld, int64_t batch_stride, DType t, int* align, int* pitch_align,
                       int* offset) {
    const auto addr = reinterpret_cast<uintptr_t>(ptr);
    // A leading dimension beyond 2^31 - 1 (only with one stored row or column: never used) counts as
    // the kernels' clamped value.
    const int64_t used_ld = ld > 2147483647 ? 2147483647 : ld;
    *pitch_align = alignment_of(static_cast<uint64_t>(used_ld) * dtype_bytes(t));
    if (args.batch > 1) {
      const int stride_align = alignment_of(static_cast<uint64_t>(batch_stride) * dtype_bytes(t));
      if (stride_align < *pitch_align) *pitch_align = stride_align;
    }
    const int addr_align = alignment_of(addr);
    *align = addr_align < *pitch_align ? addr_align : *pitch_align;
    *offset = static_cast<int>(addr % 16);
  };
  int offset_c = 0, pitch_c = 0;
  facts(a.data, a.ld, a.batch_stride, a.type, &p.align_a, &p.pitch_align_a, &p.offset_a);
  facts(b.data, b.ld, b.batch_stride, b.type, &p.align_b, &p.pitch_align_b, &p.offset_b);
  facts(args.c.data, args.c.ld, args.c.batch_stride, args.c.type, &p.align_c, &pitch_c, &offset_c);
  p.beta_zero = args.epilogue.beta == 0.0f;
  // Column-major C is the canonical C transposed: its rows are canonical columns.
  const BiasKind kind = args.epilogue.bias_kind;
  p.bias = row ? kind : transposed(kind);
  p.bias_type = kind == BiasKind::None ? DType::F32 : args.epilogue.bias_type;
  p.activation = args.epilogue.activation;
  // Stored rows x row length of A and B in canonical form: extent = (rows - 1) * ld + row length.
  const StoredMatrix sa = p.trans_a ? StoredMatrix{p.k, p.m} : StoredMatrix{p.m, p.k};
  const StoredMatrix sb = p.trans_b ? StoredMatrix{p.n, p.k} : StoredMatrix{p.k, p.n};
  constexpr int64_t kMax32 = 2147483647;
  p.offsets_fit_32bit = sa.extent(Layout::RowMajor, a.ld) <= kMax32 && sb.extent(Layout::RowMajor, b.ld) <= kMax32;

  Operands& o = call.operands;
  o.a = a.data;
  o.b = b.data;
  o.c = args.c.data;
  o.lda = a.ld;
  o.ldb = b.ld;
  o.ldc = args.c.ld;
  o.alpha = args.epilogue.alpha;
  o.beta = args.epilogue.beta;
  o.raster = options.raster;
  o.bias = kind == BiasKind::None ? nullptr : args.epilogue.bias;
  if (args.batch > 1) {
    o.stride_a = a.batch_stride;
    o.stride_b = b.batch_stride;
    o.stride_c = args.c.batch_stride;
  }
  return call;
}

Operands batch_operands(const GemmCall& call, int64_t b) {
  Operands o = call.operands;
  if (b == 0) return o;
  const Problem& p = call.problem;
  auto step = [b](const void* ptr, int64_t stride, DType t) {
    return ptr ? static_cast<const void*>(static_cast<const char*>(ptr) + b * stride * dtype_bytes(t)) : ptr;
  };
  o.a = step(o.a, o.stride_a, p.a_type);
  o.b = step(o.b, o.stride_b, p.b_type);
  o.c = const_cast<void*>(step(o.c, o.stride_c, p.c_type));
  return o;
}

}  // namespace ops
}  // namespace tilegemm
