#include "problem.hpp"

namespace tilegemm {
namespace tools {

namespace {
int64_t stored_inner(Layout layout, int64_t rows, int64_t cols) {
  const int64_t v = layout == Layout::RowMajor ? cols : rows;
  return v > 1 ? v : 1;
}
int64_t stored_outer(Layout layout, int64_t rows, int64_t cols) {
  return layout == Layout::RowMajor ? rows : cols;
}
}  // namespace

int64_t Problem::lda() const { return op_a == Op::N ? stored_inner(layout, m, k) : stored_inner(layout, k, m); }
int64_t Problem::ldb() const { return op_b == Op::N ? stored_inner(layout, k, n) : stored_inner(layout, n, k); }
int64_t Problem::ldc() const { return stored_inner(layout, m, n); }
int64_t Problem::size_a() const { return lda() * (op_a == Op::N ? stored_outer(layout, m, k) : stored_outer(layout, k, m)); }
int64_t Problem::size_b() const { return ldb() * (op_b == Op::N ? stored_outer(layout, k, n) : stored_outer(layout, n, k)); }
int64_t Problem::size_c() const { return ldc() * stored_outer(layout, m, n); }
std::string Problem::dims() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}
std::string Problem::str() const { return dims() + " " + to_string(layout) + " " + to_string(op_a) + to_string(op_b); }

}  // namespace tools
}  // namespace tilegemm
