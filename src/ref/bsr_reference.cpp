// CPU reference for BSR x dense products with double accumulation.
//
// Both products reduce to one step, applied to one block row i of W at a time:
//   acc[r][j] += W_b[r][c] * B[col_b * C + c][j]
// for every block b of the row, r < R, c < C, j < width, where B is a dense operand whose rows are
// indexed by W's columns. The innermost loop runs over j (contiguous in B and acc, no reduction),
// so the compiler vectorizes it without reassociating sums.
//   bsr_wx:  B = X itself (k x n, float), a tile of kTileN columns; acc row r is Y row i*R + r.
//   bsr_xwt: B = X^T packed as doubles (k x kTileM) for a tile of kTileM rows of X; acc row r is
//            Y column i*R + r, so the tile is written transposed.
// Work items (tiles) are handed to threads from an atomic counter; each Y element is owned by one
// item and summed over blocks in increasing column order, then c in order: a fixed order.
#include "ref/parallel_for.hpp"
#include "ref/bsr_reference.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sparse/bsr_checks.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace ref {
namespace {

constexpr int64_t kTileM = 32;  // bsr_xwt: rows of X (and Y) per work item
constexpr int64_t kTileN = 64;  // bsr_wx: columns of X (and Y) per work item

using bsr_detail::extent;
using bsr_detail::invalid;
using bsr_detail::overlaps;

// acc (R x width, row stride width) += block row i of W times the rows of B (row stride ldb).
template <class TB>
void block_row_product(const BsrMatrix& w, int64_t i, const TB* b_mat, int64_t ldb, int64_t width,
                       double* acc) {
  const int R = w.block_rows, C = w.block_cols;
  for (int64_t blk = w.index_pointer[i]; blk < w.index_pointer[i + 1]; ++blk) {
    const float* wb = w.block_data.data() + blk * R * C;
    const TB* bb = b_mat + int64_t{w.block_indices[blk]} * C * ldb;
    for (int r = 0; r < R; ++r) {
      double* __restrict a = acc + r * width;
      for (int c = 0; c < C; ++c) {
        const double wv = wb[r * C + c];
        const TB* __restrict brow = bb + c * ldb;
        for (int64_t j = 0; j < width; ++j) a[j] += wv * static_cast<double>(brow[j]);
      }
    }
  }
}

// dst = alpha * acc (+ beta * dst); beta == 0 does not read dst.
inline void store(float& dst, double acc, double alpha, float beta) {
  dst = beta == 0.0f ? static_cast<float>(alpha * acc)
                     : static_cast<float>(alpha * acc + static_cast<double>(beta) * dst);
}

// Y = beta * Y over m x n (beta == 0 writes zeros without reading).
void scale_y(int64_t m, int64_t n, float beta, float* y, int64_t ldy) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float& dst = y[i * ldy + j];
      dst = beta == 0.0f ? 0.0f : static_cast<float>(static_cast<double>(beta) * dst);
    }
}

void check_sizes(const std::string& p, int64_t m, int64_t n, int64_t k) {
  const char* names[] = {"m", "n", "k"};
  const int64_t sizes[] = {m, n, k};
  for (int s = 0; s < 3; ++s)
    if (sizes[s] < 0) invalid(p + names[s] + " = " + std::to_string(sizes[s]) + " is negative");
}

// The checks both products share, after the shapes: W, X (x_rows x x_cols), Y (m x n).
void check_operands(const std::string& p, int64_t m, int64_t n, const float* x, int64_t x_rows,
                    int64_t x_cols, int64_t ldx, const BsrMatrix& w, const float* y, int64_t ldy) {
  validate(w);
  bsr_detail::check_dense(p.c_str(), "x", "ldx", x, x_rows, x_cols, ldx);
  bsr_detail::check_dense(p.c_str(), "y", "ldy", y, m, n, ldy);
  const int64_t ext_y = extent(m, n, ldy);
  if (overlaps(y, ext_y, x, extent(x_rows, x_cols, ldx)))
    invalid(p + "y overlaps x: the output must not share memory with an input");
  if (overlaps(y, ext_y, w.block_data.data(), static_cast<int64_t>(w.block_data.size())))
    invalid(p + "y overlaps w.block_data: the output must not share memory with an input");
}

}  // namespace

