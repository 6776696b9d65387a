// Stored shapes, minimum leading dimensions and memory extents of the three GEMM operands.
#pragma once
#include <cstdint>

#include "tilegemm/types.hpp"

namespace tilegemm {

// A matrix as stored: `rows` x `cols` in the call's layout.
struct StoredMatrix {
  int64_t rows = 0, cols = 0;
  // Elements in one stored row (row-major) or column (col-major); ld must be >= max(1, this).
  int64_t min_ld(Layout layout) const {
    const int64_t inner = layout == Layout::RowMajor ? cols : rows;
    return inner > 1 ? inner : 1;
  }
  // Elements from the first to one past the last element touched; 0 for an empty matrix.
  int64_t extent(Layout layout, int64_t ld) const {
    if (rows == 0 || cols == 0) return 0;
    const int64_t outer = layout == Layout::RowMajor ? rows : cols;
    const int64_t inner = layout == Layout::RowMajor ? cols : rows;
    if (outer > 1 && ld > (INT64_MAX - inner) / (outer - 1)) return INT64_MAX;  // saturate
    return (outer - 1) * ld + inner;
  }
};

struct StoredOperands {
  StoredMatrix a, b, c;
};

// op(A) is m x k and op(B) is k x n; A and B are stored transposed when their op is T.
inline StoredOperands stored_shapes(Op op_a, Op op_b, int64_t m, int64_t n, int64_t k) {
  StoredOperands s;
  s.a = op_a == Op::N ? StoredMatrix{m, k} : StoredMatrix{k, m};
  s.b = op_b == Op::N ? StoredMatrix{k, n} : StoredMatrix{n, k};
  s.c = StoredMatrix{m, n};
  return s;
}

}  // namespace tilegemm
