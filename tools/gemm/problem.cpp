#include "problem.hpp"

#include "dense/matrix_extent.hpp"

namespace tilegemm {
namespace tools {

namespace {
// Leading dimension and allocation of a stored operand (the library's own shape rules).
int64_t leading(const Problem& p, const StoredMatrix& s) {
  return p.ld_abs > 0 ? p.ld_abs : s.min_ld(p.layout) + p.ld_pad;
}
// Batches lie a whole matrix of stored rows (columns) x ld apart.
int64_t batch_stride(const Problem& p, const StoredMatrix& s) {
  if (p.batch <= 1) return 0;
  return (p.layout == Layout::RowMajor ? s.rows : s.cols) * leading(p, s);
}
int64_t allocation(const Problem& p, const StoredMatrix& s) {
  const int64_t extent = s.extent(p.layout, leading(p, s));
  return extent > 0 && p.batch > 0 ? p.offset + (p.batch - 1) * batch_stride(p, s) + extent : 0;
}
}  // namespace

int64_t Problem::lda() const { return leading(*this, stored_shapes(op_a, op_b, m, n, k).a); }
int64_t Problem::ldb() const { return leading(*this, stored_shapes(op_a, op_b, m, n, k).b); }
int64_t Problem::ldc() const { return leading(*this, stored_shapes(op_a, op_b, m, n, k).c); }
int64_t Problem::stride_a() const { return batch_stride(*this, stored_shapes(op_a, op_b, m, n, k).a); }
int64_t Problem::stride_b() const { return batch_stride(*this, stored_shapes(op_a, op_b, m, n, k).b); }
int64_t Problem::stride_c() const { return batch_stride(*this, stored_shapes(op_a, op_b, m, n, k).c); }
int64_t Problem::size_a() const { return allocation(*this, stored_shapes(op_a, op_b, m, n, k).a); }
int64_t Problem::size_b() const { return allocation(*this, stored_shapes(op_a, op_b, m, n, k).b); }
int64_t Problem::size_c() const { return allocation(*this, stored_shapes(op_a, op_b, m, n, k).c); }
std::string Problem::dims() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}
std::string Problem::str() const {
  std::string s = (batch != 1 ? std::to_string(batch) + " x " : std::string()) + dims() + " " + to_string(layout) +
                  " " + to_string(op_a) + to_string(op_b);
  if (ld_abs > 0) s += " ld=" + std::to_string(ld_abs);
  else if (ld_pad > 0) s += " ld+" + std::to_string(ld_pad);
  if (offset > 0) s += " off=" + std::to_string(offset);
  if (!plain_epilogue()) s += " epi=" + epilogue_name();
  return s;
}
std::string Problem::epilogue_name() const {
  std::string s = bias == BiasKind::PerRow ? "row-bias" : bias == BiasKind::PerColumn ? "bias" : "";
  if (activation != Activation::None) s += (s.empty() ? "" : "+") + std::string(to_string(activation));
  return s.empty() ? "none" : s;
}

}  // namespace tools
}  // namespace tilegemm
