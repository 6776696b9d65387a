// Tests of the tile orders in src/kernels/common/tile_order.cuh (host side of the
// __device__ __host__ functions): every raster maps block ids [0, tiles_m * tiles_n) bijectively onto
// the tile grid; row-major and grouped follow their documented order exactly; the generalized Hilbert
// curve is local.
//
// This file is compiled as CUDA (LANGUAGE CUDA in CMake) because it includes a .cuh kernel header.
//
// Hilbert locality, measured on every grid up to 256 x 256 before writing these assertions:
//   - every step moves to one of the 8 neighbours (Chebyshev distance 1, never a jump);
//   - at most one step per grid is diagonal (Manhattan distance 2);
//   - no diagonal step at all when W and H are both even or both odd (in particular powers of two).
//     Diagonal steps appear only for mixed parity (odd major axis, even minor axis), where a curve
//     from one end of the major axis to the other cannot be made of unit steps alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/tile_order.cuh"

namespace {

using tilegemm::kernels::column_major_tile;
using tilegemm::kernels::grouped_tile;
using tilegemm::kernels::hilbert_d2xy;
using tilegemm::kernels::tile_for_block;
using tilegemm::kernels::TileCoord;

constexpr int kRowMajor = 0, kGrouped = 1, kHilbert = 2;  // tilegemm::Raster values
constexpr int kGroupRows = 8;                              // group used by tile_for_block(1, ...)

// Grids (tiles_m, tiles_n): all of 1..40 x 1..40 plus larger odd ones in both orientations.
std::vector<std::pair<int, int>> test_grids() {
  std::vector<std::pair<int, int>> g;
  for (int m = 1; m <= 40; ++m)
    for (int n = 1; n <= 40; ++n) g.emplace_back(m, n);
  const std::pair<int, int> extra[] = {{33, 17}, {127, 3},  {1, 1000}, {257, 129},
                                       {16, 33}, {513, 257}, {1000, 999}, {2, 301}};
  for (auto e : extra) {
    g.push_back(e);
    g.emplace_back(e.second, e.first);
  }
  return g;
}

std::string grid_name(int tiles_m, int tiles_n) {
  return std::to_string(tiles_m) + " x " + std::to_string(tiles_n) + " tiles (m x n)";
}

// The raster visits every tile exactly once and stays in range.
::testing::AssertionResult is_bijection(int raster, int tiles_m, int tiles_n) {
  const int count = tiles_m * tiles_n;
  std::vector<int> seen(static_cast<size_t>(count), -1);
  for (int id = 0; id < count; ++id) {
    const TileCoord t = tile_for_block(raster, tiles_m, tiles_n, id);
    if (t.m < 0 || t.m >= tiles_m || t.n < 0 || t.n >= tiles_n)
      return ::testing::AssertionFailure() << "raster " << raster << ", " << grid_name(tiles_m, tiles_n)
                                           << ": id " << id << " -> tile (" << t.m << ", " << t.n
                                           << ") out of range";
    int& owner = seen[static_cast<size_t>(t.m) * tiles_n + t.n];
    if (owner >= 0)
      return ::testing::AssertionFailure() << "raster " << raster << ", " << grid_name(tiles_m, tiles_n)
                                           << ": ids " << owner << " and " << id << " both -> tile ("
                                           << t.m << ", " << t.n << ")";
    owner = id;
  }
  // count ids, all distinct, all in range => every tile was hit exactly once.
  return ::testing::AssertionSuccess();
}

TEST(Raster, EveryRasterIsABijection) {
  for (auto [tiles_m, tiles_n] : test_grids())
    for (int raster : {kRowMajor, kGrouped, kHilbert})
      ASSERT_TRUE(is_bijection(raster, tiles_m, tiles_n));
}

TEST(Raster, RowMajorOrder) {
  for (auto [tiles_m, tiles_n] : test_grids())
    for (int id = 0; id < tiles_m * tiles_n; ++id) {
      const TileCoord t = tile_for_block(kRowMajor, tiles_m, tiles_n, id);
      ASSERT_EQ(t.m, id / tiles_n) << grid_name(tiles_m, tiles_n) << " id " << id;
      ASSERT_EQ(t.n, id % tiles_n) << grid_name(tiles_m, tiles_n) << " id " << id;
    }
}

// Column-major (the BSR tiled kernels' light slots): m fastest, every tile once.
TEST(Raster, ColumnMajorOrder) {
  for (auto [tiles_m, tiles_n] : test_grids()) {
    std::vector<int> hits(static_cast<size_t>(tiles_m * tiles_n), 0);
    int id = 0;
    for (int n = 0; n < tiles_n; ++n)
      for (int m = 0; m < tiles_m; ++m, ++id) {
        const TileCoord t = column_major_tile(tiles_m, id);
        ASSERT_EQ(t.m, m) << grid_name(tiles_m, tiles_n) << " id " << id;
        ASSERT_EQ(t.n, n) << grid_name(tiles_m, tiles_n) << " id " << id;
        ++hits[static_cast<size_t>(t.m * tiles_n + t.n)];
      }
    ASSERT_TRUE(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; })) << grid_name(tiles_m, tiles_n);
  }
}

