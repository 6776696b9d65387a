// CPU reference GEMM: C = alpha * op(A) * op(B) + beta * C with double accumulation.
//
// Method: C is cut into tiles of kTileM x kTileN elements; worker threads (the calling thread plus
// threads - 1 others) take tiles from an atomic counter. For each tile the k dimension is walked in
// panels of kPanelK: the op(A) rows and the op(B) panel of the tile are packed (converted to double)
// into contiguous row-major buffers, and a 4-row micro-kernel accumulates into a double tile that
// stays in L1/L2. Every C element is the sum over p = 0, 1, ..., k-1 in that order, so the result
// does not depend on the number of threads or on the tiling (bitwise reproducible).
//
// Products of two floats are exact in double (24 + 24 bits < 53), so the only rounding is that of
// the double sum and the final conversion to float.
#include "ref/parallel_for.hpp"
#include "ref/reference.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tilegemm/error.hpp"
#include "tilegemm/gemm.hpp"

namespace tilegemm {
namespace ref {
namespace {

constexpr int64_t kTileM = 32;    // rows of C per work item
constexpr int64_t kTileN = 128;   // columns of C per work item
constexpr int64_t kPanelK = 128;  // k per packed panel

// A matrix seen through op() and the storage layout: element (r, s) is ptr[r * rs + s * ss].
struct View {
  const float* ptr;
  int64_t rs, ss;
  float at(int64_t r, int64_t s) const { return ptr[r * rs + s * ss]; }
};

// op(X) of a stored matrix X with leading dimension ld: (r, s) -> stored (r, s) or (s, r).
View make_view(Layout layout, Op op, const float* ptr, int64_t ld) {
  // Stored element (r, s) is at r * ld + s (row-major) or r + s * ld (col-major).
  int64_t rs = (layout == Layout::RowMajor) ? ld : 1;
  int64_t ss = (layout == Layout::RowMajor) ? 1 : ld;
  if (op == Op::T) std::swap(rs, ss);
  return View{ptr, rs, ss};
}

// Per-thread scratch: one packed A panel, one packed B panel, one double accumulator tile.
struct Scratch {
  std::vector<double> a, b, acc;
  Scratch() : a(kTileM * kPanelK), b(kPanelK * kTileN), acc(kTileM * kTileN) {}
};

// acc[mb][nb] (row stride kTileN) += Ap[mb][kb] (row stride kPanelK) * Bp[kb][nb] (row stride kTileN)
void micro_kernel(int64_t mb, int64_t nb, int64_t kb, const double* ap, const double* bp,
                  double* acc) {
  int64_t i = 0;
  for (; i + 4 <= mb; i += 4) {
    double* __restrict c0 = acc + (i + 0) * kTileN;
    double* __restrict c1 = acc + (i + 1) * kTileN;
    double* __restrict c2 = acc + (i + 2) * kTileN;
    double* __restrict c3 = acc + (i + 3) * kTileN;
    const double* a_row = ap + i * kPanelK;
    for (int64_t p = 0; p < kb; ++p) {
      const double a0 = a_row[p], a1 = a_row[kPanelK + p];
      const double a2 = a_row[2 * kPanelK + p], a3 = a_row[3 * kPanelK + p];
      const double* __restrict b_row = bp + p * kTileN;
      for (int64_t j = 0; j < nb; ++j) {
        const double bv = b_row[j];
        c0[j] += a0 * bv;
        c1[j] += a1 * bv;
        c2[j] += a2 * bv;
        c3[j] += a3 * bv;
      }
    }
  }
  for (; i < mb; ++i) {
    double* __restrict c0 = acc + i * kTileN;
    const double* a_row = ap + i * kPanelK;
    for (int64_t p = 0; p < kb; ++p) {
      const double a0 = a_row[p];
      const double* __restrict b_row = bp + p * kTileN;
      for (int64_t j = 0; j < nb; ++j) c0[j] += a0 * b_row[j];
    }
  }
}

// Computes op(A) * op(B) tile by tile (k > 0) and hands each finished tile to
// epilogue(i0, j0, mb, nb, acc) where acc[r * kTileN + s] is element (i0 + r, j0 + s).
template <class Epilogue>
void blocked_product(const View& va, const View& vb, int64_t m, int64_t n, int64_t k,
                     int threads, const Epilogue& epilogue) {
  const int64_t tiles_m = (m + kTileM - 1) / kTileM;
  const int64_t tiles_n = (n + kTileN - 1) / kTileN;
  const int64_t items = tiles_m * tiles_n;
  const int workers = static_cast<int>(std::min<int64_t>(items, threads));

  // Allocate every buffer before any thread starts, so an allocation failure throws here.
  std::vector<Scratch> scratch(static_cast<size_t>(std::max(workers, 1)));

  parallel_for(items, workers, [&](int worker, int64_t item) {
    Scratch& s = scratch[static_cast<size_t>(worker)];
    const int64_t i0 = (item / tiles_n) * kTileM;
    const int64_t j0 = (item % tiles_n) * kTileN;
    const int64_t mb = std::min(kTileM, m - i0);
    const int64_t nb = std::min(kTileN, n - j0);
    std::fill(s.acc.begin(), s.acc.end(), 0.0);
    for (int64_t p0 = 0; p0 < k; p0 += kPanelK) {
      const int64_t kb = std::min(kPanelK, k - p0);
      for (int64_t r = 0; r < mb; ++r) {
        double* dst = s.a.data() + r * kPanelK;
        for (int64_t p = 0; p < kb; ++p) dst[p] = va.at(i0 + r, p0 + p);
      }
      for (int64_t p = 0; p < kb; ++p) {
        double* dst = s.b.data() + p * kTileN;
        for (int64_t c = 0; c < nb; ++c) dst[c] = vb.at(p0 + p, j0 + c);
      }
      micro_kernel(mb, nb, kb, s.a.data(), s.b.data(), s.acc.data());
    }
    epilogue(i0, j0, mb, nb, s.acc.data());
  });
}

}  // namespace

void sgemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
           const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
           int64_t ldc, int threads) {
  check_gemm_args(layout, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, c, ldc);
  if (m == 0 || n == 0) return;
  threads = resolve_threads(threads);

  // C element (i, j): row-major c[i * ldc + j], col-major c[i + j * ldc].
  const int64_t cs_i = (layout == Layout::RowMajor) ? ldc : 1;
  const int64_t cs_j = (layout == Layout::RowMajor) ? 1 : ldc;
  const double dalpha = alpha, dbeta = beta;

  if (k == 0 || alpha == 0.0f) {
    // C = beta * C, without reading A or B; beta == 0 writes zeros without reading C.
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float& dst = c[i * cs_i + j * cs_j];
        dst = (beta == 0.0f) ? 0.0f : static_cast<float>(dbeta * static_cast<double>(dst));
      }
    return;
  }

