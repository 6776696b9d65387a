// Random BSR matrices for tests and benchmarks (generate_bsr).
//
// Reproducibility: the same seed gives the same matrix with every standard library and compiler,
// so a benchmark or a failing test can be re-created from (shape, sparsity, distribution, seed).
// std::uniform_*_distribution and std::shuffle are implementation-defined, so all randomness goes
// through std::mt19937_64 (fully specified) and the integer mappings below, and the Skewed row
// shares are computed in integers (no pow/log, no floating-point contraction differences).
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "sparse/bsr_checks.hpp"
#include "tilegemm/bsr.hpp"

namespace tilegemm {
namespace {

using bsr_detail::invalid;

// Uniform integer in [0, n), n >= 1: rejection of the 2^64 mod n lowest values removes the modulo
// bias.
uint64_t uniform_below(std::mt19937_64& g, uint64_t n) {
  const uint64_t reject_below = (0 - n) % n;  // 2^64 mod n
  uint64_t x = g();
  while (x < reject_below) x = g();
  return x % n;
}

// Uniform on the grid k * 2^-23 in [-1, 1), excluding 0 (a zero would blur the block pattern).
float nonzero_value(std::mt19937_64& g) {
  for (;;) {
    const int32_t q = static_cast<int32_t>(g() >> 40) - (int32_t{1} << 23);  // [-2^23, 2^23)
    if (q != 0) return static_cast<float>(q) * (1.0f / 8388608.0f);          // exact
  }
}

// Swaps a uniformly random choice of k of the elements of v into v[0, k) (partial Fisher-Yates).
// Whatever order v starts in, v[0, k) is then a uniform random k-subset of its elements.
template <class T>
void choose_prefix(std::vector<T>& v, int64_t k, std::mt19937_64& g) {
  const int64_t n = static_cast<int64_t>(v.size());
  for (int64_t i = 0; i < k; ++i) {
    const int64_t j = i + static_cast<int64_t>(uniform_below(g, static_cast<uint64_t>(n - i)));
    std::swap(v[static_cast<size_t>(i)], v[static_cast<size_t>(j)]);
  }
}

// floor(nnzb / brows) blocks per row, plus one in nnzb % brows rows chosen at random.
std::vector<int64_t> uniform_counts(int64_t brows, int64_t nnzb, std::mt19937_64& g) {
  std::vector<int64_t> counts(static_cast<size_t>(brows), nnzb / brows);
  std::vector<int64_t> rows(static_cast<size_t>(brows));
  std::iota(rows.begin(), rows.end(), int64_t{0});
  const int64_t extra = nnzb % brows;
  choose_prefix(rows, extra, g);
  for (int64_t i = 0; i < extra; ++i) ++counts[static_cast<size_t>(rows[static_cast<size_t>(i)])];
  return counts;
}

// Zipf shares: the row of rank r (ranks assigned in random order) has weight w_r = floor(2^32 /
// (r + 1)). Rows whose proportional share would exceed bcols are capped at bcols, heaviest first,
// and the rest is shared in proportion to the weights of the uncapped rows; the integer parts are
// topped up by largest remainder so the counts sum to nnzb exactly.
std::vector<int64_t> skewed_counts(int64_t brows, int64_t bcols, int64_t nnzb, std::mt19937_64& g) {
  using u128 = unsigned __int128;  // remaining (< 2^31) x suffix sums (< 2^37) needs > 64 bits
  std::vector<int64_t> row_of_rank(static_cast<size_t>(brows));
  std::iota(row_of_rank.begin(), row_of_rank.end(), int64_t{0});
  choose_prefix(row_of_rank, brows, g);  // a full shuffle

  const size_t n = static_cast<size_t>(brows);
  std::vector<uint64_t> w(n), suffix(n + 1, 0);  // suffix[k] = sum of w[k..n)
  for (size_t r = 0; r < n; ++r) w[r] = (uint64_t{1} << 32) / (r + 1);
  for (size_t r = n; r-- > 0;) suffix[r] = suffix[r + 1] + w[r];

  std::vector<int64_t> by_rank(n, 0);
  int64_t remaining = nnzb;
  size_t k = 0;
  // Cap while the heaviest uncapped row's share remaining * w_k / suffix_k exceeds bcols. Weights
  // decrease with rank, so once the heaviest fits, all do. The last row never needs a cap because
  // remaining <= bcols * (rows left) holds throughout.
  while (k < n && u128(remaining) * w[k] > u128(bcols) * suffix[k]) {
    by_rank[k++] = bcols;
    remaining -= bcols;
  }
  if (k < n) {
    std::vector<uint64_t> rem(n, 0);
    int64_t given = 0;
    for (size_t r = k; r < n; ++r) {
      const u128 num = u128(remaining) * w[r];
      by_rank[r] = static_cast<int64_t>(num / suffix[k]);
      rem[r] = static_cast<uint64_t>(num % suffix[k]);
      given += by_rank[r];
    }
    // The fractional parts sum to remaining - given, each < 1: that many rows get one more. A row
    // at the cap has remainder 0, so it is never topped up past bcols.
    std::vector<size_t> order(n - k);
    std::iota(order.begin(), order.end(), k);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return rem[a] > rem[b]; });
    for (int64_t i = 0; i < remaining - given; ++i) ++by_rank[order[static_cast<size_t>(i)]];
  }
  std::vector<int64_t> counts(n);
  for (size_t r = 0; r < n; ++r) counts[static_cast<size_t>(row_of_rank[r])] = by_rank[r];
  return counts;
}

