// BSR configs without a GPU: the text form round-trips, the schedules compiled ahead of time pass the
// host mirror of their constraints on the products they are compiled for, bad text names what is
// wrong, dispatch's default schedule per block shape, the tuner's candidates for BSR products, the
// database key, and
// run-time compilation of BSR schedules nobody compiled ahead of time (NVRTC needs no GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "jit/jit.hpp"
#include "ops/choose.hpp"
#include "ops/families/bsr_common/bsr_family.hpp"
#include "ops/keys.hpp"
#include "ops/registry.hpp"
#include "sparse/config.hpp"
#include "sparse/launch.hpp"
#include "tilegemm/error.hpp"
#include "tune/search.hpp"

namespace tilegemm {
namespace detail {
namespace {

BsrConfig config_at(int i) {
  BsrConfig c;
  c.family = kBsrSchedules[i].family;
  c.tile = kBsrSchedules[i].tile;
  return c;
}

TEST(BsrConfigText, CompiledSchedulesRoundTripAndPassTheirConstraints) {
  for (int i = 0; i < kNumBsrSchedules; ++i) {
    const BsrConfig c = config_at(i);
    const std::string text = to_string(c);
    SCOPED_TRACE(text);
    EXPECT_EQ(parse_bsr_config(text, "config"), c);
    EXPECT_FALSE(parse_bsr_config(text, "config").jit);
    EXPECT_EQ(bsr_schedule_index(c.family, c.tile), i);
    for (bool xwt : {true, false})
      for (bool vec : {true, false})
        if (bsr_compiled(c.family, c.tile, xwt, vec)) EXPECT_EQ(bsr_tile_problem(c.family, c.tile, xwt, vec), "");
    EXPECT_EQ(bsr_compiled(c.family, c.tile, false, false), kBsrSchedules[i].every_product);
    EXPECT_TRUE(bsr_compiled(c.family, c.tile, true, true));
    // A ':jit' twin parses as the same schedule compiled at run time.
    const BsrConfig twin = parse_bsr_config(text + ":jit", "config");
    EXPECT_TRUE(twin.jit);
    EXPECT_EQ(twin.tile, c.tile);
    EXPECT_EQ(to_string(twin), text + ":jit");
  }
  EXPECT_EQ(to_string(config_at(3)), "bsr-tiled:16x256x16:t4x8:s3");
  EXPECT_EQ(to_string(config_at(10)), "bsr-tf32x3:16x256x16:w1x4:s3");
  EXPECT_EQ(to_string(config_at(5)), "bsr-tf32x3:64x128x32:w2x2:s3");
  for (const char* simple : {"bsr-small-m", "bsr-reduction"}) EXPECT_EQ(to_string(parse_bsr_config(simple, "c")), simple);
  // Not compiled ahead of time: marked; the text is case-insensitive.
  const BsrConfig runtime = parse_bsr_config("BSR-Tiled:16x64x16:T2x4:S3", "config");
  EXPECT_TRUE(runtime.jit);
  EXPECT_EQ(to_string(runtime), "bsr-tiled:16x64x16:t2x4:s3:jit");
}

TEST(BsrConfigText, BadTextNamesWhatIsWrong) {
  const std::pair<const char*, const char*> bad[] = {
      {"tiled:128x256x32:w64x64:t16x8:s4:b1", "unknown family 'tiled'"},
      {"bsr-small-m:s16", "bsr-small-m takes no fields"},
      {"bsr-tiled:16x256x16:t4x8", "tile, thread and stage fields"},
      {"bsr-tiled:16x256:t4x8:s3", "tile field '16x256' is not TIxTJxKC"},
      {"bsr-tiled:16x256x16:w1x4:s3", "thread field 'w1x4' is not tAxB"},
      {"bsr-tf32x3:16x256x16:t1x4:s3", "warp field 't1x4' is not wAxB"},
      {"bsr-tiled:16x256x16:t4x8:s3:fast", "unexpected field 'fast'"},
      {"bsr-tiled:16x256x16:t4x8:s1", "at least 2 pipeline stages"},
      {"bsr-tiled:16x256x16:t3x8:s3", "thread tile 3x8 must divide the tile"},
      {"bsr-tiled:16x256x16:t8x8:s3", "whole warps"},
      {"bsr-tiled:16x256x18:t4x8:s3", "KC must be multiples of 4"},
      {"bsr-tf32x3:16x256x16:w2x4:s3", "whole 16-row MMA tiles"},
      {"bsr-tf32x3:16x256x12:w1x4:s3", "KC must be a multiple of 8"},
      {"bsr-tf32x3:64x256x16:w4x8:s3", "1024 threads: at most 512"},
      {"bsr-tiled:64x256x64:t4x8:s8", "bytes of shared memory: at most 227 KB"},
  };
  for (const auto& [text, why] : bad) {
    try {
      parse_bsr_config(text, "options.config");
      ADD_FAILURE() << text << ": no error";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_EQ(what.rfind(std::string("options.config: '") + text + "' is not a BSR config (", 0), 0u) << what;
      EXPECT_NE(what.find(why), std::string::npos) << text << ": " << what;
    }
  }
}

TEST(BsrDefaults, TileHeightFollowsTheBlockHeight) {
  struct Case {
    int r, c;
    double row_cols;
    BsrTile tiled, tf32x3;
  };
  for (const Case& k :
       {Case{8, 8, 100, kBsrTiled8, kBsrMma16}, Case{16, 16, 100, kBsrTiled16, kBsrMma16},
        Case{16, 32, 100, kBsrTiled16, kBsrMma16}, Case{32, 32, 100, kBsrTiled32, kBsrMma32K32},
        Case{32, 16, 100, kBsrTiled32, kBsrMma32}, Case{64, 64, 100, kBsrTiled64K32, kBsrMma64K32},
        Case{64, 64, 40, kBsrTiled64K32, kBsrMma64K32Short}, Case{64, 48, 100, kBsrTiled64, kBsrMma64},
        Case{128, 128, 48, kBsrTiled64K32, kBsrMma64K32}}) {
    SCOPED_TRACE(std::to_string(k.r) + "x" + std::to_string(k.c) + " rows of " + std::to_string(k.row_cols));
    EXPECT_TRUE(default_bsr_tile(BsrFamily::Tiled, k.r, k.c, k.row_cols) == k.tiled);
    EXPECT_TRUE(default_bsr_tile(BsrFamily::TiledTf32x3, k.r, k.c, k.row_cols) == k.tf32x3);
    // Every default is compiled ahead of time for every product.
    for (bool xwt : {true, false})
      for (bool vec : {true, false}) {
        EXPECT_TRUE(bsr_compiled(BsrFamily::Tiled, k.tiled, xwt, vec));
        EXPECT_TRUE(bsr_compiled(BsrFamily::TiledTf32x3, k.tf32x3, xwt, vec));
      }
  }
}

// A host-only BSR problem: W `rows` x k with R x R blocks, `per_row` blocks in every block row,
// `batch` dense columns j; 16-byte copies of X, W and Y or none.
ops::Problem host_problem(bool xwt, int rows, int k, int r, int per_row, int batch, bool vec) {
  ops::Problem p;
  p.kind = xwt ? ops::OpKind::BsrXwt : ops::OpKind::BsrWx;
  p.m = xwt ? batch : rows;
  p.n = xwt ? rows : batch;
  p.k = k;
  p.align_a = p.align_b = p.align_c = p.pitch_align_a = p.pitch_align_b = vec ? 16 : 4;
  p.bsr.block_r = p.bsr.block_c = r;
  p.bsr.block_rows = rows / r;
  p.bsr.nnzb = static_cast<int64_t>(per_row) * (rows / r);
  p.bsr.longest_row = per_row;
  return p;
}

const ops::BsrFamilyBase& bsr_family(BsrFamily f) {
  return static_cast<const ops::BsrFamilyBase&>(*ops::registry().find(family_name(f)));
}

bool needs_jit(const ops::Problem& p, const ops::Config& c) {
  return !c.family()->run_time_kernels(p, c, DeviceFacts{}).empty();
}

TEST(BsrSearchSpace, AutoFirstEveryConfigRunsAndRunTimeOnesOnlyWhenAsked) {
  for (bool xwt : {true, false})
    for (bool vec : {true, false})
      for (int r : {16, 32, 64})
        for (int batch : {8, 4096}) {
          SCOPED_TRACE(std::string(xwt ? "xwt" : "wx") + (vec ? " vec" : " scalar") + " R " + std::to_string(r) +
                       " batch " + std::to_string(batch));
          const ops::Problem p = host_problem(xwt, 4096, 4096, r, 4096 / r / 10, batch, vec);
          for (bool run_time : {false, true}) {
            size_t compiled_count = 0;
            const std::vector<ops::Ranked> space = tuning_candidates(p, DeviceFacts{}, run_time, &compiled_count);
            ASSERT_FALSE(space.empty());
            EXPECT_EQ(space[0].config, ops::rank(p, DeviceFacts{}).best());
            int jit = 0;
            bool small_m = false, reduction = false;
            for (const ops::Ranked& entry : space) {
              const ops::Config& c = entry.config;
              const BsrConfig& b = ops::BsrFamilyBase::record(c);
              EXPECT_EQ(c.family()->can_implement(p, c), "") << c.text();
              EXPECT_EQ(std::count_if(space.begin(), space.end(), [&](const ops::Ranked& o) { return o.config == c; }), 1)
                  << c.text();
              if (b.is_tiled()) EXPECT_LE(b.tile.ti, std::max(r, 16)) << c.text();
              jit += needs_jit(p, c) ? 1 : 0;
              small_m = small_m || b.family == BsrFamily::SmallM;
              reduction = reduction || b.family == BsrFamily::Reduction;
            }
            EXPECT_EQ(small_m, batch <= 128);
            EXPECT_EQ(reduction, batch <= 16);
            if (!run_time) EXPECT_EQ(jit, 0);
            else EXPECT_GE(jit, 3);
            // Both tiled families' defaults are in the space, with an estimate.
            for (BsrFamily f : {BsrFamily::Tiled, BsrFamily::TiledTf32x3}) {
              const ops::Config d = bsr_family(f).default_config(p);
              const auto it = std::find_if(space.begin(), space.end(), [&](const ops::Ranked& o) { return o.config == d; });
              ASSERT_NE(it, space.end()) << d.text();
              EXPECT_GT(it->estimate.us, 0) << d.text();
            }
          }
        }
}

TEST(BsrSearchSpace, NeighboursAreOneMoveAwayAndRunnable) {
  const ops::Problem p = host_problem(false, 4096, 4096, 32, 12, 4096, true);
  const ops::Config base = ops::registry().parse("bsr-tf32x3:32x128x32:w2x2:s3", "config", p.kind);
  const std::vector<ops::Config> near = base.family()->neighbours(p, base);
  ASSERT_GE(near.size(), 5u);
  for (const ops::Config& n : near) {
    SCOPED_TRACE(n.text());
    const BsrConfig& c = ops::BsrFamilyBase::record(n);
    EXPECT_EQ(n.family(), base.family());
    EXPECT_FALSE(n == base);
    EXPECT_EQ(n.family()->can_implement(p, n), "");
    EXPECT_EQ(c.jit, bsr_schedule_index(c.family, c.tile) < 0);
    const BsrTile& t = c.tile;
    const int changed = (t.ti != 32) + (t.tj != 128) + (t.kc != 32) + (t.a != 2) + (t.b != 2) + (t.stages != 3);
    EXPECT_EQ(changed, 1);
    EXPECT_LE(t.ti, 32);  // never taller than the block row
  }
  const auto has = [&](const char* text) {
    const ops::Config c = ops::registry().parse(text, "config", p.kind);
    return std::count(near.begin(), near.end(), c) == 1;
  };
  EXPECT_TRUE(has("bsr-tf32x3:32x128x16:w2x2:s3"));  // K-chunks of 16
  EXPECT_TRUE(has("bsr-tf32x3:32x128x32:w2x2:s2"));
  EXPECT_TRUE(has("bsr-tf32x3:32x64x32:w2x2:s3"));
  EXPECT_FALSE(has("bsr-tf32x3:64x128x32:w2x2:s3"));  // taller than R = 32
  const ops::Config small_m = ops::registry().parse("bsr-small-m", "config", p.kind);
  EXPECT_TRUE(small_m.family()->neighbours(p, small_m).empty());
}

TEST(BsrProblemKey, NamesThePublicProductAndTheMatrixStatistics) {
  ops::Problem h = host_problem(true, 4096, 2048, 32, 13, 512, true);
  h.bsr.longest_row = 40;  // the text the BSR tuner has stored since its first database
  EXPECT_EQ(ops::problem_key(h), "bsr xwt f32 512x4096x2048 b32x32 nnzb1664 long40 x16 y16 beta0");
  ops::Problem w = host_problem(false, 1024, 768, 16, 4, 96, false);
  w.beta_zero = false;
  EXPECT_EQ(ops::problem_key(w), "bsr wx f32 1024x96x768 b16x16 nnzb256 long4 x4 y4 beta1");
  // x16 needs X and W rows 16-byte aligned and C % 4 == 0; y16 (xwt) R % 4 == 0 too.
  ops::Problem odd = host_problem(true, 4096, 2046, 2, 13, 512, true);
  odd.bsr.block_c = 6;
  EXPECT_NE(ops::problem_key(odd).find(" x4 y4 "), std::string::npos) << ops::problem_key(odd);
}

// The tiled launch plan, worked by hand from its rules (sparse/launch_tiled_plan.cpp): W = a resident
// slot's share of the run = nnzb * column tiles / (SMs * blocks per SM); rows longer than W / 8 go
// first, rows longer than W / 2 (and at least two pieces) split into pieces of max(4, W / 4) blocks.
BsrProblem plan_problem(std::vector<int32_t>* lengths) {
  BsrProblem prob;
  prob.p.block_r = prob.p.block_c = 32;
  prob.p.block_row_count = static_cast<int>(lengths->size());
  prob.p.cols_j = 4096;  // 32 column tiles of 128
  prob.row_lengths = lengths;
  for (int32_t l : *lengths) prob.nnzb += l;
  return prob;
}

TEST(BsrTiledPlan, UniformShortRowsNeitherGoFirstNorSplit) {
  std::vector<int32_t> lengths(4096, 4);
  const BsrTiledPlan plan = plan_bsr_tiled(plan_problem(&lengths), 132, 2, 32, 128);
  // W = 16384 * 32 / 264 = 1986: no row of 4 blocks is longer than W / 8.
  EXPECT_EQ(plan.heavy_slots, 0);
  EXPECT_EQ(plan.split_slots, 0);
  EXPECT_EQ(plan.grid, 32u * 4096u);
  EXPECT_EQ(plan.workspace_bytes(), 0u);
}

TEST(BsrTiledPlan, OneLongRowSplitsIntoPiecesWithTheirWorkspace) {
  std::vector<int32_t> lengths(4096, 4);
  lengths[0] = 2000;  // longest first, as row_order sorts them
  const BsrTiledPlan plan = plan_bsr_tiled(plan_problem(&lengths), 132, 2, 32, 128);
  // nnzb = 2000 + 4095 * 4 = 18380, W = 18380 * 32 / 264 = 2227.9: row 0 > W / 2, pieces of
  // floor(W / 4) = 556 blocks: 4 pieces (556, 556, 556, 332) x 32 column tiles.
  EXPECT_EQ(plan.split_slots, 1);
  EXPECT_EQ(plan.heavy_slots, 1);
  EXPECT_EQ(plan.split_piece_blocks, 556);
  EXPECT_EQ(plan.split_ctas, 4 * 32);
  EXPECT_EQ(plan.grid, 32u * 4095u + 128u);
  EXPECT_EQ(plan.counter_bytes, 256u);  // 32 counters, rounded up to 256 bytes
  EXPECT_EQ(plan.partial_bytes, size_t(128) * 32 * 128 * sizeof(float));
  EXPECT_EQ(plan.workspace_bytes(), plan.counter_bytes + plan.partial_bytes);
  // Twice the residency halves W: pieces of 278 blocks, 8 of them.
  const BsrTiledPlan wide = plan_bsr_tiled(plan_problem(&lengths), 132, 4, 32, 128);
  EXPECT_EQ(wide.split_piece_blocks, 278);
  EXPECT_EQ(wide.split_ctas, 8 * 32);
}

TEST(BsrJit, SchedulesNotCompiledAheadCompileFromTheEmbeddedHeaders) {
  for (const char* text : {"bsr-tiled:16x64x16:t2x4:s3", "bsr-tf32x3:16x64x16:w1x2:s2"}) {
    SCOPED_TRACE(text);
    const BsrConfig c = parse_bsr_config(text, "config");
    const JitRequest r = bsr_tiled_jit_request(c.family, c.tile, false, true);
    const JitBinary b = jit_compile("sm_90a", r);
    ASSERT_GT(b.cubin.size(), 1000u);
    EXPECT_EQ(std::string(b.cubin.data(), 4), "\x7f" "ELF");
    EXPECT_NE(b.lowered_name.find(c.family == BsrFamily::Tiled ? "bsr_tiled" : "bsr_tiled_tf32x3"), std::string::npos);
  }
  EXPECT_EQ(bsr_tiled_jit_request(BsrFamily::Tiled, kBsrTiled16, true, false).name_expression,
            "&tilegemm::kernels::bsr_tiled<tilegemm::kernels::BsrTiledSchedule<16, 256, 4, 8, 16, 3>, true, false>");
}

}  // namespace
}  // namespace detail
}  // namespace tilegemm
