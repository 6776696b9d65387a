// Device helpers shared by the dense kernels: the canonical problem description, operand access,
// the epilogue and the tile rasterizations (row-major, grouped, Hilbert). The cp.async wrappers
// live in core/cp_async.cuh, shared with the sparse kernels.
//
// Device code only: this header (like every kernel header) must compile with nvcc and with NVRTC,
// so it includes only params.hpp and core/cp_async.cuh (which include nothing) and uses no
// host-only constructs.
#pragma once
#include "core/cp_async.cuh"
#include "dense/kernels/params.hpp"

namespace tilegemm {
namespace kernels {

// Element (row, col) of a row-major matrix with leading dimension ld: 64-bit offset, since a matrix
// may span more than 2^31 elements.
__device__ __forceinline__ long long at(int row, int ld, int col) {
  return static_cast<long long>(row) * ld + col;
}

template <bool kTransA>
__device__ __forceinline__ float load_a(const GemmParams& p, int m, int k) {
  return kTransA ? p.a[at(k, p.lda, m)] : p.a[at(m, p.lda, k)];
}
template <bool kTransB>
__device__ __forceinline__ float load_b(const GemmParams& p, int k, int n) {
  return kTransB ? p.b[at(n, p.ldb, k)] : p.b[at(k, p.ldb, n)];
}

// The full-K dot product of row m of op(A) and column n of op(B), straight from global memory
// (levels 1 and 2, which differ only in how threads are mapped to C).
template <bool kTransA, bool kTransB>
__device__ __forceinline__ float dot_from_global(const GemmParams& p, int m, int n) {
  float acc = 0.0f;
  for (int k = 0; k < p.k; ++k) acc += load_a<kTransA>(p, m, k) * load_b<kTransB>(p, k, n);
  return acc;
}

// Reads src[0..3] (consecutive in memory) where only the first `valid` elements exist (zeros for the
// rest). kVec: one 16-byte load when all four exist (the caller checked the alignment).
template <bool kVec>
__device__ __forceinline__ float4 load_chunk(const float* src, int valid) {
  if (kVec && valid >= 4) return *reinterpret_cast<const float4*>(src);
  float4 v;
  v.x = valid > 0 ? src[0] : 0.0f;
  v.y = valid > 1 ? src[1] : 0.0f;
  v.z = valid > 2 ? src[2] : 0.0f;
  v.w = valid > 3 ? src[3] : 0.0f;
  return v;
}

// BLAS semantics: beta == 0 means C is write-only (NaN/Inf already in C must not leak).
__device__ __forceinline__ void store_c(const GemmParams& p, int m, int n, float acc) {
  float* dst = p.c + at(m, p.ldc, n);
  *dst = (p.beta == 0.0f) ? p.alpha * acc : p.alpha * acc + p.beta * *dst;
}

// ---------------------------------------------------------------------------------------------
// Rasterization: which output tile (tile_m, tile_n) the block with linear index `id` computes.
struct TileCoord {
  int m, n;
};

__device__ __host__ inline int hilbert_sign(int x) { return (x > 0) - (x < 0); }
__device__ __host__ inline int hilbert_abs(int x) { return x < 0 ? -x : x; }

// Generalized Hilbert curve over an arbitrary W x H grid (not only powers of two): the rectangle is
// cut recursively into two or three sub-rectangles walked in Hilbert order (the "gilbert" scheme).
// We descend to the sub-rectangle holding index `d` instead of generating the whole curve, so a block
// finds its tile in O(log(max(W, H))) steps. Returns (x, y) with x < W, y < H.
// The walk is a bijection between [0, W*H) and the grid, every step goes to one of the 8 neighbours
// and at most one step is diagonal; tests/cpu/test_raster.cpp checks that for many shapes. Halving
// truncates toward zero (C's /), so on some grids the order differs from the published gilbert
// curve's (which floors), with the same properties.
__device__ __host__ inline void hilbert_d2xy(int width, int height, int d, int* out_x, int* out_y) {
  int x = 0, y = 0;
  // Major axis (ax, ay) and minor axis (bx, by) of the current rectangle.
  int ax, ay, bx, by;
  if (width >= height) {
    ax = width; ay = 0; bx = 0; by = height;
  } else {
    ax = 0; ay = height; bx = width; by = 0;
  }
  for (;;) {
    const int w = hilbert_abs(ax + ay), h = hilbert_abs(bx + by);
    const int dax = hilbert_sign(ax), day = hilbert_sign(ay);
    const int dbx = hilbert_sign(bx), dby = hilbert_sign(by);
    if (h == 1) {  // a single row: walk it along the major axis
      *out_x = x + dax * d; *out_y = y + day * d;
      return;
    }
    if (w == 1) {  // a single column: walk it along the minor axis
      *out_x = x + dbx * d; *out_y = y + dby * d;
      return;
    }
    int ax2 = ax / 2, ay2 = ay / 2, bx2 = bx / 2, by2 = by / 2;
    const int w2 = hilbert_abs(ax2 + ay2), h2 = hilbert_abs(bx2 + by2);
    if (2 * w > 3 * h) {
      // Long rectangle: split the major axis in two halves (even-sized first half when possible).
      if ((w2 & 1) && w > 2) { ax2 += dax; ay2 += day; }
      const int first = hilbert_abs(ax2 + ay2) * h;
      if (d < first) {
        ax = ax2; ay = ay2;
      } else {
        d -= first;
        x += ax2; y += ay2;
        ax -= ax2; ay -= ay2;
      }
    } else {
      // Standard case: up the minor axis, across the whole major axis, back down.
      if ((h2 & 1) && h > 2) { bx2 += dbx; by2 += dby; }
      const int first = hilbert_abs(bx2 + by2) * hilbert_abs(ax2 + ay2);
      const int second = w * (h - hilbert_abs(bx2 + by2));
      if (d < first) {
        const int nax = bx2, nay = by2, nbx = ax2, nby = ay2;
        ax = nax; ay = nay; bx = nbx; by = nby;
      } else if (d < first + second) {
        d -= first;
        x += bx2; y += by2;
        bx -= bx2; by -= by2;
      } else {
        d -= first + second;
        x += (ax - dax) + (bx2 - dbx);
        y += (ay - day) + (by2 - dby);
        const int nax = -bx2, nay = -by2, nbx = -(ax - ax2), nby = -(ay - ay2);
        ax = nax; ay = nay; bx = nbx; by = nby;
      }
    }
  }
}

// Grouped ("swizzled") order: walk kGroup tile-rows at a time, column by column inside the group,
// so consecutive blocks share B columns and nearby A rows.
__device__ __host__ inline TileCoord grouped_tile(int tiles_m, int tiles_n, int id, int group) {
  const int per_group = group * tiles_n;
  const int first_m = (id / per_group) * group;
  const int rows = (tiles_m - first_m) < group ? (tiles_m - first_m) : group;
  const int in_group = id % per_group;
  TileCoord t;
  t.m = first_m + in_group % rows;
  t.n = in_group / rows;
  return t;
}

// raster: 0 row-major, 1 grouped (8 tile-rows), 2 Hilbert. Must match tilegemm::Raster.
__device__ __host__ inline TileCoord tile_for_block(int raster, int tiles_m, int tiles_n, int id) {
  TileCoord t;
  if (raster == 2) {
    hilbert_d2xy(tiles_n, tiles_m, id, &t.n, &t.m);
  } else if (raster == 1) {
    t = grouped_tile(tiles_m, tiles_n, id, 8);
  } else {
    t.m = id / tiles_n;
    t.n = id % tiles_n;
  }
  return t;
}

}  // namespace kernels
}  // namespace tilegemm
