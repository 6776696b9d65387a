#include "dense/choose.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tilegemm {
namespace detail {

namespace {

// ---- Calibration (H100 80GB HBM3, 2026-11-23; docs/perf-notes.md #18-#24 has the runs) ---------
// Each compiled tiled schedule's calibration, found by its tile shape (not by its place in
// kTiledSchedules; calibrated() tells the tests every compiled schedule has one):
// - tflops: TFLOP/s over the whole GPU in full waves on 4096^3 without splits (level 6's kernel), by
//   op combination (row-major NN, NT, TN, TT), with 16-byte copies of the operands copied as-is;
//   divided by the SM count, the per-SM rate at the schedule's design occupancy.
// - unaligned: with an operand copied as-is unaligned, as a factor of the aligned NN rate. FFMA
//   (4-byte copies; 4096^3 NN, ld + 7, offset 1). Level 7 (shifted 16-byte rows or 4-byte copies,
//   shifted_copy.cuh; 4096^3 NN with A, B and C at ld + 7, H100 2026-11-26): 128x256 2479 / 2369 us,
//   128x128 2362 / 2327, 64x64 2628 / 2398, 64x128 2260 / 2096 (offset 1 alone: 0.95-1.05).
// - split: a launch with split tiles runs the split kernel for all its blocks; its rate against the
//   whole-tile kernel's. FFMA: 1.0 (perf note #32). Level 7, H100 2026-11-25, measured / predicted
//   without it (perf note #46): 64x128 b2 whole launches 0.985-1.01, split and tail launches
//   1.055-1.123 on 17 problems (0.925); 128x256 k16 and tail launches 1.009-1.020 (0.985); 128x128
//   and 64x64 not measured apart (0.95).
constexpr double kCalibrationSms = 132;
struct ScheduleCalibration {
  TileShape tile;
  double tflops[4];  // row-major NN, NT, TN, TT
  double unaligned;  // an operand copied as-is unaligned
  double split;      // a launch with split tiles
};
constexpr ScheduleCalibration kCalibration[] = {
    //  tile (config.hpp)                       NN     NT     TN     TT    unaligned split
    {{128, 256, 32, 64, 64, 16, 8, 4, 1},     {48.45, 43.60, 47.70, 41.80}, 0.909, 1.0},  // level 6's Large
    {{128, 128, 16, 64, 32, 8, 8, 4, 2},      {45.00, 42.18, 46.62, 44.85}, 0.984, 1.0},  // level 6's Small
    {{128, 64, 16, 64, 32, 8, 8, 3, 4},       {42.78, 41.58, 46.38, 44.34}, 0.984, 1.0},
    {{64, 128, 16, 32, 64, 8, 8, 3, 4},       {45.29, 41.91, 45.73, 42.92}, 0.975, 1.0},
    {{64, 64, 16, 32, 32, 8, 4, 3, 6},        {39.87, 37.07, 42.13, 40.48}, 0.939, 1.0},
    {{32, 32, 16, 32, 16, 4, 4, 4, 8},        {28.64, 23.65, 31.66, 28.62}, 0.980, 1.0},
    // Level 7 (3xTF32 tensor cores), 4096^3, 2026-11-25 (after the integer TF32 rounding, perf
    // note #45); every operand is copied as-is, so the op combinations differ little.
    {{128, 256, 32, 64, 64, 0, 0, 3, 1, TileMath::Tf32x3, 1},   {60.47, 59.28, 59.55, 60.07}, 0.955, 0.985},
    {{128, 128, 32, 64, 32, 0, 0, 3, 1, TileMath::Tf32x3, 4},   {57.94, 58.26, 59.11, 59.40}, 0.985, 0.95},
    {{64, 64, 32, 32, 32, 0, 0, 4, 2, TileMath::Tf32x3, 1},     {52.14, 48.37, 53.17, 49.97}, 0.91, 0.95},
    {{64, 128, 32, 32, 64, 0, 0, 3, 2, TileMath::Tf32x3, 4},    {61.45, 59.24, 61.23, 58.89}, 0.925, 0.925},
};

// An SM holding r of a schedule's `blocks` design blocks runs at (r / blocks)^kOccupancyExponent of
// its full rate: fewer resident blocks each run faster (fit by the choices it makes on the measured
// single-wave shapes, perf note #19; lone blocks of 4-warp tiles fit worse, ~0.47).
constexpr double kOccupancyExponent = 0.08;
// ... and below 8 resident warps an SM cannot hide its latencies: (warps / 8)^e of that.
// - FFMA e = 0.5: a lone 2-warp 32x32 block ~0.4 (16x4096x4096 in 128 such blocks took 85 us where
//   the GEMV kernel took 45).
// - Level 7's 4-warp blocks e = 0.125, in launches of whole tiles that are one partial wave. The
//   FFMA allowance over-predicted them (lone 64x128 blocks on 1000^3, 1024x768x3072, 6272x512x4608
//   took 0.75-0.89 of its time); without one they ran ~10 % over the model (1000^3 64x128 46.5 us
//   against 42.6; 1024x512x2048 64x64 k1 54.7 against 49.4, where Auto ran 7.6 % behind 64x128 k4
//   and 128x128 k4): H100 2026-11-26, perf note #54. Not in later waves, whose blocks start beside
//   the previous wave's last ones (2501x3499x1777 TT, 4.2 waves of 64x128, ran 7 % slower when the
//   allowance there moved it to 128x256 tiles).
// - Launches with split tiles: no allowance. ScheduleCalibration::split was fit on measured split launches,
//   lone blocks included (64x64x65536 in 128 slices of lone 64x64 blocks ran 10-19 % faster than in
//   256).
constexpr double kWarpsToHideLatency = 8.0;
constexpr double kLatencyExponentFfma = 0.5, kLatencyExponentMma = 0.125;
// Fixed time of one thread block's tile: pipeline fill (a DRAM round trip per stage in flight) and
// the epilogue.
constexpr double kTileFixedUs = 1.5;
// A split launch: the counters (zeroed by the call's prologue kernel, which the launch overlaps since
// 2026-11-25; the replay data does not tell this constant's value) and the tail where the last slice
// of each tile sums the partials (fit to 1000^3 k2 / k4), plus each level of the split sum.
constexpr double kSplitFixedUs = 3.0;
constexpr double kFixupLevelUs = 2.0;
// Partial tiles are written and read back through L2 at about this rate overall; the block that sums
// a tile's slices reads them alone, at about kSumGbsPerSm (a single SM's L2 read rate with its loads
// in flight): 8 slices of a 128x256 tile (1 MB) cost ~7 us, which made 128x256 k8 18 % slower than
// 64x128 k4 on 1024x512x2048. Tensor-core tiles load several slices per L2 round trip (their blocks'
// kSumSlices, kernels/common/split_k.cuh): that many times the rate.
constexpr double kPartialGbs = 6000;
constexpr double kSumGbsPerSm = 150;
// Launch and first-wave start.
constexpr double kLaunchUs = 3.0;
// Achieved fraction of the DRAM bandwidth by streaming kernels (decode GEMV: 235 MB in 82.5 us is
// 0.85 of 3352 GB/s, cuBLAS and ours alike), and L2 bandwidth over DRAM's.
constexpr double kDramEfficiency = 0.87;
constexpr double kL2OverDram = 2.0;
// A split config (split-K, stream-K) is taken only when predicted at least this much faster than
// the best unsplit one: a tie should go to the simpler launch. 3 % until 2026-11-25; 1 % is closer
// to the measured best on the exhaustively tuned shapes (tests/cpu/data, perf note #32).
constexpr double kSplitMargin = 0.01;
// GEMV through registers (gemv_rows.cuh up to s = 8, gemv_cols.cuh): bandwidth one thread block
// sustains (~22 GB/s: 128 blocks stream at 2.8 TB/s), two blocks resident per SM (~128 registers x
// 256 threads), each block wave's start-up, and the time of one staged X chunk per block with s rows
// of X (rows kernel: 256 k, 1.0 + 0.12 s us; columns kernel: 64 or 32 k, ~2 us at s = 16 on
// 16x14336x4096).
constexpr double kGemvBlockGbs = 18;
constexpr double kGemvBlocksPerSm = 2.0;
constexpr double kGemvWaveUs = 4.0;
constexpr double kGemvFixedUs = 5.0;
double gemv_chunk_us(bool rows, int s) { return rows ? 1.0 + 0.12 * s : 0.8 + 0.075 * s; }
// The one-row columns kernel (gemv_cols_one.cuh: 512 threads, 8 W loads in flight per thread and 8
// more issued, one block per SM). Its bytes stream at the DRAM ceiling or at what the blocks pull
// (~60 GB/s each: 32 blocks stream 67 or 235 MB at 1.83 TB/s), joined smoothly (cube norm: 64 blocks
// reach 2.6 TB/s, not min(3.05, 3.84)); each block wave after the first, and a split's sum of its
// tiny partial tiles (32-128 floats), cost what the configs of the one-row sweep measured: 1x{1024,
// 2048, 4096, 14336}x4096, 1x4096x{1024, 14336}, lanes 8/16/32 x 1-8 slices, fit within 5 % (H100,
// 2026-11-25, perf note #51).
constexpr double kGemvOneBlockGbs = 60;
constexpr double kGemvOneDramEfficiency = 0.91;
constexpr double kGemvOneFixedUs = 4.0;
constexpr double kGemvOneWaveUs = 2.7;
constexpr double kGemvOneSplitUs = 2.5;
// gemv-rows:s16 with W and X staged in shared memory (gemv_rows_staged.cuh, two blocks per SM): a
// 128-k stage of a block's 32 W rows takes ~0.86 us while the block has its SM alone and ~1.38 us
// while two blocks share it (the SM, not DRAM, bounds it: ~2.5 TB/s on 14336x16x4096); each block
// wave after the first +2 us (its pipeline fills again), 4 us fixed. Fit to Auto's sweep of 1-6
// slices on 14336, 4096, 2048 x 16 x 4096 NN and 16 x 14336, 4096, 2048 x 4096 NT (H100,
// 2026-11-26, perf note #61): the best slice count of each within 2 % of the best measured; k3 and
// k6 (a sliver of a last wave) predicted up to 15 % slow, NT runs up to 6 % faster than NN.
constexpr double kGemvStagedLoneStageUs = 0.86;
constexpr double kGemvStagedSharedStageUs = 1.38;
constexpr double kGemvStagedWaveUs = 2.0;
constexpr double kGemvStagedFixedUs = 4.0;
constexpr double kGemvStagedStageK = 128;
// W rows not 16-byte aligned (stages from a 128-byte boundary, rows up to 32 apart) cost each slice
// about 0.6 of a stage (its first and last stages copy across the slice's ends, and its last k come
// apart): 14336x16x4096 at ldw + 7 99-100 us against 97-98 aligned in one slice, 108 against 100 in
// four; 4-byte copies of X make each stage slower: X at ldx 23 as well 105-106 in one slice, 113 in
// four; 2048x16x4096 k4 19.5 / 20.2 / 21.5 (H100, 2026-11-26, perf note #59). Where X would be copied
// 4 bytes at a time the chooser also weighs packing it: the product overlaps the packing where its
// grid fills every block slot (product_overlaps_packing), else it starts after it.
constexpr double kGemvStagedShiftedSliceStages = 0.6;
constexpr double kGemvPackGapUs = 2.0;
constexpr double kGemvStagedScalarX = 1.05;
// The last slice of a GEMV tile sums every slice's s x 128 partial outputs in order: ~0.02 us per
// row of X per slice (16x2048x4096 columns kernel, s = 16: 32.7 us at 16 slices, 41.9 at 32; H100,
// 2026-11-25, perf note #34).
constexpr double kGemvSliceRowUs = 0.02;
// Packing operands (config pack_a / pack_b): their bytes read and written once at this fraction of the
// DRAM bandwidth (B of 4096^3, 64 MB: 43 us, pack-b minus no packing on aligned NN; H100,
// 2026-11-25), plus the prologue launch. One launch for both operands since 2026-11-25, overlapped
// by the product's: A and B of 1000^3 ld + 7 offset 1 (8 MB) cost 5.4 us over the aligned product
// (the bytes alone: 5.3 us), where two launches cost 10 us.
constexpr double kPackDramEfficiency = 0.90;
constexpr double kPackLaunchUs = 1.0;
// -------------------------------------------------------------------------------------------------

int op_index(bool trans_a, bool trans_b) { return (trans_a ? 2 : 0) + (trans_b ? 1 : 0); }

// The calibration that stands in for `t`: its own, else that of the same math and block tile, else
// that of the same math nearest in tile area (a run-time compiled variant has no calibration of its
// own; the tuner measures it).
}  // namespace

bool calibrated(const TileShape& t) {
  for (const ScheduleCalibration& c : kCalibration)
    if (c.tile == t) return true;
  return false;
}

namespace {

const ScheduleCalibration& calibration_for(const TileShape& t) {
  for (const ScheduleCalibration& c : kCalibration)
    if (c.tile == t) return c;
  const ScheduleCalibration* best = &kCalibration[0];
  double best_distance = 1e300;
  for (const ScheduleCalibration& c : kCalibration) {
    if (c.tile.math != t.math) continue;  // FFMA and tensor-core rates differ
    const double distance = (c.tile.bm == t.bm && c.tile.bn == t.bn)
                                ? -1.0
                                : std::fabs(std::log(double(c.tile.bm) * c.tile.bn / (double(t.bm) * t.bn)));
    if (distance < best_distance) best = &c, best_distance = distance;
  }
  return *best;
}

constexpr int kSplitCounts[] = {1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 96, 128, 192, 256, 384, 512};

double ceil_div(double a, double b) { return std::ceil(a / b); }

std::string fmt(const char* format, double a, double b = 0, double c = 0, double d = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, a, b, c, d);
  return buf;
}

// Minimal DRAM bytes: A and B read once, C written (and read unless beta == 0).
double min_bytes(const GemmProblem& p) {
  const double m = static_cast<double>(p.m), n = static_cast<double>(p.n), k = static_cast<double>(p.k);
  return 4.0 * (m * k + k * n + m * n * (p.beta_zero ? 1.0 : 2.0));
}

// Copying the packed operands: each read from its source and written to the scratch buffer (four
// times for gemv-rows:s16's shifted copies of X, plan_pack).
double pack_us(const GemmProblem& p, const GemmConfig& c, const DeviceFacts& d) {
  const double k = static_cast<double>(p.k);
  const double bytes = 4.0 * k * ((c.pack_a ? static_cast<double>(p.m) : 0.0) + (c.pack_b ? static_cast<double>(p.n) : 0.0));
  if (!c.pack_a && !c.pack_b) return 0.0;
  const double copies = plan_pack(p, c).x_copies;
  return (1.0 + copies) * bytes / (kPackDramEfficiency * d.mem_bandwidth_gbs * 1e3) + kPackLaunchUs;  // one prologue launch
}

ScoredConfig score_tiled(const GemmProblem& original, const GemmConfig& c, const DeviceFacts& d) {
  const TileShape& t = c.tile;
  const GemmProblem p = tiled_part(original, c);  // what the tiled kernel computes
  const double pack = pack_us(original, c, d);
  const double edge =
      edge_columns(original, c) > 0 ? best_gemv_config(edge_part(packed_problem(original, c), c), d).predicted_us : 0.0;
  const SplitPlan s = plan_split(p, c, d);
  const ScheduleCalibration& cal = calibration_for(t);
  // Operands copied as-is with 4-byte copies: level 6 transposes an operand contiguous along k (its
  // copy width never matters), level 7 copies both as they are.
  const bool as_is_aligned = t.tensor_cores() ? p.vec_a && p.vec_b : (!p.trans_a || p.vec_a) && (p.trans_b || p.vec_b);
  // The split kernel runs at level 6's rate on the same FFMA schedule (perf note #32), not on
  // level 7's (ScheduleCalibration::split).
  const double rate_sm = cal.tflops[op_index(p.trans_a, p.trans_b)] * 1e12 / kCalibrationSms *
                         (as_is_aligned ? 1.0 : cal.unaligned) * (s.units > s.dp_tiles ? cal.split : 1.0);
  const double slots = static_cast<double>(d.sm_count) * t.blocks;
  // `units` blocks of `k_tiles` K-tiles each: whole waves at the design occupancy, then the partial
  // last wave, whose SMs hold fewer blocks that each run faster.
  auto waves_us = [&](double units, double k_tiles) {
    const double full = std::floor(units / slots), rest = units - full * slots;
    // Tensor-core blocks pay the latency allowance only in a launch that is one partial wave of whole
    // tiles: a later wave's blocks start beside the previous wave's last ones, not alone.
    const double mma_exponent = s.units == s.dp_tiles && full == 0 ? kLatencyExponentMma : 0.0;
    auto wave = [&](double resident) {
      const double warps = resident * t.threads() / 32.0;
      const double exponent = t.tensor_cores() ? mma_exponent : kLatencyExponentFfma;
      const double latency = std::pow(std::min(1.0, warps / kWarpsToHideLatency), exponent);
      const double block_rate = rate_sm * std::pow(resident / t.blocks, kOccupancyExponent) * latency / resident;
      return kTileFixedUs + k_tiles * 2.0 * t.bm * t.bn * t.bk / block_rate * 1e6;
    };
    return full * wave(t.blocks) + (rest > 0 ? wave(std::min<double>(t.blocks, ceil_div(rest, d.sm_count))) : 0.0);
  };
  double compute = waves_us(static_cast<double>(s.dp_tiles), ceil_div(static_cast<double>(p.k), t.bk));
  const double split_units = static_cast<double>(s.units - s.dp_tiles);
  double fixup = 0;
  if (split_units > 0) {
    compute += waves_us(split_units, s.slice_k);
    const int levels = s.group < s.splits ? 2 : 1;
    // The blocks' kSumSlices (split_tiled.cuh): tensor-core blocks load as many slices at a time as
    // keep 64 loads in flight per thread (values in chunks of at most 64), FFMA blocks one.
    const double per_thread = static_cast<double>(t.bm) * t.bn / t.threads();
    const double chunk = std::min(64.0, per_thread), slices_in_flight = t.tensor_cores() ? std::floor(64.0 / chunk) : 1.0;
    const double tile_bytes = 4.0 * t.bm * t.bn;
    const double summed = (s.group + (levels > 1 ? ceil_div(s.splits, s.group) : 0.0)) * tile_bytes;
    fixup = kSplitFixedUs + levels * kFixupLevelUs + 2.0 * static_cast<double>(s.partial_bytes) / (kPartialGbs * 1e3) +
            summed / (kSumGbsPerSm * slices_in_flight * 1e3);
  }
  const double bw = kDramEfficiency * d.mem_bandwidth_gbs * 1e3;  // bytes per us
  const double dram = min_bytes(p) / bw;
  const double tiles_m = ceil_div(static_cast<double>(p.m), t.bm), tiles_n = ceil_div(static_cast<double>(p.n), t.bn);
  const double l2 = 4.0 * (static_cast<double>(p.m) * p.k * tiles_n + static_cast<double>(p.n) * p.k * tiles_m) /
                    (kL2OverDram * d.mem_bandwidth_gbs * 1e3);
  ScoredConfig sc;
  sc.config = c;
  sc.predicted_us = std::max({compute, dram, l2}) + fixup + kLaunchUs + pack + edge;
  sc.why = fmt("%.0f blocks = %.2f waves of %.0f slots", static_cast<double>(s.units), s.units / slots, slots) +
           (s.splits > 1 ? fmt(", K in %.0f slices of %.0f K-tiles", s.splits, s.slice_k) : std::string()) +
           fmt("; compute %.1f us, DRAM %.1f us, L2 %.1f us", compute, dram, l2) +
           (fixup > 0 ? fmt(", split sum %.1f us", fixup) : std::string()) +
           (pack > 0 ? std::string(", packing ") + (c.pack_a ? (c.pack_b ? "A and B" : "A") : "B") + fmt(" %.1f us", pack)
                     : std::string()) +
           (edge > 0 ? fmt(", the last %.0f columns on the GEMV kernel %.1f us", static_cast<double>(edge_columns(original, c)), edge)
                     : std::string());
  return sc;
}

ScoredConfig score_gemv(const GemmProblem& p, const GemmConfig& c, const DeviceFacts& d) {
  const SplitPlan s = plan_split(p, c, d);
  const GemvView v = gemv_view(packed_problem(p, c));
  const double w_bytes = 4.0 * static_cast<double>(v.l_count) * static_cast<double>(p.k);
  const double x_bytes = 4.0 * static_cast<double>(v.s_count) * static_cast<double>(p.k);
  const double c_bytes = 4.0 * static_cast<double>(v.l_count) * v.s_count * (p.beta_zero ? 1.0 : 2.0);
  ScoredConfig sc;
  sc.config = c;
  const std::string blocks_why = fmt("%.0f blocks (%.0f along the long side x %.0f K slices)",
                                     static_cast<double>(s.units), static_cast<double>(s.tiles), s.splits);
  if (gemv_one_row(c)) {  // no staged X: the DRAM stream or the blocks' own pull, and the waves
    const double waves = ceil_div(static_cast<double>(s.units), d.sm_count);
    const double active = std::min(static_cast<double>(s.units), static_cast<double>(d.sm_count));
    const double ceiling = kGemvOneDramEfficiency * d.mem_bandwidth_gbs, pull = kGemvOneBlockGbs * active;
    const double bw = 1e3 / std::cbrt(1.0 / (ceiling * ceiling * ceiling) + 1.0 / (pull * pull * pull));
    const double dram = (w_bytes + x_bytes + c_bytes) / bw;
    const double split = s.splits > 1 ? kGemvOneSplitUs + (s.group < s.splits ? kFixupLevelUs : 0.0) : 0.0;
    sc.predicted_us = dram + (waves - 1) * kGemvOneWaveUs + kGemvOneFixedUs + split;
    sc.why = blocks_why + fmt(" = %.0f waves; DRAM %.1f us", waves, dram);
    return sc;
  }
  const double fixup = s.splits > 1 ? kSplitFixedUs + (s.group < s.splits ? 2 : 1) * kFixupLevelUs +
                                          kGemvSliceRowUs * c.gemv_s * static_cast<double>(s.splits)
                                    : 0.0;
  const GemvForm form = gemv_form(v, c);
  if (form.staging != GemvStaging::Registers) {  // the DRAM stream, or the SMs' stages
    const double dram = (w_bytes + x_bytes + c_bytes) / (kDramEfficiency * d.mem_bandwidth_gbs * 1e3);
    const double waves = ceil_div(static_cast<double>(s.units), 2.0 * d.sm_count);
    const double stage_us = (s.units <= d.sm_count ? kGemvStagedLoneStageUs : kGemvStagedSharedStageUs) *
                            (form.vec_x ? 1.0 : kGemvStagedScalarX);
    const double slice_stages = ceil_div(static_cast<double>(s.slice_k), kGemvStagedStageK) +
                                (form.vec_w ? 0.0 : kGemvStagedShiftedSliceStages);
    const double stages = waves * slice_stages * stage_us;
    // Packing X: the prologue's copy, and its launch where the product waits for it.
    const double pack = !(c.pack_a || c.pack_b)                     ? 0.0
                        : product_overlaps_packing(p, c, s, d) ? pack_us(p, c, d)
                                                                : pack_us(p, c, d) + kGemvPackGapUs;
    sc.predicted_us = std::max(dram, stages) + (waves - 1) * kGemvStagedWaveUs + kGemvStagedFixedUs + fixup + pack;
    sc.why = blocks_why + fmt(" = %.1f waves of two per SM; W and X staged in shared memory: ", waves) +
             fmt("DRAM %.1f us, 128-k stages %.1f us", dram, stages) +
             (form.vec_w ? "" : ", W's rows unaligned") + (form.vec_x ? "" : ", X copied 4 bytes at a time") +
             (pack > 0 ? fmt(", packing X %.1f us", pack) : std::string());
    return sc;
  }
  // Bytes per us: the DRAM ceiling, or what the launched blocks pull if they are too few.
  const double bw = std::min(kDramEfficiency * d.mem_bandwidth_gbs, kGemvBlockGbs * static_cast<double>(s.units)) * 1e3;
  const double dram = (w_bytes + x_bytes + c_bytes) / bw;
  const double l2 = x_bytes * static_cast<double>(s.tiles) / (kL2OverDram * d.mem_bandwidth_gbs * 1e3);
  const bool rows = c.family == GemmFamily::GemvRows;
  const double waves = ceil_div(static_cast<double>(s.units), kGemvBlocksPerSm * d.sm_count);
  const double chunks = ceil_div(static_cast<double>(s.slice_k), gemv_chunk(c));
  const double blocks = waves * chunks * gemv_chunk_us(rows, c.gemv_s);
  sc.predicted_us = std::max({dram, l2, blocks}) + (waves - 1) * kGemvWaveUs + kGemvFixedUs + fixup;
  sc.why = blocks_why + fmt(" = %.1f waves; ", waves) + fmt("DRAM %.1f us, X from L2 %.1f us, X chunks %.1f us", dram, l2, blocks);
  return sc;
}

}  // namespace

