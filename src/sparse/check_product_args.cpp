// Device-free argument checks of the GPU products (bsr_gpu.hpp). Every message starts with the
// function's name and names the argument and its value.
#include <climits>
#include <cstdint>
#include <string>

#include "sparse/bsr_checks.hpp"
#include "tilegemm/bsr_gpu.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {

using bsr_detail::extent;
using bsr_detail::invalid;
using bsr_detail::overlaps;

namespace {

void check_size(const std::string& fn, const char* name, int64_t v) {
  if (v < 0) invalid(fn + name + " = " + std::to_string(v) + " is negative");
  if (v > INT_MAX) invalid(fn + name + " = " + std::to_string(v) + " exceeds 2^31-1");
}

// A row-major rows x cols device array: ld, null pointer, and the kernels' 32-bit index range.
void check_dense_operand(const std::string& fn, const char* name, const char* ld_name,
                         const float* ptr, int64_t rows, int64_t cols, int64_t ld) {
  bsr_detail::check_dense(fn.c_str(), name, ld_name, ptr, rows, cols, ld);
  const int64_t ext = extent(rows, cols, ld);
  if (ext > INT_MAX)
    invalid(fn + name + " spans " + std::to_string(ext) + " elements (" + std::to_string(rows) +
            " x " + std::to_string(cols) + ", " + ld_name + " = " + std::to_string(ld) +
            "), more than the kernels' 32-bit indexing allows (" + std::to_string(INT_MAX) + ")");
}

// Shared by both products once the shapes agree: x is x_rows x x_cols, y is m x n.
void check_operands(const std::string& fn, int64_t m, int64_t n, const float* x, int64_t x_rows,
                    int64_t x_cols, int64_t ldx, const BsrView& w, const float* y, int64_t ldy) {
  check_dense_operand(fn, "x", "ldx", x, x_rows, x_cols, ldx);
  check_dense_operand(fn, "y", "ldy", y, m, n, ldy);
  const int64_t ext_y = extent(m, n, ldy);
  if (overlaps(y, ext_y, x, extent(x_rows, x_cols, ldx)))
    invalid(fn + "y overlaps x: the output must not share memory with an input");
  if (overlaps(y, ext_y, w.block_data, w.nnzb * w.block_rows * w.block_cols))
    invalid(fn + "y overlaps w's block_data: the output must not share memory with an input");
}

}  // namespace

void check_bsr_xwt_args(int64_t m, int64_t n, int64_t k, const float* x, int64_t ldx,
                        const BsrView& w, const float* y, int64_t ldy) {
  const std::string fn = "bsr_xwt: ";
  check_size(fn, "m", m);
  check_size(fn, "n", n);
  check_size(fn, "k", k);
  validate_bsr_shape(w);
  if (w.cols != k)
    invalid(fn + "k = " + std::to_string(k) + " does not match w.cols = " + std::to_string(w.cols) +
            " (Y = X * W^T needs X m x k and W n x k)");
  if (w.rows != n)
    invalid(fn + "n = " + std::to_string(n) + " does not match w.rows = " + std::to_string(w.rows) +
            " (Y = X * W^T needs W n x k and Y m x n)");
  check_operands(fn, m, n, x, m, k, ldx, w, y, ldy);
}

void check_bsr_wx_args(int64_t m, int64_t n, int64_t k, const BsrView& w, const float* x,
                       int64_t ldx, const float* y, int64_t ldy) {
  const std::string fn = "bsr_wx: ";
  check_size(fn, "m", m);
  check_size(fn, "n", n);
  check_size(fn, "k", k);
  validate_bsr_shape(w);
  if (w.rows != m)
    invalid(fn + "m = " + std::to_string(m) + " does not match w.rows = " + std::to_string(w.rows) +
            " (Y = W * X needs W m x k and Y m x n)");
  if (w.cols != k)
    invalid(fn + "k = " + std::to_string(k) + " does not match w.cols = " + std::to_string(w.cols) +
            " (Y = W * X needs W m x k and X k x n)");
  check_operands(fn, m, n, x, k, n, ldx, w, y, ldy);
}

}  // namespace tilegemm
