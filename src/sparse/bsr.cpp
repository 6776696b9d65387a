// BSR format on the host: validation, dense <-> BSR conversions, transpose.
#include "tilegemm/bsr.hpp"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sparse/bsr_checks.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace bsr_detail {

[[noreturn]] void invalid(const std::string& msg) { throw Error(ErrorCode::InvalidArgument, msg); }

void check_shape(const char* prefix, int64_t rows, int64_t cols, int block_rows, int block_cols,
                 const char* member) {
  const std::string p = std::string(prefix) + member, m = member;
  if (block_rows < 1) invalid(p + "block_rows = " + std::to_string(block_rows) + " must be >= 1");
  if (block_cols < 1) invalid(p + "block_cols = " + std::to_string(block_cols) + " must be >= 1");
  if (rows < 0) invalid(p + "rows = " + std::to_string(rows) + " is negative");
  if (cols < 0) invalid(p + "cols = " + std::to_string(cols) + " is negative");
  // Block indices and index_pointer are int32; the kernels index dense rows/columns in 32 bits.
  if (rows > INT_MAX) invalid(p + "rows = " + std::to_string(rows) + " exceeds 2^31-1");
  if (cols > INT_MAX) invalid(p + "cols = " + std::to_string(cols) + " exceeds 2^31-1");
  if (rows % block_rows != 0)
    invalid(p + "rows = " + std::to_string(rows) + " is not divisible by " + m +
            "block_rows = " + std::to_string(block_rows));
  if (cols % block_cols != 0)
    invalid(p + "cols = " + std::to_string(cols) + " is not divisible by " + m +
            "block_cols = " + std::to_string(block_cols));
}

void check_view_shape(const char* prefix, const char* member, const BsrView& m) {
  check_shape(prefix, m.rows, m.cols, m.block_rows, m.block_cols, member);
  const std::string p = std::string(prefix) + member;
  const int64_t brows = m.block_row_count(), bcols = m.block_col_count();
  if (m.nnzb < 0) invalid(p + "nnzb = " + std::to_string(m.nnzb) + " is negative");
  if (m.nnzb > INT_MAX)
    invalid(p + "nnzb = " + std::to_string(m.nnzb) + " exceeds 2^31-1 (index_pointer is int32)");
  // brows, bcols <= 2^31 - 1, so the product fits in int64.
  if (m.nnzb > brows * bcols)
    invalid(p + "nnzb = " + std::to_string(m.nnzb) + " exceeds the number of blocks (" +
            std::to_string(brows) + " x " + std::to_string(bcols) + " = " +
            std::to_string(brows * bcols) + ")");
  // A matrix with no block rows (0 x cols, e.g. a default-constructed DeviceBsrMatrix) has nothing
  // to point to; index_pointer may then be null.
  if (m.index_pointer == nullptr && brows > 0)
    invalid(p + "index_pointer is a null pointer (" + std::to_string(brows) + " block rows)");
  if (m.nnzb > 0 && m.block_indices == nullptr)
    invalid(p + "block_indices is a null pointer (nnzb = " + std::to_string(m.nnzb) + ")");
  if (m.nnzb > 0 && m.block_data == nullptr)
    invalid(p + "block_data is a null pointer (nnzb = " + std::to_string(m.nnzb) + ")");
}

void check_dense(const char* prefix, const char* name, const char* ld_name, const float* dense,
                 int64_t rows, int64_t cols, int64_t ld) {
  const std::string p = prefix;
  const int64_t min_ld = std::max<int64_t>(cols, 1);
  if (ld < min_ld)
    invalid(p + ld_name + " = " + std::to_string(ld) + " is too small: " + name + " is " +
            std::to_string(rows) + " x " + std::to_string(cols) + " row-major, so " + ld_name +
            " must be >= " + std::to_string(min_ld));
  if (rows > 0 && cols > 0 && dense == nullptr) invalid(p + name + " is a null pointer");
}

int64_t extent(int64_t rows, int64_t cols, int64_t ld) {
  if (rows == 0 || cols == 0) return 0;
  if (rows > 1 && ld > (INT64_MAX - cols) / (rows - 1)) return INT64_MAX;
  return (rows - 1) * ld + cols;
}

bool overlaps(const float* p, int64_t n, const float* q, int64_t m) {
  if (n <= 0 || m <= 0 || p == nullptr || q == nullptr) return false;
  const auto end = [](std::uintptr_t base, int64_t count) {
    const std::uintptr_t room = (UINTPTR_MAX - base) / sizeof(float);
    return base +
           std::min<std::uintptr_t>(static_cast<std::uintptr_t>(count), room) * sizeof(float);
  };
  const auto a = reinterpret_cast<std::uintptr_t>(p), b = reinterpret_cast<std::uintptr_t>(q);
  return a < end(b, m) && b < end(a, n);
}

}  // namespace bsr_detail