ScoredConfig score_config(const GemmProblem& p, const GemmConfig& c, const DeviceFacts& d) {
  return c.family == GemmFamily::Tiled ? score_tiled(p, c, d) : score_gemv(p, c, d);
}

// The GEMV family's candidates for a problem with min(M, N) <= kGemvMaxS: its kernel (rows or
// columns) at the compiled bound, each split count up to one chunk per slice; gemv-rows:s16 also
// with X packed where it would be copied 4 bytes at a time.
std::vector<GemmConfig> gemv_candidates(const GemmProblem& p) {
  std::vector<GemmConfig> out;
  const GemvView v = gemv_view(p);
  GemmConfig c;
  c.family = v.rows ? GemmFamily::GemvRows : GemmFamily::GemvCols;
  c.gemv_s = gemv_bound(v.s_count);
  const std::vector<int> lanes = gemv_one_row(c) ? std::vector<int>{8, 16, 32} : std::vector<int>{0};
  for (int l : lanes) {
    c.gemv_lanes = l;
    const long long chunk = gemv_chunk(c);
    const long long chunks = (p.k + chunk - 1) / chunk;
    const GemvForm form = gemv_form(v, c);
    const bool pack_x = form.staging != GemvStaging::Registers && !form.vec_x;
    for (int splits : kSplitCounts) {
      if (splits > chunks && splits > 1) break;
      c.splits = splits;
      out.push_back(c);
      if (pack_x) {
        GemmConfig packed = c;
        packed.pack_a = v.small_m;
        packed.pack_b = !v.small_m;
        out.push_back(packed);
      }
    }
  }
  return out;
}

