// Argument checks that need no device. Every message names the argument and its value.
#include "dense/check_args.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "dense/matrix_extent.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

namespace {

[[noreturn]] void invalid(const std::string& msg) { throw Error(ErrorCode::InvalidArgument, msg); }

// `read`: the call dereferences the operand (A and B are not read when alpha == 0 or k == 0).
void check_operand(const char* name, const char* ld_name, const void* ptr, int64_t ld, int element_bytes,
                   const StoredMatrix& s, Layout layout, bool read) {
  const int64_t min_ld = s.min_ld(layout);
  if (ld < min_ld)
    invalid(std::string(ld_name) + " = " + std::to_string(ld) + " is too small: " + name +
            " is stored " + std::to_string(s.rows) + " x " + std::to_string(s.cols) + " " +
            (layout == Layout::RowMajor ? "row-major" : "column-major") + ", so " + ld_name +
            " must be >= " + std::to_string(min_ld));
  // The kernels take 32-bit leading dimensions (offsets are 64-bit); with a single stored row or
  // column the leading dimension is never used, so any value is fine.
  const int64_t outer = layout == Layout::RowMajor ? s.rows : s.cols;
  if (ld > INT_MAX && outer > 1)
    invalid(std::string(ld_name) + " = " + std::to_string(ld) + " exceeds 2^31-1, the largest leading dimension the kernels take");
  const int64_t extent = s.extent(layout, ld);
  if (extent > 0 && ptr == nullptr && read) invalid(std::string(name) + " is a null pointer");
  // Beyond 2^63 bytes (2^61 4-byte elements) the byte offsets overflow a 64-bit address.
  if (extent > INT64_MAX / element_bytes + 1)
    invalid(std::string(name) + " spans " + std::to_string(extent) + " elements (" + std::to_string(s.rows) +
            " x " + std::to_string(s.cols) + ", " + ld_name + " = " + std::to_string(ld) +
            "), more than a 64-bit address space holds");
}

bool overlaps(const void* p, int64_t n_bytes, const void* q, int64_t m_bytes) {
  if (n_bytes <= 0 || m_bytes <= 0) return false;
  const auto a = reinterpret_cast<std::uintptr_t>(p), b = reinterpret_cast<std::uintptr_t>(q);
  return a < b + static_cast<std::uintptr_t>(m_bytes) && b < a + static_cast<std::uintptr_t>(n_bytes);
}

void check_dtype(const char* name, DType t) {
  const int v = static_cast<int>(t);
  if (v < 0 || v >= kNumDTypes) invalid(std::string(name) + " = " + std::to_string(v) + " is not a DType value");
}

// The whole span of a batched operand's matrices (bytes): the last batch's start plus its extent.
int64_t batched_bytes(int64_t batch, int64_t stride, int64_t extent, int element_bytes) {
  if (extent == 0) return 0;
  return ((batch - 1) * stride + extent) * element_bytes;
}

// The bias and the activation of g.epilogue (ext_c: C's extent in elements of ec bytes).
void check_epilogue(const GemmArgs& g, const GemmArgNames& names, int64_t ext_c, int ec) {
  const Epilogue& e = g.epilogue;
  const int kind = static_cast<int>(e.bias_kind), act = static_cast<int>(e.activation);
  if (kind < 0 || kind > static_cast<int>(BiasKind::PerColumn))
    invalid(std::string(names.bias_kind) + " = " + std::to_string(kind) + " is not a BiasKind value");
  if (act < 0 || act > static_cast<int>(Activation::Silu))
    invalid(std::string(names.activation) + " = " + std::to_string(act) + " is not an Activation value");
  if (e.bias_kind == BiasKind::None) return;
  check_dtype(names.bias_type, e.bias_type);
  if (e.bias_type != DType::F32 && e.bias_type != g.c.type)
    invalid(std::string(names.bias_type) + " = " + to_string(e.bias_type) + ": the bias is f32 or C's type (" +
            to_string(g.c.type) + ")");
  if (!e.bias) invalid(std::string(names.bias) + " is null with " + names.bias_kind + " = " + to_string(e.bias_kind));
  const int eb = dtype_bytes(e.bias_type);
  if (reinterpret_cast<std::uintptr_t>(e.bias) % eb != 0)
    invalid(std::string(names.bias) + " is not aligned to its " + std::to_string(eb) + "-byte elements");
  const int64_t count = e.bias_kind == BiasKind::PerRow ? g.m : g.n;
  const int64_t bytes_c = batched_bytes(std::max<int64_t>(g.batch, 1), g.c.batch_stride, ext_c, ec);
  if (overlaps(g.c.data, bytes_c, e.bias, count * eb))
    invalid(std::string(names.c) + " overlaps " + names.bias + ": the output must not share memory with an input");
}

}  // namespace