using bsr_detail::invalid;

namespace {

// The checks that need the index arrays; the shape has been checked.
void check_structure(const BsrView& m) {
  const int64_t brows = m.block_row_count(), bcols = m.block_col_count();
  const int32_t* ip = m.index_pointer;
  if (ip == nullptr) return;  // no block rows, so nnzb == 0 (validate_bsr_shape)
  if (ip[0] != 0) invalid("bsr: index_pointer[0] = " + std::to_string(ip[0]) + ", must be 0");
  for (int64_t i = 0; i < brows; ++i)
    if (ip[i + 1] < ip[i])
      invalid("bsr: index_pointer decreases at block row " + std::to_string(i) + " (" +
              std::to_string(ip[i]) + " -> " + std::to_string(ip[i + 1]) + ")");
  // Non-decreasing from 0 to nnzb: every block row's range lies inside [0, nnzb).
  if (ip[brows] != m.nnzb)
    invalid("bsr: index_pointer[last] = " + std::to_string(ip[brows]) +
            " but nnzb = " + std::to_string(m.nnzb));
  for (int64_t i = 0; i < brows; ++i) {
    const std::string where = "bsr: block row " + std::to_string(i) + ": ";
    for (int64_t b = ip[i]; b < ip[i + 1]; ++b) {
      const int32_t col = m.block_indices[b];
      if (col < 0 || col >= bcols)
        invalid(where + "column index " + std::to_string(col) + " out of range [0, " +
                std::to_string(bcols) + ")");
      if (b == ip[i]) continue;
      const int32_t prev = m.block_indices[b - 1];
      if (col == prev) invalid(where + "duplicated column index " + std::to_string(col));
      if (col < prev)
        invalid(where + "column indices not sorted (" + std::to_string(col) + " after " +
                std::to_string(prev) + ")");
    }
  }
}

// Builds a BSR matrix from a row-major dense array, keeping the blocks for which
// keep(block_row, block_col) is true. Arguments are checked by the caller.
template <class Keep>
BsrMatrix gather_blocks(const float* dense, int64_t rows, int64_t cols, int64_t ld, int R, int C,
                        const char* prefix, const Keep& keep) {
  BsrMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.block_rows = R;
  m.block_cols = C;
  const int64_t brows = m.block_row_count(), bcols = m.block_col_count();
  m.index_pointer.assign(static_cast<size_t>(brows + 1), 0);
  for (int64_t i = 0; i < brows; ++i) {
    for (int64_t j = 0; j < bcols; ++j) {
      if (!keep(i, j)) continue;
      if (m.nnzb() == INT_MAX)
        invalid(std::string(prefix) + "more than 2^31-1 blocks to keep (index_pointer is int32)");
      m.block_indices.push_back(static_cast<int32_t>(j));
      const float* src = dense + i * R * ld + j * C;
      for (int r = 0; r < R; ++r)
        m.block_data.insert(m.block_data.end(), src + r * ld, src + r * ld + C);
    }
    m.index_pointer[static_cast<size_t>(i + 1)] = static_cast<int32_t>(m.nnzb());
  }
  return m;
}

}  // namespace

void validate_bsr_shape(const BsrView& m) { bsr_detail::check_view_shape("bsr: ", "", m); }

void validate_bsr(const BsrView& m) {
  validate_bsr_shape(m);
  check_structure(m);
}

void validate(const BsrMatrix& m) {
  bsr_detail::check_shape("bsr: ", m.rows, m.cols, m.block_rows, m.block_cols);
  const int64_t brows = m.block_row_count();
  if (static_cast<int64_t>(m.index_pointer.size()) != brows + 1)
    invalid("bsr: index_pointer has " + std::to_string(m.index_pointer.size()) +
            " entries, expected block_row_count + 1 = " + std::to_string(brows + 1));
  validate_bsr_shape(m.view());
  // nnzb <= number of blocks (checked above), so nnzb * R * C <= rows * cols < 2^62.
  const int64_t want = m.nnzb() * m.block_rows * m.block_cols;
  if (static_cast<int64_t>(m.block_data.size()) != want)
    invalid("bsr: block_data has " + std::to_string(m.block_data.size()) +
            " elements, expected nnzb * block_rows * block_cols = " + std::to_string(m.nnzb()) +
            " * " + std::to_string(m.block_rows) + " * " + std::to_string(m.block_cols) + " = " +
            std::to_string(want));
  check_structure(m.view());
}

