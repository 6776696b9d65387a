// The orders in which thread blocks visit output tiles, shared by the dense and BSR kernels: row-
// and column-major, grouped ("swizzled") and a generalized Hilbert curve (dense level 4-6 and split
// kernels: tile_for_block with GemmParams::raster); the BSR tiled kernels walk their heavy slots
// row-major and their light slots column-major (kernels/bsr/tiled_parts.cuh, find_tile_work).
//
// Device and host code (tests/cpu/test_raster.cpp runs it on the CPU), includes nothing: compiles
// with nvcc and with NVRTC.
#pragma once

namespace tilegemm {
namespace kernels {

// Which output tile (m, n) of a tiles_m x tiles_n grid the thread block with linear index `id`
// computes.
struct TileCoord {
  int m, n;
};

// Row-major: n fastest. Column-major: m fastest (the BSR kernels' light slots, so a wave of blocks
// shares one column tile of the dense operand).
__device__ __host__ inline TileCoord row_major_tile(int tiles_n, int id) { return TileCoord{id / tiles_n, id % tiles_n}; }
__device__ __host__ inline TileCoord column_major_tile(int tiles_m, int id) { return TileCoord{id % tiles_m, id / tiles_m}; }

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
    t = row_major_tile(tiles_n, id);
  }
  return t;
}

}  // namespace kernels
}  // namespace tilegemm