  const View va = make_view(layout, op_a, a, lda);
  const View vb = make_view(layout, op_b, b, ldb);
  blocked_product(va, vb, m, n, k, threads,
                  [&](int64_t i0, int64_t j0, int64_t mb, int64_t nb, const double* acc) {
                    for (int64_t r = 0; r < mb; ++r)
                      for (int64_t s = 0; s < nb; ++s) {
                        float& dst = c[(i0 + r) * cs_i + (j0 + s) * cs_j];
                        const double prod = dalpha * acc[r * kTileN + s];
                        dst = (beta == 0.0f)
                                  ? static_cast<float>(prod)
                                  : static_cast<float>(prod + dbeta * static_cast<double>(dst));
                      }
                  });
}

// Validation: `out` is a dense double array, not a float matrix in `layout`, so it is checked here
// (non-null when m, n > 0; no overlap with the stored extents of A and B). The rest (sizes, leading
// dimensions, null A/B, index range) is delegated to check_gemm_args, which is handed `out` viewed as
// an m x n float matrix in `layout` with the minimal leading dimension: that region is the first half
// of `out`'s bytes, so it is a real, writable region and the shared checks apply unchanged.
void gemm_f64(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, const float* a,
              int64_t lda, const float* b, int64_t ldb, double* out, int threads) {
  if (m > 0 && n > 0 && out == nullptr)
    throw Error(ErrorCode::InvalidArgument,
                "ref::gemm_f64: out is null (m = " + std::to_string(m) +
                    ", n = " + std::to_string(n) + ")");
  const int64_t ld_view = std::max<int64_t>(layout == Layout::RowMajor ? n : m, 1);
  check_gemm_args(layout, op_a, op_b, m, n, k, 1.0f, a, lda, b, ldb,
                  reinterpret_cast<const float*>(out), ld_view);
  if (m == 0 || n == 0) return;

  // Overlap of out (m * n doubles) with the stored extents of A and B.
  auto extent_floats = [&](Op op, int64_t rows, int64_t cols, int64_t ld) -> int64_t {
    // op(X) is rows x cols; the stored matrix is rows x cols (N) or cols x rows (T).
    int64_t sr = (op == Op::N) ? rows : cols, sc = (op == Op::N) ? cols : rows;
    if (sr == 0 || sc == 0) return 0;
    const int64_t outer = (layout == Layout::RowMajor) ? sr : sc;
    const int64_t inner = (layout == Layout::RowMajor) ? sc : sr;
    return (outer - 1) * ld + inner;
  };
  auto overlaps = [&](const float* p, int64_t floats) {
    if (floats == 0 || p == nullptr) return false;
    const auto lo = reinterpret_cast<uintptr_t>(p);
    const auto hi = lo + static_cast<uintptr_t>(floats) * sizeof(float);
    const auto olo = reinterpret_cast<uintptr_t>(out);
    const auto ohi = olo + static_cast<uintptr_t>(m) * static_cast<uintptr_t>(n) * sizeof(double);
    return lo < ohi && olo < hi;
  };
  if (overlaps(a, extent_floats(op_a, m, k, lda)))
    throw Error(ErrorCode::InvalidArgument, "ref::gemm_f64: out overlaps a");
  if (overlaps(b, extent_floats(op_b, k, n, ldb)))
    throw Error(ErrorCode::InvalidArgument, "ref::gemm_f64: out overlaps b");

  threads = resolve_threads(threads);
  if (k == 0) {
    std::fill(out, out + m * n, 0.0);
    return;
  }
  const View va = make_view(layout, op_a, a, lda);
  const View vb = make_view(layout, op_b, b, ldb);
  blocked_product(va, vb, m, n, k, threads,
                  [&](int64_t i0, int64_t j0, int64_t mb, int64_t nb, const double* acc) {
                    for (int64_t r = 0; r < mb; ++r)
                      std::copy(acc + r * kTileN, acc + r * kTileN + nb,
                                out + (i0 + r) * n + j0);
                  });
}

}  // namespace ref
}  // namespace tilegemm
