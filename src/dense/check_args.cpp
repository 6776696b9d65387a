// Argument checks that need no device. Every message names the argument and its value.
#include <climits>
#include <cstdint>
#include <string>

#include "dense/matrix_extent.hpp"
#include "tilegemm/error.hpp"
#include "tilegemm/gemm.hpp"

namespace tilegemm {

namespace {

[[noreturn]] void invalid(const std::string& msg) { throw Error(ErrorCode::InvalidArgument, msg); }

// `read`: the call dereferences the operand (A and B are not read when alpha == 0 or k == 0).
void check_operand(const char* name, const char* ld_name, const float* ptr, int64_t ld,
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
  // 4-byte elements: beyond 2^61 elements the byte offsets overflow a 64-bit address.
  if (extent > (int64_t(1) << 61))
    invalid(std::string(name) + " spans " + std::to_string(extent) + " elements (" + std::to_string(s.rows) +
            " x " + std::to_string(s.cols) + ", " + ld_name + " = " + std::to_string(ld) +
            "), more than a 64-bit address space holds");
}

bool overlaps(const float* p, int64_t n, const float* q, int64_t m) {
  if (n <= 0 || m <= 0) return false;
  const auto a = reinterpret_cast<std::uintptr_t>(p), b = reinterpret_cast<std::uintptr_t>(q);
  return a < b + static_cast<std::uintptr_t>(m) * sizeof(float) &&
         b < a + static_cast<std::uintptr_t>(n) * sizeof(float);
}

}  // namespace

void check_gemm_args(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                     const float* a, int64_t lda, const float* b, int64_t ldb, const float* c,
                     int64_t ldc) {
  if (layout != Layout::RowMajor && layout != Layout::ColMajor)
    invalid("layout = " + std::to_string(static_cast<int>(layout)) + " is not a Layout value");
  if (op_a != Op::N && op_a != Op::T)
    invalid("op_a = " + std::to_string(static_cast<int>(op_a)) + " is not an Op value");
  if (op_b != Op::N && op_b != Op::T)
    invalid("op_b = " + std::to_string(static_cast<int>(op_b)) + " is not an Op value");
  if (m < 0) invalid("m = " + std::to_string(m) + " is negative");
  if (n < 0) invalid("n = " + std::to_string(n) + " is negative");
  if (k < 0) invalid("k = " + std::to_string(k) + " is negative");
  if (m > INT_MAX) invalid("m = " + std::to_string(m) + " exceeds 2^31-1");
  if (n > INT_MAX) invalid("n = " + std::to_string(n) + " exceeds 2^31-1");
  if (k > INT_MAX) invalid("k = " + std::to_string(k) + " exceeds 2^31-1");

  const StoredOperands shape = stored_shapes(op_a, op_b, m, n, k);
  // Reference BLAS: alpha == 0 or k == 0 (or an empty C) reads neither A nor B.
  const bool reads_ab = m > 0 && n > 0 && k > 0 && alpha != 0.0f;
  check_operand("a", "lda", a, lda, shape.a, layout, reads_ab);
  check_operand("b", "ldb", b, ldb, shape.b, layout, reads_ab);
  check_operand("c", "ldc", c, ldc, shape.c, layout, true);
  if (!reads_ab) return;

  // C is written while A and B are read; sharing memory would make the result depend on timing.
  const int64_t ext_c = shape.c.extent(layout, ldc);
  if (overlaps(c, ext_c, a, shape.a.extent(layout, lda)))
    invalid("c overlaps a: the output must not share memory with an input");
  if (overlaps(c, ext_c, b, shape.b.extent(layout, ldb)))
    invalid("c overlaps b: the output must not share memory with an input");
}

}  // namespace tilegemm