std::string str(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace

BsrMatrix generate_bsr(int64_t rows, int64_t cols, int block_rows, int block_cols, double sparsity,
                       RowDistribution distribution, uint64_t seed) {
  const std::string p = "generate_bsr: ";
  bsr_detail::check_shape(p.c_str(), rows, cols, block_rows, block_cols);
  if (!(sparsity >= 0.0 && sparsity <= 1.0))  // also rejects NaN
    invalid(p + "sparsity = " + str(sparsity) + " is not in [0, 1]");
  if (distribution != RowDistribution::Uniform && distribution != RowDistribution::Skewed)
    invalid(p + "distribution = " + std::to_string(static_cast<int>(distribution)) +
            " is not a RowDistribution value");

  BsrMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.block_rows = block_rows;
  m.block_cols = block_cols;
  const int64_t brows = m.block_row_count(), bcols = m.block_col_count();
  const int64_t total = brows * bcols;  // < 2^62
  const int64_t nnzb =
      std::clamp<int64_t>(std::llround((1.0 - sparsity) * static_cast<double>(total)), 0, total);
  if (nnzb > INT_MAX)
    invalid(p + "nnzb = " + std::to_string(nnzb) + " (" + std::to_string(total) +
            " blocks at sparsity " + str(sparsity) + ") exceeds 2^31-1 (index_pointer is int32)");

  std::mt19937_64 g(seed);
  std::vector<int64_t> counts;
  if (brows > 0)
    counts = distribution == RowDistribution::Uniform ? uniform_counts(brows, nnzb, g)
                                                      : skewed_counts(brows, bcols, nnzb, g);

  m.index_pointer.assign(static_cast<size_t>(brows + 1), 0);
  m.block_indices.resize(static_cast<size_t>(nnzb));
  // One pool of column indices for all rows: choose_prefix leaves it permuted, which does not bias
  // the next row's choice.
  std::vector<int32_t> pool(static_cast<size_t>(nnzb > 0 ? bcols : 0));
  std::iota(pool.begin(), pool.end(), int32_t{0});
  int64_t pos = 0;
  for (int64_t i = 0; i < brows; ++i) {
    const int64_t k = counts[static_cast<size_t>(i)];
    choose_prefix(pool, k, g);
    auto first = m.block_indices.begin() + pos;
    std::copy(pool.begin(), pool.begin() + k, first);
    std::sort(first, first + k);
    pos += k;
    m.index_pointer[static_cast<size_t>(i + 1)] = static_cast<int32_t>(pos);
  }

  m.block_data.resize(static_cast<size_t>(nnzb) * static_cast<size_t>(block_rows) *
                      static_cast<size_t>(block_cols));
  for (float& v : m.block_data) v = nonzero_value(g);
  return m;
}

}  // namespace tilegemm
