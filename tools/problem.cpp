#include "problem.hpp"

#include "dense/matrix_extent.hpp"

namespace tilegemm {
namespace tools {

namespace {
// Tight leading dimension and element count of a stored operand (the library's own shape rules).
int64_t tight_ld(const StoredMatrix& s, Layout layout) { return s.min_ld(layout); }
int64_t tight_size(const StoredMatrix& s, Layout layout) {
  return s.min_ld(layout) * (layout == Layout::RowMajor ? s.rows : s.cols);
}
}  // namespace

int64_t Problem::lda() const { return tight_ld(stored_shapes(op_a, op_b, m, n, k).a, layout); }
int64_t Problem::ldb() const { return tight_ld(stored_shapes(op_a, op_b, m, n, k).b, layout); }
int64_t Problem::ldc() const { return tight_ld(stored_shapes(op_a, op_b, m, n, k).c, layout); }
int64_t Problem::size_a() const { return tight_size(stored_shapes(op_a, op_b, m, n, k).a, layout); }
int64_t Problem::size_b() const { return tight_size(stored_shapes(op_a, op_b, m, n, k).b, layout); }
int64_t Problem::size_c() const { return tight_size(stored_shapes(op_a, op_b, m, n, k).c, layout); }
std::string Problem::dims() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}
std::string Problem::str() const { return dims() + " " + to_string(layout) + " " + to_string(op_a) + to_string(op_b); }

std::string timing_method_text(int graph_batch) {
  if (graph_batch <= 0) return "events per launch";
  return "CUDA graph of " + std::to_string(graph_batch) + " launches (per-launch time, warm L2 after the first)";
}

std::string timing_csv_text(int graph_batch) {
  return graph_batch <= 0 ? "events" : "graph:" + std::to_string(graph_batch);
}

}  // namespace tools
}  // namespace tilegemm