void bsr_xwt(int64_t m, int64_t n, int64_t k, float alpha, const float* x, int64_t ldx,
             const BsrMatrix& w, float beta, float* y, int64_t ldy, int threads) {
  const std::string p = "ref::bsr_xwt: ";
  check_sizes(p, m, n, k);
  // Shapes before leading dimensions, so a mismatch is reported as such rather than as a bad ld.
  if (w.cols != k)
    invalid(p + "x has K = " + std::to_string(k) +
            " columns but w has cols = " + std::to_string(w.cols));
  if (w.rows != n)
    invalid(p + "y has N = " + std::to_string(n) +
            " columns but w has rows = " + std::to_string(w.rows));
  check_operands(p, m, n, x, m, k, ldx, w, y, ldy);
  if (m == 0 || n == 0) return;
  if (alpha == 0.0f || k == 0 || w.nnzb() == 0) return scale_y(m, n, beta, y, ldy);

  const int R = w.block_rows;
  const int64_t brows = w.block_row_count();
  const int64_t m_tiles = (m + kTileM - 1) / kTileM;
  const int nthreads = resolve_threads(threads);
  // Split W's block rows into chunks when there are too few row tiles to keep the threads busy
  // (small m); each item then repacks its X tile, which is cheap next to the product.
  const int64_t chunks = std::clamp<int64_t>((4 * nthreads + m_tiles - 1) / m_tiles, 1, brows);
  const int64_t items = m_tiles * chunks;
  const int workers = static_cast<int>(std::min<int64_t>(items, nthreads));

  struct Scratch {
    std::vector<double> xt, acc;
  };
  // Allocated before any thread starts, so an allocation failure throws here.
  std::vector<Scratch> scratch(static_cast<size_t>(workers));
  for (Scratch& s : scratch) {
    s.xt.resize(static_cast<size_t>(k * kTileM));
    s.acc.resize(static_cast<size_t>(R * kTileM));
  }
  const double dalpha = alpha;

  parallel_for(items, workers, [&](int worker, int64_t item) {
    Scratch& s = scratch[static_cast<size_t>(worker)];
    const int64_t m0 = (item / chunks) * kTileM, mb = std::min(kTileM, m - m0);
    const int64_t chunk = item % chunks;
    const int64_t i_begin = chunk * brows / chunks, i_end = (chunk + 1) * brows / chunks;
    // xt[p][mi] = X[m0 + mi][p], row stride kTileM.
    for (int64_t mi = 0; mi < mb; ++mi) {
      const float* src = x + (m0 + mi) * ldx;
      for (int64_t p = 0; p < k; ++p) s.xt[static_cast<size_t>(p * kTileM + mi)] = src[p];
    }
    for (int64_t i = i_begin; i < i_end; ++i) {
      std::fill(s.acc.begin(), s.acc.end(), 0.0);
      block_row_product(w, i, s.xt.data(), kTileM, mb, s.acc.data());
      for (int64_t mi = 0; mi < mb; ++mi) {
        float* yrow = y + (m0 + mi) * ldy + i * R;
        for (int r = 0; r < R; ++r)
          store(yrow[r], s.acc[static_cast<size_t>(r * mb + mi)], dalpha, beta);
      }
    }
  });
}

void bsr_wx(int64_t m, int64_t n, int64_t k, float alpha, const BsrMatrix& w, const float* x,
            int64_t ldx, float beta, float* y, int64_t ldy, int threads) {
  const std::string p = "ref::bsr_wx: ";
  check_sizes(p, m, n, k);
  if (w.rows != m)
    invalid(p + "y has M = " + std::to_string(m) +
            " rows but w has rows = " + std::to_string(w.rows));
  if (w.cols != k)
    invalid(p + "x has K = " + std::to_string(k) +
            " rows but w has cols = " + std::to_string(w.cols));
  check_operands(p, m, n, x, k, n, ldx, w, y, ldy);
  if (m == 0 || n == 0) return;
  if (alpha == 0.0f || k == 0 || w.nnzb() == 0) return scale_y(m, n, beta, y, ldy);

  const int R = w.block_rows;
  const int64_t brows = w.block_row_count();
  const int64_t n_tiles = (n + kTileN - 1) / kTileN;
  const int64_t items = brows * n_tiles;
  const int workers = static_cast<int>(std::min<int64_t>(items, resolve_threads(threads)));
  std::vector<std::vector<double>> acc(static_cast<size_t>(workers),
                                       std::vector<double>(static_cast<size_t>(R * kTileN)));
  const double dalpha = alpha;

  parallel_for(items, workers, [&](int worker, int64_t item) {
    std::vector<double>& a = acc[static_cast<size_t>(worker)];
    const int64_t i = item / n_tiles;
    const int64_t n0 = (item % n_tiles) * kTileN, nb = std::min(kTileN, n - n0);
    std::fill(a.begin(), a.end(), 0.0);
    block_row_product(w, i, x + n0, ldx, nb, a.data());
    for (int r = 0; r < R; ++r) {
      float* yrow = y + (i * R + r) * ldy + n0;
      for (int64_t j = 0; j < nb; ++j)
        store(yrow[j], a[static_cast<size_t>(r * nb + j)], dalpha, beta);
    }
  });
}

}  // namespace ref
}  // namespace tilegemm
