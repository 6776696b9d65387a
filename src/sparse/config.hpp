// Block-sparse (BSR) configs: plain records naming a BSR kernel family and its template parameters,
// with a stable text form used by BsrOptions::config, the bench, the tuner and the tuning database
// (the dense twin is dense/config.hpp). Pure host code without CUDA headers, so the CPU tests use it.
#pragma once
#include <string>

namespace tilegemm {
namespace detail {

enum class BsrFamily {
  Reduction,    // kernel 01: one warp per output element
  SmallM,       // kernel 02: one warp per W row, up to 16 dense columns per pass
  Tiled,        // kernel 03: output tiles on CUDA cores (BsrTiledSchedule)
  TiledTf32x3,  // kernel 04: kernel 03's tiles on tensor cores, 3xTF32 (BsrMmaSchedule)
};

// A tiled schedule. Tiled:       kernels::BsrTiledSchedule<ti, tj, a, b, kc, stages>
//                                (a x b outputs per thread)
//                   TiledTf32x3: kernels::BsrMmaSchedule<ti, tj, a, b, kc, stages>
//                                (a x b warps)
struct BsrTile {
  int ti = 0, tj = 0, kc = 0;  // output tile (W rows i x dense columns j), K-chunk
  int a = 0, b = 0;            // outputs per thread (Tiled) or warps (TiledTf32x3), along i x j
  int stages = 0;              // cp.async pipeline depth
  bool operator==(const BsrTile& o) const {
    return ti == o.ti && tj == o.tj && kc == o.kc && a == o.a && b == o.b && stages == o.stages;
  }
};

struct BsrConfig {
  BsrFamily family = BsrFamily::Tiled;
  BsrTile tile;      // the tiled families
  bool jit = false;  // the tiled families: compiled at run time (always for a schedule not compiled ahead)
  bool operator==(const BsrConfig& o) const {
    return family == o.family && (!is_tiled() || (tile == o.tile && jit == o.jit));
  }
  bool is_tiled() const { return family == BsrFamily::Tiled || family == BsrFamily::TiledTf32x3; }
};

// Text form:
//   bsr-reduction   bsr-small-m
//   bsr-tiled:32x128x16:t4x8:s4     (tile i x j x K-chunk, outputs per thread, stages)
//   bsr-tf32x3:16x256x16:w1x4:s3    (tile i x j x K-chunk, warps, stages)
//   …:jit                           (compiled at run time; the parser adds it to any schedule
//                                    not compiled ahead of time)
std::string to_string(const BsrConfig& c);
// Parses the text form. Throws Error(InvalidArgument) whose message starts with `what`, quotes the
// text, and for a schedule that cannot compile names the constraint it breaks.
BsrConfig parse_bsr_config(const std::string& text, const char* what);
// The family's name in the text form: "bsr-reduction", "bsr-small-m", "bsr-tiled", "bsr-tf32x3".
const char* family_name(BsrFamily f);

// Threads per block and dynamic shared memory of a tiled schedule (host mirrors of the schedules'
// kThreads and smem_bytes<kXwt>()).
int bsr_threads(BsrFamily f, const BsrTile& t);
int bsr_smem_bytes(BsrFamily f, const BsrTile& t, bool xwt);
// Why the schedule would not compile for the product's orientation and copy width (the host mirror
// of the schedule's static_asserts and its copiers'), or "" when it would.
std::string bsr_tile_problem(BsrFamily f, const BsrTile& t, bool xwt, bool vec);
// The schedule's own constraints, whatever the product (what a config must pass to parse).
std::string bsr_tile_problem(BsrFamily f, const BsrTile& t);

// The default tiled schedules (default_bsr_tile picks them by block shape), named as the kernel
// headers' aliases (kernels/bsr/03_tiled.cuh, 04_tiled_tf32x3.cuh).
//                                      ti   tj  kc  a  b  st
inline constexpr BsrTile kBsrTiled64K32{64, 128, 32, 4, 8, 3};  // 03: R >= 64, C % 32 == 0
inline constexpr BsrTile kBsrTiled64{64, 128, 16, 4, 8, 4};     // 03: R >= 64, other C
inline constexpr BsrTile kBsrTiled32{32, 128, 16, 4, 8, 4};     // 03: 32 <= R < 64
inline constexpr BsrTile kBsrTiled16{16, 256, 16, 4, 8, 3};     // 03: 16 <= R < 32
inline constexpr BsrTile kBsrTiled8{8, 256, 8, 2, 8, 4};        // 03: R < 16
inline constexpr BsrTile kBsrMma64K32{64, 128, 32, 2, 2, 3};    // 04: R >= 64, C % 32 == 0, rows of >= 48 columns
inline constexpr BsrTile kBsrMma64K32Short{64, 128, 32, 4, 2, 3};  // 04: the same, shorter rows
inline constexpr BsrTile kBsrMma64{64, 128, 16, 4, 2, 4};       // 04: R >= 64, other C
inline constexpr BsrTile kBsrMma32K32{32, 128, 32, 2, 2, 3};    // 04: 32 <= R < 64, C % 32 == 0
inline constexpr BsrTile kBsrMma32{32, 128, 16, 2, 2, 4};       // 04: 32 <= R < 64, other C
inline constexpr BsrTile kBsrMma16{16, 256, 16, 1, 4, 3};       // 04: R < 32

// The tiled schedules compiled ahead of time: the defaults for every product (xwt/wx, 16-byte/4-byte
// copies), and the extra candidates measured beside them (perf notes B7, B10) for xwt with 16-byte
// copies only. Each entry's kernels are instantiated in a generated file of its own
// (src/sparse/CMakeLists.txt: the position is the file's number). Any other schedule, or a candidate
// on another product, is compiled at run time (NVRTC, src/jit/).
struct CompiledBsrSchedule {
  BsrFamily family;
  BsrTile tile;
  bool every_product;  // a default; false: a candidate, compiled for xwt with 16-byte copies only
};
inline constexpr BsrFamily kBsr03 = BsrFamily::Tiled, kBsr04 = BsrFamily::TiledTf32x3;
inline constexpr CompiledBsrSchedule kBsrSchedules[] = {
    {kBsr03, kBsrTiled64K32, true},
    {kBsr03, kBsrTiled64, true},
    {kBsr03, kBsrTiled32, true},
    {kBsr03, kBsrTiled16, true},
    {kBsr03, kBsrTiled8, true},
    {kBsr04, kBsrMma64K32, true},
    {kBsr04, kBsrMma64K32Short, true},
    {kBsr04, kBsrMma64, true},
    {kBsr04, kBsrMma32K32, true},
    {kBsr04, kBsrMma32, true},
    {kBsr04, kBsrMma16, true},
    // Candidates (xwt, 16-byte copies).       ti   tj  kc  a  b  st
    {kBsr03, {16, 256, 16, 4, 8, 4}, false},  // the first R = 16 default: 2 blocks per SM
    {kBsr03, {16, 128, 16, 2, 8, 4}, false},  // 4 blocks of 4 warps per SM
    {kBsr03, {32, 256, 16, 4, 8, 4}, false},  // the first R = 32 default
    {kBsr03, {32, 256, 16, 4, 8, 3}, false},
    {kBsr03, {32, 128, 32, 4, 8, 3}, false},  // longer K-chunks: half the barriers
    {kBsr03, {64, 64, 16, 4, 8, 4}, false},   // 4 warps, 40 KB
    {kBsr03, {64, 128, 32, 8, 8, 3}, false},  // 64 accumulators: +5 % only at 8192^3 64x64 (perf note B7)
    {kBsr04, {16, 256, 16, 1, 4, 4}, false},  // the first R = 16 default: 2 blocks per SM
    {kBsr04, {16, 128, 16, 1, 2, 4}, false},  // 64 threads
    {kBsr04, {16, 256, 16, 1, 8, 4}, false},  // 8 warps of 16 x 32
    {kBsr04, {32, 256, 16, 2, 4, 3}, false},
    {kBsr04, {64, 256, 16, 4, 4, 3}, false},
};
inline constexpr int kNumBsrSchedules = sizeof(kBsrSchedules) / sizeof(kBsrSchedules[0]);

// Index in kBsrSchedules, or -1.
int bsr_schedule_index(BsrFamily f, const BsrTile& t);
// Whether kBsrSchedules holds the schedule compiled for this product.
bool bsr_compiled(BsrFamily f, const BsrTile& t, bool xwt, bool vec);
// The default schedule of a tiled family for R x C blocks whose block rows hold `row_cols` stored
// columns on average: the tile height follows R (a tile never spans two block rows; R = 8, 16, 32, 64
// waste no tile row), K-chunks of 32 where C % 32 == 0 (half the barriers; a chunk wider than the
// block would be padding). Kernel 04 with R >= 64 and C % 32 == 0 runs 4 warps of 32 x 64 (two blocks
// per SM: 1.11-1.12x the 8-warp tile on transformer-sparse's R = 64 cells, perf note B11) except on
// rows of fewer than 48 columns, where the 8-warp tile's shorter per-thread work wins (up to 1.19x).
BsrTile default_bsr_tile(BsrFamily f, int block_r, int block_c, double row_cols);

}  // namespace detail
}  // namespace tilegemm