ScoredConfig best_gemv_config(const GemmProblem& p, const DeviceFacts& d) {
  ScoredConfig best;
  best.predicted_us = -1;
  for (const GemmConfig& c : gemv_candidates(p)) {
    if (!can_implement(p, c).empty()) continue;
    const ScoredConfig s = score_gemv(p, c, d);
    if (best.predicted_us < 0 || s.predicted_us < best.predicted_us) best = s;
  }
  return best;
}

std::vector<GemmConfig> tiled_candidates(const GemmProblem& p, const DeviceFacts& d, bool tensor_cores) {
  std::vector<GemmConfig> out;
  // Packing is worth trying where the kernel would copy an operand slower than as-is with 16-byte
  // copies: an as-is operand (A stored transposed, B not) that is not 16-byte aligned, and a B stored
  // transposed (its transposing copies cost 5-15 % of the NN rate on the big tiles; A's cost ~nothing).
  struct Packing {
    bool a, b;
  };
  std::vector<Packing> packings{{false, false}};
  const bool try_a = p.trans_a && !p.vec_a, try_b = p.trans_b || !p.vec_b;
  if (try_a) packings.push_back({true, false});
  if (try_b) packings.push_back({false, true});
  if (try_a && try_b) packings.push_back({true, true});
  // Level 7 copies both operands as-is in either orientation (16 bytes at a time where aligned), so
  // packing can only pay for an unaligned operand.
  std::vector<Packing> mma_packings{{false, false}};
  if (!p.vec_a) mma_packings.push_back({true, false});
  if (!p.vec_b) mma_packings.push_back({false, true});
  if (!p.vec_a && !p.vec_b) mma_packings.push_back({true, true});
  // Edge columns on the GEMV kernel where the last tile column would hold at most a quarter of its
  // width: 4097 columns in 128 x 256 tiles leave one column in a 17th tile column (1/17 of the work).
  auto edge_worth_trying = [&](const TileShape& t) {
    const long long edge = p.n % t.bn;
    return edge >= 1 && edge <= kGemvMaxS && 4 * edge <= t.bn && p.n > t.bn;
  };
  for (const TileShape& t : kTiledSchedules) {
    if (t.tensor_cores() != tensor_cores) continue;
    const long long k_tiles = (p.k + t.bk - 1) / t.bk;
    const long long tile_rows = (p.m + t.bm - 1) / t.bm, tiles = tile_rows * ((p.n + t.bn - 1) / t.bn);
    for (int splits : kSplitCounts) {
      if (splits > k_tiles) break;
      for (const Packing& pk : t.tensor_cores() ? mma_packings : packings)
        for (bool edge : {false, true}) {
          if (edge && !edge_worth_trying(t)) continue;
          GemmConfig c;
          c.tile = t;
          c.splits = splits;
          c.pack_a = pk.a;
          c.pack_b = pk.b;
          c.edge = edge;
          out.push_back(c);
          // Tail-only splitting where the tiled launch (less the ragged column the edge drops) ends
          // in a partial wave after at least one whole one.
          const long long launched = tiles - (edge ? tile_rows : 0), slots = tiled_slots(t, d);
          if (splits > 1 && launched >= slots && launched % slots != 0) {
            c.tail_only = true;
            out.push_back(c);
          }
        }
    }
  }
  return out;
}

double rank_cost(const GemmProblem& p, const ScoredConfig& s, const DeviceFacts& d) {
  const bool split = s.config.family == GemmFamily::Tiled && plan_split(tiled_part(p, s.config), s.config, d).splits > 1;
  return s.predicted_us * (split ? 1.0 + kSplitMargin : 1.0);
}

std::string config_class(const GemmProblem& p, const GemmConfig& c, const DeviceFacts& d) {
  if (c.family != GemmFamily::Tiled) return "gemv";
  const SplitPlan s = plan_split(tiled_part(p, c), c, d);
  if (s.splits > 1) return s.dp_tiles > 0 ? "stream-k" : "split-k";
  return c.tile.bm * c.tile.bn >= 128 * 128 ? "big-tile" : "small-tile";
}

}  // namespace detail
}  // namespace tilegemm