BsrMatrix dense_to_bsr(const float* dense, int64_t rows, int64_t cols, int64_t ld, int block_rows,
                       int block_cols) {
  const char* prefix = "dense_to_bsr: ";
  bsr_detail::check_shape(prefix, rows, cols, block_rows, block_cols);
  bsr_detail::check_dense(prefix, "dense", "ld", dense, rows, cols, ld);
  const int R = block_rows, C = block_cols;
  return gather_blocks(dense, rows, cols, ld, R, C, prefix, [&](int64_t i, int64_t j) {
    const float* src = dense + i * R * ld + j * C;
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c)
        if (!(src[r * ld + c] == 0.0f)) return true;  // NaN compares unequal: kept
    return false;
  });
}

BsrMatrix dense_to_bsr_masked(const float* dense, int64_t rows, int64_t cols, int64_t ld,
                              int block_rows, int block_cols,
                              const std::vector<uint8_t>& block_mask) {
  const char* prefix = "dense_to_bsr_masked: ";
  bsr_detail::check_shape(prefix, rows, cols, block_rows, block_cols);
  bsr_detail::check_dense(prefix, "dense", "ld", dense, rows, cols, ld);
  const int64_t brows = rows / block_rows, bcols = cols / block_cols;
  if (static_cast<int64_t>(block_mask.size()) != brows * bcols)
    invalid(std::string(prefix) + "block_mask has " + std::to_string(block_mask.size()) +
            " entries, expected block_row_count x block_col_count = " + std::to_string(brows) +
            " x " + std::to_string(bcols) + " = " + std::to_string(brows * bcols));
  return gather_blocks(
      dense, rows, cols, ld, block_rows, block_cols, prefix,
      [&](int64_t i, int64_t j) { return block_mask[static_cast<size_t>(i * bcols + j)] != 0; });
}

void bsr_to_dense(const BsrMatrix& m, float* dense, int64_t ld) {
  validate(m);
  bsr_detail::check_dense("bsr_to_dense: ", "dense", "ld", dense, m.rows, m.cols, ld);
  const int R = m.block_rows, C = m.block_cols;
  for (int64_t r = 0; r < m.rows; ++r) std::fill(dense + r * ld, dense + r * ld + m.cols, 0.0f);
  for (int64_t i = 0; i < m.block_row_count(); ++i)
    for (int64_t b = m.index_pointer[i]; b < m.index_pointer[i + 1]; ++b) {
      const float* src = m.block_data.data() + b * R * C;
      float* dst = dense + i * R * ld + int64_t{m.block_indices[b]} * C;
      for (int r = 0; r < R; ++r) std::copy(src + r * C, src + (r + 1) * C, dst + r * ld);
    }
}

BsrMatrix bsr_transpose(const BsrMatrix& m) {
  validate(m);
  const int R = m.block_rows, C = m.block_cols;
  const int64_t brows = m.block_row_count(), bcols = m.block_col_count();
  BsrMatrix t;
  t.rows = m.cols;
  t.cols = m.rows;
  t.block_rows = C;
  t.block_cols = R;
  // Counting sort by block column. Walking the source block rows in increasing order appends to
  // each transposed block row in increasing column order, so the result comes out sorted.
  t.index_pointer.assign(static_cast<size_t>(bcols + 1), 0);
  for (int32_t j : m.block_indices) ++t.index_pointer[static_cast<size_t>(j) + 1];
  for (int64_t j = 0; j < bcols; ++j) t.index_pointer[j + 1] += t.index_pointer[j];
  std::vector<int32_t> next(t.index_pointer.begin(), t.index_pointer.end() - 1);
  t.block_indices.resize(m.block_indices.size());
  t.block_data.resize(m.block_data.size());
  for (int64_t i = 0; i < brows; ++i)
    for (int64_t b = m.index_pointer[i]; b < m.index_pointer[i + 1]; ++b) {
      const int64_t dst_b = next[static_cast<size_t>(m.block_indices[b])]++;
      t.block_indices[dst_b] = static_cast<int32_t>(i);
      const float* src = m.block_data.data() + b * R * C;  // R x C
      float* dst = t.block_data.data() + dst_b * R * C;    // C x R
      for (int r = 0; r < R; ++r)
        for (int c = 0; c < C; ++c) dst[c * R + r] = src[r * C + c];
    }
  return t;
}

}  // namespace tilegemm