void check_gemm(const GemmArgs& g, const GemmArgNames& names) {
  if (g.layout != Layout::RowMajor && g.layout != Layout::ColMajor)
    invalid(std::string(names.layout) + " = " + std::to_string(static_cast<int>(g.layout)) + " is not a Layout value");
  if (g.op_a != Op::N && g.op_a != Op::T)
    invalid(std::string(names.op_a) + " = " + std::to_string(static_cast<int>(g.op_a)) + " is not an Op value");
  if (g.op_b != Op::N && g.op_b != Op::T)
    invalid(std::string(names.op_b) + " = " + std::to_string(static_cast<int>(g.op_b)) + " is not an Op value");
  check_dtype(names.a_type, g.a.type);
  check_dtype(names.b_type, g.b.type);
  check_dtype(names.c_type, g.c.type);
  const std::pair<const char*, int64_t> sizes[] = {{names.m, g.m}, {names.n, g.n}, {names.k, g.k}, {names.batch, g.batch}};
  for (const auto& [name, v] : sizes) {
    if (v < 0) invalid(std::string(name) + " = " + std::to_string(v) + " is negative");
    if (v > INT_MAX) invalid(std::string(name) + " = " + std::to_string(v) + " exceeds 2^31-1");
  }

  const StoredOperands shape = stored_shapes(g.op_a, g.op_b, g.m, g.n, g.k);
  // Reference BLAS: alpha == 0 or k == 0 (or an empty C) reads neither A nor B.
  const bool reads_ab = g.m > 0 && g.n > 0 && g.k > 0 && g.batch > 0 && g.epilogue.alpha != 0.0f;
  const int ea = dtype_bytes(g.a.type), eb = dtype_bytes(g.b.type), ec = dtype_bytes(g.c.type);
  check_operand(names.a, names.lda, g.a.data, g.a.ld, ea, shape.a, g.layout, reads_ab);
  check_operand(names.b, names.ldb, g.b.data, g.b.ld, eb, shape.b, g.layout, reads_ab);
  check_operand(names.c, names.ldc, g.c.data, g.c.ld, ec, shape.c, g.layout, g.batch > 0);
  const int64_t ext_a = shape.a.extent(g.layout, g.a.ld), ext_b = shape.b.extent(g.layout, g.b.ld);
  const int64_t ext_c = shape.c.extent(g.layout, g.c.ld);
  if (g.batch > 1) {
    const std::pair<const char*, int64_t> strides[] = {
        {names.stride_a, g.a.batch_stride}, {names.stride_b, g.b.batch_stride}, {names.stride_c, g.c.batch_stride}};
    for (const auto& [name, v] : strides)
      if (v < 0) invalid(std::string(name) + " = " + std::to_string(v) + " is negative");
    // Every batch writes its own C: a smaller stride would make batches overwrite each other.
    if (ext_c > 0 && g.c.batch_stride < ext_c)
      invalid(std::string(names.stride_c) + " = " + std::to_string(g.c.batch_stride) + " is smaller than C's extent (" +
              std::to_string(ext_c) + " elements): batches of C would overlap");
    const std::pair<const char*, int64_t> spans[] = {{names.stride_a, g.a.batch_stride}, {names.stride_b, g.b.batch_stride},
                                                     {names.stride_c, g.c.batch_stride}};
    for (const auto& [name, v] : spans)
      if (v > (INT64_MAX >> 2) / g.batch)
        invalid(std::string(name) + " = " + std::to_string(v) + " times batch = " + std::to_string(g.batch) +
                " is more than a 64-bit address space holds");
  }
  check_epilogue(g, names, ext_c, ec);
  if (!reads_ab) return;

  // C is written while A and B are read; sharing memory would make the result depend on timing.
  const int64_t bytes_c = batched_bytes(g.batch, g.c.batch_stride, ext_c, ec);
  if (overlaps(g.c.data, bytes_c, g.a.data, batched_bytes(g.batch, g.a.batch_stride, ext_a, ea)))
    invalid(std::string(names.c) + " overlaps " + names.a + ": the output must not share memory with an input");
  if (overlaps(g.c.data, bytes_c, g.b.data, batched_bytes(g.batch, g.b.batch_stride, ext_b, eb)))
    invalid(std::string(names.c) + " overlaps " + names.b + ": the output must not share memory with an input");
}

GemmArgs sgemm_args(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                    int64_t lda, const float* b, int64_t ldb, float beta, const float* c, int64_t ldc) {
  GemmArgs g;
  g.layout = layout;
  g.op_a = op_a;
  g.op_b = op_b;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = MatrixArg{DType::F32, a, lda, 0};
  g.b = MatrixArg{DType::F32, b, ldb, 0};
  g.c = OutputArg{DType::F32, const_cast<float*>(c), ldc, 0};
  g.epilogue = Epilogue{alpha, beta};
  return g;
}

}  // namespace detail

void check_gemm_args(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                     const float* a, int64_t lda, const float* b, int64_t ldb, const float* c,
                     int64_t ldc) {
  detail::check_gemm(detail::sgemm_args(layout, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, 0.0f, c, ldc),
                     detail::kSgemmArgNames);
}

}  // namespace tilegemm
