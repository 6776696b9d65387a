// Dense GEMM configs: plain records naming a kernel family and its parameters, with a stable text
// form used by GemmOptions::config, the bench, explain_choice and (next) the tuning database. Pure
// host code without CUDA headers, so the CPU tests use it.
#pragma once
#include <string>
#include <vector>

#include "tilegemm/types.hpp"

namespace tilegemm {
namespace detail {

enum class GemmFamily {
  Tiled,     // level 6's warp-tiled block (FFMA) or level 7's tensor-core block under the split-K /
             // stream-K tile scheduler (split_tiled.cuh)
  GemvRows,  // one output dimension <= 16, the long operand contiguous along k (gemv_rows.cuh)
  GemvCols,  // one output dimension <= 16, the long operand contiguous along l (gemv_cols.cuh;
             // one row of X: gemv_cols_one.cuh)
};

// The arithmetic a tiled schedule's block runs: FFMA on CUDA cores (level 6's warp-tiled block) or
// 3xTF32 on tensor cores (level 7's mma.sync block). Each is its own kernel template
// (launch_split_tiled.cuh instantiates one per math).
enum class TileMath { Ffma, Tf32x3 };

// A tiled schedule, FFMA: kernels::WarpTiledSchedule<bm, bn, bk, wm, wn, tm, tn, stages, blocks, 3,
// true> (FMA order 3, k-contiguous operands transposed by the copies, as level 6's defaults);
// Tf32x3: kernels::MmaTf32x3Schedule<bm, bn, bk, wm, wn, stages, blocks, mma_steps>
// (level 7: 3xTF32 mma.sync, no thread tile; tm = tn = 0).
struct TileShape {
  int bm = 0, bn = 0, bk = 0;  // block tile
  int wm = 0, wn = 0;          // warp tile
  int tm = 0, tn = 0;          // thread tile (FFMA)
  int stages = 0;              // cp.async pipeline depth
  int blocks = 0;              // thread blocks per SM the schedule is built for (register cap)
  TileMath math = TileMath::Ffma;
  int mma_steps = 0;           // Tf32x3: k8 steps summed per FP32 add (>= 1); FFMA: 0
  constexpr bool tensor_cores() const { return math == TileMath::Tf32x3; }
  constexpr int threads() const { return 32 * (bm / wm) * (bn / wn); }
  constexpr int smem_bytes() const {
    if (math == TileMath::Ffma) return stages * (bm + bn) * (bk + 4) * 4;
    auto stage = [&](int cols) { return cols * (bk + 4) > bk * (cols + 8) ? cols * (bk + 4) : bk * (cols + 8); };
    return stages * (stage(bm) + stage(bn)) * 4;
  }
  bool operator==(const TileShape& o) const {
    return bm == o.bm && bn == o.bn && bk == o.bk && wm == o.wm && wn == o.wn && tm == o.tm &&
           tn == o.tn && stages == o.stages && blocks == o.blocks && math == o.math && mma_steps == o.mma_steps;
  }
};

// Ladder level 7's schedule (gemm_ops.hpp, level7_config), compiled ahead of time below.
inline constexpr TileShape kLevel7Tile{128, 256, 32, 64, 64, 0, 0, 3, 1, TileMath::Tf32x3, 1};

// The tiled schedules compiled ahead of time (CMakeLists.txt generates a launcher file per schedule and
// its index). Any other schedule that tile_shape_problem() accepts is compiled at run time (NVRTC,
// src/jit/) on its first use.
inline constexpr TileShape kTiledSchedules[] = {
    //  bm   bn  bk  wm  wn  tm  tn  st  blk
    {128, 256, 32, 64, 64, 16, 8, 4, 1},  // level 6's Large: 0.94x cuBLAS on big squares
    {128, 128, 16, 64, 32, 8, 8, 4, 2},   // level 6's Small: finer waves, 2 blocks per SM
    {128, 64, 16, 64, 32, 8, 8, 3, 4},    // mid tiles for few-tile and skinny (N ~ 64) shapes
    {64, 128, 16, 32, 64, 8, 8, 3, 4},
    {64, 64, 16, 32, 32, 8, 4, 3, 6},     // small tiles: many blocks for small and split-K shapes
    {32, 32, 16, 32, 16, 4, 4, 4, 8},     // tiny tiles: K-heavy products with tiny outputs
    // Level 7 (tensor cores, 3xTF32; tm = tn = 0, then k8 steps per FP32 add). H100, 4096^3 NN,
    // 2026-11-25 (a631201): 60.5, 57.9, 52.1 and 61.5 TFLOP/s (cuBLAS FFMA 51.7).
    kLevel7Tile,                            // level 7's own schedule
    {128, 128, 32, 64, 32, 0, 0, 3, 1, TileMath::Tf32x3, 4},  // finer waves; K-heavy split-K
    {64, 64, 32, 32, 32, 0, 0, 4, 2, TileMath::Tf32x3, 1},    // small and split-K shapes (64x64x65536 in 128 slices)
    {64, 128, 32, 32, 64, 0, 0, 3, 2, TileMath::Tf32x3, 4},   // two blocks of 4 warps per SM: the fastest per tile
};
inline constexpr int kNumTiledSchedules = sizeof(kTiledSchedules) / sizeof(kTiledSchedules[0]);
// Index of a compiled schedule, or -1.
int tiled_schedule_index(const TileShape& t);
// Why kernels::WarpTiledSchedule<t..., FMA order 3, transposing copies> would not compile (the host
// mirror of its static_asserts and its copiers'), or "" when it would.
std::string tile_shape_problem(const TileShape& t);

// The GEMV kernels' fixed shapes (mirrored from their headers; launch_gemv.cu checks they agree).
inline constexpr int kGemvMaxS = 16;          // largest short dimension
inline constexpr int kGemvThreads = 256;
inline constexpr int kGemvRowsChunk = 256;    // k per staged X chunk (gemv_rows.cuh)
inline constexpr int kGemvColsCols = 128;     // W columns per block (gemv_cols.cuh)
inline int gemv_rows_block_rows(int s) { return 8 * (s == 8 ? 2 : 4); }  // W rows per block
inline int gemv_cols_chunk(int s) { return 8 * (s >= 8 ? 4 : 8); }       // k per staged X chunk
// The columns kernel for one row of X (gemv_cols_one.cuh): 16 warps, `lanes` lanes (8, 16, 32) per W
// row of 4 * lanes columns, each thread 8 rows in flight: 16 * 32 / lanes * 8 rows per step.
inline constexpr int kGemvColsOneThreads = 512;
inline int gemv_cols_one_step(int lanes) { return 16 * (32 / lanes) * 8; }
// How a GEMV config's kernel reaches its operands on a problem (gemm_ops.cpp, gemv_form): gemv-rows
// at s = 16 stages W and X through a shared-memory pipeline (gemv_rows_staged.cuh), X contiguous
// along k or along s; the other GEMV kernels load W through registers.
enum class GemvStaging { Registers, XRowsAlongK, XRowsAlongS };
struct GemvForm {
  bool vec_w = false;  // W's rows 16-byte aligned: 16-byte loads or copies of W
  // Columns kernels (W along l): W's rows unaligned but all at one offset from a 16-byte boundary, so
  // the column tiles start at that boundary and load 16 bytes (gemv_common.cuh, GemvColsW::Shifted).
  bool shift_w = false;
  bool vec_x = false;  // 16-byte copies of X (staged only: X aligned along the dimension it is copied)
  GemvStaging staging = GemvStaging::Registers;
};
// gemv_rows_staged.cuh at s = 16: 3 stages of 32 W rows of 128 floats and 32 X groups of 72, and the
// unaligned rows' tail (32 x 32 floats of W, 16 x 32 of X).
inline constexpr int kGemvStagedSmemBytes = (3 * (32 * 128 + 32 * (4 * 16 + 8)) + 32 * 32 + 16 * 32) * 4;
// Its blocks take 32 consecutive W rows where W's rows are 16-byte aligned, else rows up to 32 apart:
// 32 blocks per group of 1024 rows (gemv_rows_staged.cuh, GemvStagedShape::block_row).
inline constexpr int kGemvStagedRowGroup = 1024;
// The compiled bound on the short dimension a product with s_count rows of X uses: 1, 2, 4, 8, 16.
int gemv_bound(int s_count);

struct GemmConfig {
  GemmFamily family = GemmFamily::Tiled;
  TileShape tile;                   // Tiled
  int gemv_s = 0;                   // GEMV: the compiled short-dimension bound (1, 2, 4, 8, 16)
  int gemv_lanes = 0;               // gemv-cols at s = 1: lanes per W row (8, 16, 32); else 0
  int splits = 1;                   // K slices per split tile (Tiled) or per block's range (GEMV)
  bool tail_only = false;           // Tiled: split only the tiles past the last whole wave
  Raster raster = Raster::Hilbert;  // Tiled: tile order
  // Tiled: copy the operand first into a 16-byte aligned scratch buffer in the layout the kernel
  // copies as-is with 16-byte loads (A as m-contiguous A^T, B as n-contiguous B): one read and one
  // write of it at memory bandwidth, then the product at the aligned rate (gemm_ops.hpp, plan_pack).
  bool pack_a = false, pack_b = false;
  // Tiled: the last N mod BN columns (1..16: a ragged tile column that would hold only those) run on
  // the GEMV kernel after the whole tile columns (gemm_ops.hpp, edge_columns).
  bool edge = false;
  bool jit = false;                 // compiled at run time (a tiled schedule not compiled ahead always is)
  bool operator==(const GemmConfig& o) const {
    return family == o.family && tile == o.tile && gemv_s == o.gemv_s && gemv_lanes == o.gemv_lanes &&
           splits == o.splits &&
           tail_only == o.tail_only && raster == o.raster && pack_a == o.pack_a && pack_b == o.pack_b &&
           edge == o.edge && jit == o.jit;
  }
};

// Text form, all fields:
//   tiled:128x256x32:w64x64:t16x8:s4:b1:k1:hilbert   (k<N>: every tile in N K slices;
//                                                      tail<N>: tiles past the last whole wave)
//   tiled:128x128x32:w64x32:tf32x3:s3:b1:k1:hilbert  (level 7: tensor cores, 3xTF32; tf32x3c<N>:
//                                                      N k8 steps summed per FP32 add, tf32x3 = c1)
//   tiled:…:hilbert:pack-b                           (B packed first; pack-a, pack-ab likewise)
//   tiled:…:hilbert:edge                             (the last N mod BN <= 16 columns on the GEMV
//                                                      kernel; after the pack field when both)
//   tiled:…:hilbert:jit                              (compiled at run time; the parser adds it to
//                                                      any schedule not compiled ahead of time)
//   gemv-rows:s16:k4    gemv-cols:s4:k8    gemv-cols:s4:k8:jit (the kernel compiled at run time)
//   gemv-cols:s1:l16:k2                              (one row of X: l<N> lanes per W row, 8, 16 or 32)
std::string to_string(const GemmConfig& c);
// Parses the text form; the split field and the raster may be left out (k1, hilbert). Throws
// Error(InvalidArgument) whose message starts with `what` and quotes the text.
GemmConfig parse_gemm_config(const std::string& text, const char* what);
// The family's short name: "tiled", "gemv-rows", "gemv-cols".
const char* family_name(GemmFamily f);

// A GEMV config's kernel shape: whether it runs gemv_cols_one.cuh, its threads per block, the l
// extent of its block (outputs along the long side), the k granularity of its K slices, and its
// partial tile (floats per block) when K is split.
inline bool gemv_one_row(const GemmConfig& c) { return c.family == GemmFamily::GemvCols && c.gemv_s == 1; }
inline int gemv_threads(const GemmConfig& c) { return gemv_one_row(c) ? kGemvColsOneThreads : kGemvThreads; }
inline int gemv_block_l(const GemmConfig& c) {
  if (c.family == GemmFamily::GemvRows) return gemv_rows_block_rows(c.gemv_s);
  return gemv_one_row(c) ? 4 * c.gemv_lanes : kGemvColsCols;
}
inline int gemv_chunk(const GemmConfig& c) {
  if (c.family == GemmFamily::GemvRows) return kGemvRowsChunk;
  return gemv_one_row(c) ? gemv_cols_one_step(c.gemv_lanes) : gemv_cols_chunk(c.gemv_s);
}
long long gemv_partial_tile_floats(const GemmConfig& c);

}  // namespace detail
}  // namespace tilegemm