// Grouped order, spelled out independently: bands of kGroupRows tile-rows (the last band may be
// shorter), each band walked column by column, top to bottom inside a column.
TEST(Raster, GroupedOrder) {
  for (auto [tiles_m, tiles_n] : test_grids()) {
    std::vector<std::pair<int, int>> expected;
    for (int band = 0; band < tiles_m; band += kGroupRows) {
      const int rows = std::min(kGroupRows, tiles_m - band);
      for (int n = 0; n < tiles_n; ++n)
        for (int r = 0; r < rows; ++r) expected.emplace_back(band + r, n);
    }
    for (int id = 0; id < tiles_m * tiles_n; ++id) {
      const TileCoord t = tile_for_block(kGrouped, tiles_m, tiles_n, id);
      ASSERT_EQ(t.m, expected[static_cast<size_t>(id)].first) << grid_name(tiles_m, tiles_n) << " id " << id;
      ASSERT_EQ(t.n, expected[static_cast<size_t>(id)].second) << grid_name(tiles_m, tiles_n) << " id " << id;
    }
  }
}

TEST(Raster, GroupedWithOtherGroupSizesIsABijection) {
  for (int group : {1, 2, 3, 4, 5, 16})
    for (int tiles_m = 1; tiles_m <= 37; ++tiles_m)
      for (int tiles_n : {1, 2, 7, 31}) {
        std::vector<int> hits(static_cast<size_t>(tiles_m * tiles_n), 0);
        for (int id = 0; id < tiles_m * tiles_n; ++id) {
          const TileCoord t = grouped_tile(tiles_m, tiles_n, id, group);
          ASSERT_TRUE(t.m >= 0 && t.m < tiles_m && t.n >= 0 && t.n < tiles_n)
              << "group " << group << ", " << grid_name(tiles_m, tiles_n) << " id " << id;
          ASSERT_EQ(hits[static_cast<size_t>(t.m * tiles_n + t.n)]++, 0)
              << "group " << group << ", " << grid_name(tiles_m, tiles_n) << " id " << id;
        }
      }
}

// tile_for_block(Hilbert) is hilbert_d2xy over width = tiles_n, height = tiles_m.
TEST(Raster, HilbertMatchesD2xy) {
  for (auto [tiles_m, tiles_n] : test_grids())
    for (int id = 0; id < tiles_m * tiles_n; ++id) {
      int x = -1, y = -1;
      hilbert_d2xy(tiles_n, tiles_m, id, &x, &y);
      const TileCoord t = tile_for_block(kHilbert, tiles_m, tiles_n, id);
      ASSERT_EQ(t.n, x);
      ASSERT_EQ(t.m, y);
    }
}

struct HilbertWalk {
  int max_chebyshev = 0;   // largest max(|dx|, |dy|) between consecutive ids
  int diagonal_steps = 0;  // steps with |dx| + |dy| > 1
  int start_x = -1, start_y = -1;
};

HilbertWalk walk_hilbert(int width, int height) {
  HilbertWalk w;
  int px = 0, py = 0;
  for (int d = 0; d < width * height; ++d) {
    int x = -1, y = -1;
    hilbert_d2xy(width, height, d, &x, &y);
    if (d == 0) {
      w.start_x = x;
      w.start_y = y;
    } else {
      const int dx = std::abs(x - px), dy = std::abs(y - py);
      w.max_chebyshev = std::max(w.max_chebyshev, std::max(dx, dy));
      if (dx + dy > 1) ++w.diagonal_steps;
    }
    px = x;
    py = y;
  }
  return w;
}

TEST(Raster, HilbertIsLocal) {
  for (auto [height, width] : test_grids()) {
    const HilbertWalk w = walk_hilbert(width, height);
    const std::string g = std::to_string(width) + " x " + std::to_string(height) + " (W x H)";
    EXPECT_EQ(w.start_x, 0) << g;
    EXPECT_EQ(w.start_y, 0) << g;
    // Every step goes to one of the 8 neighbours: never a jump.
    EXPECT_LE(w.max_chebyshev, 1) << g;
    // At most one diagonal step, and none when both sides have the same parity.
    EXPECT_LE(w.diagonal_steps, 1) << g;
    if (width % 2 == height % 2) EXPECT_EQ(w.diagonal_steps, 0) << g;
  }
}

TEST(Raster, HilbertPowerOfTwoSquaresTakeUnitSteps) {
  for (int s : {1, 2, 4, 8, 16, 32, 64}) {
    int px = 0, py = 0;
    for (int d = 0; d < s * s; ++d) {
      int x = -1, y = -1;
      hilbert_d2xy(s, s, d, &x, &y);
      if (d > 0) ASSERT_EQ(std::abs(x - px) + std::abs(y - py), 1) << s << " x " << s << " step " << d;
      px = x;
      py = y;
    }
  }
}

// Locality in the sense that matters for L2 reuse: on a 2^n x 2^n grid, each aligned run of 4^j
// consecutive blocks covers exactly a 2^j x 2^j square of tiles (the classic Hilbert property).
TEST(Raster, HilbertAlignedWindowsAreSquaresOnPowerOfTwoGrids) {
  for (int n : {4, 8, 16, 32}) {
    for (int side = 2; side < n; side *= 2) {
      const int window = side * side;
      for (int start = 0; start < n * n; start += window) {
        int min_x = n, max_x = -1, min_y = n, max_y = -1;
        for (int d = start; d < start + window; ++d) {
          int x, y;
          hilbert_d2xy(n, n, d, &x, &y);
          min_x = std::min(min_x, x);
          max_x = std::max(max_x, x);
          min_y = std::min(min_y, y);
          max_y = std::max(max_y, y);
        }
        EXPECT_EQ(max_x - min_x + 1, side) << n << "x" << n << " window at " << start;
        EXPECT_EQ(max_y - min_y + 1, side) << n << "x" << n << " window at " << start;
      }
    }
  }
}

}  // namespace
