// BSR configs without a GPU: the text form round-trips, the schedules compiled ahead of time pass the
// host mirror of their constraints on the products they are compiled for, bad text names what is
// wrong, dispatch's default schedule per block shape, the tuner's search space, the database key, and
// run-time compilation of BSR schedules nobody compiled ahead of time (NVRTC needs no GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "jit/jit.hpp"
#include "sparse/config.hpp"
#include "sparse/launch.hpp"
#include "tilegemm/error.hpp"
#include "tune/bsr_space.hpp"
#include "tune/keys.hpp"

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
    EXPECT_EQ(bsr_compiled(c.family, c.tile, false, false), i < kFirstBsrCandidate);
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
    int tiled, tf32x3;
  };
  for (const Case& k : {Case{8, 8, 100, 4, 10}, Case{16, 16, 100, 3, 10}, Case{16, 32, 100, 3, 10},
                        Case{32, 32, 100, 2, 8}, Case{32, 16, 100, 2, 9}, Case{64, 64, 100, 0, 5}, Case{64, 64, 40, 0, 6},
                        Case{64, 48, 100, 1, 7}, Case{128, 128, 48, 0, 5}}) {
    SCOPED_TRACE(std::to_string(k.r) + "x" + std::to_string(k.c) + " rows of " + std::to_string(k.row_cols));
    EXPECT_EQ(default_bsr_schedule(BsrFamily::Tiled, k.r, k.c, k.row_cols), k.tiled);
    EXPECT_EQ(default_bsr_schedule(BsrFamily::TiledTf32x3, k.r, k.c, k.row_cols), k.tf32x3);
    EXPECT_EQ(kBsrSchedules[k.tiled].family, BsrFamily::Tiled);
    EXPECT_EQ(kBsrSchedules[k.tf32x3].family, BsrFamily::TiledTf32x3);
  }
}

// A host-only problem description: W `rows` x k with R x R blocks, `per_row` blocks in every block
// row, `batch` dense columns j.
struct HostProblem {
  std::vector<int32_t> lengths;
  BsrProblem prob;
  HostProblem(bool xwt, int rows, int k, int r, int per_row, int batch, bool vec) {
    lengths.assign(static_cast<size_t>(rows / r), per_row);
    prob.xwt = xwt;
    prob.row_lengths = &lengths;
    prob.nnzb = static_cast<long long>(per_row) * (rows / r);
    prob.p.rows_i = rows;
    prob.p.cols_j = batch;
    prob.p.depth_k = k;
    prob.p.block_r = prob.p.block_c = r;
    prob.p.block_row_count = rows / r;
    prob.p.x_vec4 = prob.p.w_vec4 = prob.p.y_vec4 = vec;
  }
};

TEST(BsrSearchSpace, AutoFirstEveryConfigRunsAndRunTimeOnesOnlyWhenAsked) {
  for (bool xwt : {true, false})
    for (bool vec : {true, false})
      for (int r : {16, 32, 64})
        for (int batch : {8, 4096}) {
          SCOPED_TRACE(std::string(xwt ? "xwt" : "wx") + (vec ? " vec" : " scalar") + " R " + std::to_string(r) +
                       " batch " + std::to_string(batch));
          HostProblem h(xwt, 4096, 4096, r, 4096 / r / 10, batch, vec);
          for (bool run_time : {false, true}) {
            const std::vector<BsrConfig> space = bsr_search_space(h.prob, run_time);
            ASSERT_FALSE(space.empty());
            EXPECT_EQ(space[0], bsr_kernel_config(h.prob, BsrKernel::Auto));
            int jit = 0;
            bool small_m = false, reduction = false;
            for (size_t i = 0; i < space.size(); ++i) {
              const BsrConfig& c = space[i];
              EXPECT_EQ(bsr_can_implement(h.prob, c), "") << to_string(c);
              EXPECT_EQ(std::count(space.begin(), space.end(), c), 1) << to_string(c);
              if (c.is_tiled()) EXPECT_LE(c.tile.ti, std::max(r, 16)) << to_string(c);
              jit += bsr_needs_jit(h.prob, c) ? 1 : 0;
              small_m = small_m || c.family == BsrFamily::SmallM;
              reduction = reduction || c.family == BsrFamily::Reduction;
            }
            EXPECT_EQ(small_m, batch <= 64);
            EXPECT_EQ(reduction, batch <= 16);
            if (!run_time) EXPECT_EQ(jit, 0);
            else EXPECT_GE(jit, 3);
            // Both tiled families' defaults are in the space.
            for (BsrKernel k : {BsrKernel::Tiled, BsrKernel::TiledTf32x3})
              EXPECT_EQ(std::count(space.begin(), space.end(), bsr_kernel_config(h.prob, k)), 1);
          }
        }
}

TEST(BsrSearchSpace, NeighboursAreOneMoveAwayAndRunnable) {
  HostProblem h(false, 4096, 4096, 32, 12, 4096, true);
  const BsrConfig base = parse_bsr_config("bsr-tf32x3:32x128x32:w2x2:s3", "config");
  const std::vector<BsrConfig> near = bsr_neighbours(h.prob, base);
  ASSERT_GE(near.size(), 5u);
  for (const BsrConfig& c : near) {
    SCOPED_TRACE(to_string(c));
    EXPECT_EQ(c.family, base.family);
    EXPECT_FALSE(c == base);
    EXPECT_EQ(bsr_can_implement(h.prob, c), "");
    EXPECT_EQ(c.jit, bsr_schedule_index(c.family, c.tile) < 0);
    const BsrTile& t = c.tile;
    const int changed = (t.ti != 32) + (t.tj != 128) + (t.kc != 32) + (t.a != 2) + (t.b != 2) + (t.stages != 3);
    EXPECT_EQ(changed, 1);
    EXPECT_LE(t.ti, 32);  // never taller than the block row
  }
  const auto has = [&](const char* text) {
    return std::count(near.begin(), near.end(), parse_bsr_config(text, "config")) == 1;
  };
  EXPECT_TRUE(has("bsr-tf32x3:32x128x16:w2x2:s3"));  // K-chunks of 16
  EXPECT_TRUE(has("bsr-tf32x3:32x128x32:w2x2:s2"));
  EXPECT_TRUE(has("bsr-tf32x3:32x64x32:w2x2:s3"));
  EXPECT_FALSE(has("bsr-tf32x3:64x128x32:w2x2:s3"));  // taller than R = 32
  EXPECT_TRUE(bsr_neighbours(h.prob, parse_bsr_config("bsr-small-m", "config")).empty());
}

TEST(BsrProblemKey, NamesThePublicProductAndTheMatrixStatistics) {
  HostProblem h(true, 4096, 2048, 32, 13, 512, true);
  h.lengths[0] = 40;
  EXPECT_EQ(bsr_problem_key(h.prob), "bsr xwt f32 512x4096x2048 b32x32 nnzb1664 long40 x16 y16 beta0");
  HostProblem w(false, 1024, 768, 16, 4, 96, false);
  w.prob.p.beta = 1.0f;
  EXPECT_EQ(bsr_problem_key(w.prob), "bsr wx f32 1024x96x768 b16x16 nnzb256 long4 x4 y4 beta1");
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
  EXPECT_EQ(bsr_tiled_jit_request(BsrFamily::Tiled, kBsrSchedules[3].tile, true, false).name_expression,
            "&tilegemm::kernels::bsr_tiled<tilegemm::kernels::BsrTiledSchedule<16, 256, 4, 8, 16, 3>, true, false>");
}

}  // namespace
}  // namespace detail
}  // namespace tilegemm
