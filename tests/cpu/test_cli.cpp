// The GPU-free parts of the tilegemm command (library tilegemm_tools): shape, size, preset, dtype and
// kernel-list parsing, bench/check argument validation, the CSV and JSON writers, the peak table and
// the plot-script driver. The command itself on bad input is tested by cli_expect_error.sh (CTest).
#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "gemm/choice_log.hpp"
#include "gemm/gemm_options.hpp"
#include "gemm/gemm_report.hpp"
#include "profiler/peaks.hpp"
#include "gemm/plot.hpp"
#include "profiler/report.hpp"
#include "gemm/shapes.hpp"
#include "bsr/bsr_options.hpp"
#include "bsr/bsr_report.hpp"
#include "profiler/tune_options.hpp"
#include "profiler/operation_profiler.hpp"
#include "commands.hpp"
#include "tilegemm/bsr.hpp"
#include "tilegemm/device.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace tools {
namespace {

namespace fs = std::filesystem;

// The call throws Error(InvalidArgument) whose message starts with `prefix` and contains `needle`.
void expect_invalid(const std::function<void()>& call, const std::string& prefix, const std::string& needle = "") {
  try {
    call();
    ADD_FAILURE() << "expected an error starting with '" << prefix << "'";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << what;
    EXPECT_EQ(what.rfind(prefix, 0), 0u) << "message '" << what << "' does not start with '" << prefix << "'";
    EXPECT_NE(what.find(needle), std::string::npos) << "message '" << what << "' does not mention '" << needle << "'";
    EXPECT_EQ(what.find('\n'), std::string::npos) << "message is not one line: " << what;
  }
}

// A fresh directory under the system temp directory, removed with the fixture.
class CliFiles : public testing::Test {
 protected:
  fs::path dir;
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "tilegemm_test_cli.XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
};

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) out.push_back(line);
  return out;
}

std::vector<std::string> split_csv_line(const std::string& line) {  // handles quoted fields with ""
  std::vector<std::string> out(1);
  bool in_quotes = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (in_quotes && ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (ch == '"') {
      in_quotes = !in_quotes;
    } else if (ch == ',' && !in_quotes) {
      out.emplace_back();
    } else {
      out.back() += ch;
    }
  }
  return out;
}

Problem cube(int64_t s) {
  Problem p;
  p.m = p.n = p.k = s;
  return p;
}

// --- shapes ---------------------------------------------------------------------------------------

TEST(CliShape, ParsesMxNxK) {
  const Problem p = parse_shape("1024x512x2048");
  EXPECT_EQ(p.m, 1024);
  EXPECT_EQ(p.n, 512);
  EXPECT_EQ(p.k, 2048);
  EXPECT_EQ(p.layout, Layout::RowMajor);
  const Problem z = parse_shape("0x1x0");
  EXPECT_EQ(z.m, 0);
  EXPECT_EQ(z.n, 1);
  EXPECT_EQ(parse_shape("2147483647x1x1").m, 2147483647);
  EXPECT_EQ(parse_shape("007x08x9").n, 8);
}

TEST(CliShape, RejectsMalformed) {
  for (const char* bad : {"4096", "1x2x", "12x", "ax2x3", "-1x2x3", "1x2x3x4", "", "x", "xx", "1x2", "1x 2x3",
                          " 1x2x3", "1x2x3 ", "+1x2x3", "1.5x2x3", "1e3x2x3", "0x10x0x"}) {
    SCOPED_TRACE(bad);
    expect_invalid([&] { parse_shape(bad); }, std::string("--shape: malformed value '") + bad + "'",
                   "expected MxNxK");
  }
}

TEST(CliShape, RejectsHugeNumbersWithoutOverflow) {
  for (const char* bad : {"2147483648x1x1", "1x99999999999x1", "99999999999999999999x2x3",
                          "1x1x123456789012345678901234567890"}) {
    SCOPED_TRACE(bad);
    expect_invalid([&] { parse_shape(bad); }, std::string("--shape: value '") + bad + "' out of range", "2147483647");
  }
}

TEST(CliShape, NamesTheOptionItWasGiven) {
  expect_invalid([] { parse_shape("1x2", "--extra-shape"); }, "--extra-shape: malformed value '1x2'");
}

TEST(CliSizes, GeometricAndArithmetic) {
  EXPECT_EQ(parse_sizes("256:16384:x2"), (std::vector<int64_t>{256, 512, 1024, 2048, 4096, 8192, 16384}));
  EXPECT_EQ(parse_sizes("100:1000:x3"), (std::vector<int64_t>{100, 300, 900}));
  EXPECT_EQ(parse_sizes("1024:4096:+1024"), (std::vector<int64_t>{1024, 2048, 3072, 4096}));
  EXPECT_EQ(parse_sizes("1000:1100:+64"), (std::vector<int64_t>{1000, 1064}));
  EXPECT_EQ(parse_sizes("7:7:x2"), (std::vector<int64_t>{7}));
  EXPECT_EQ(parse_sizes("1:1000:+1").size(), kMaxSweepSizes);
  // Near the top of the range the geometric step must not overflow.
  EXPECT_EQ(parse_sizes("1073741824:2147483647:x2147483647"), (std::vector<int64_t>{1073741824}));
}

TEST(CliSizes, RejectsBadForms) {
  for (const char* bad : {"256:16384", "256", "", "256:16384:x1", "256:16384:x0", "256:16384:+0", "0:16:x2",
                          "16:8:x2", "a:b:x2", "256:16384:*2", "256:16384:x", "256:16384:2", "256:16384:x2:1",
                          "-256:16384:x2", "256:16384:+-1", ":16384:x2"}) {
    SCOPED_TRACE(bad);
    expect_invalid([&] { parse_sizes(bad); }, std::string("--sizes: malformed value '") + bad + "'", "LO:HI");
  }
  expect_invalid([] { parse_sizes("1:99999999999:x2"); }, "--sizes: value '1:99999999999:x2' out of range");
  expect_invalid([] { parse_sizes("1:100000:+1"); }, "--sizes: '1:100000:+1' gives more than 1000 sizes");
}

TEST(CliPreset, Textbook) {
  const std::vector<Problem> p = preset_shapes("textbook");
  ASSERT_EQ(p.size(), 7u);
  int64_t s = 256;
  for (const Problem& q : p) {
    EXPECT_EQ(q.m, s);
    EXPECT_EQ(q.n, s);
    EXPECT_EQ(q.k, s);
    s *= 2;
  }
  EXPECT_EQ(p.back().m, 16384);
}

TEST(CliPreset, TvmPost) {
  const std::vector<Problem> p = preset_shapes("tvm-post");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].dims(), "1024x512x2048");
}

TEST(CliPreset, Odd) {
  std::vector<std::string> dims;
  for (const Problem& p : preset_shapes("odd")) dims.push_back(p.dims());
  EXPECT_EQ(dims, (std::vector<std::string>{"1000x1000x1000", "4095x4097x4093", "1x4096x4096", "4096x1x4096",
                                            "2048x16x4096", "64x64x65536"}));
}

TEST(CliPreset, ModelsKeepsItsFixedOps) {
  const std::vector<Problem> p = preset_shapes("models");
  ASSERT_EQ(p.size(), 19u);
  EXPECT_EQ(p[0].dims(), "4096x14336x4096");
  EXPECT_EQ(p[3].dims(), "1x14336x4096");
  EXPECT_EQ(p[15].dims(), "4096x1x14336");
  // The odd shape three times: NN (follows --trans), NT and TT (fixed by the preset).
  EXPECT_EQ(p[16].str(), "2501x3499x1777 row NN");
  EXPECT_EQ(p[17].str(), "2501x3499x1777 row NT");
  EXPECT_EQ(p[18].str(), "2501x3499x1777 row TT");
  BenchArgs a;
  a.preset = "models";
  a.trans = "TN";
  const BenchPlan plan = plan_bench(a);
  EXPECT_EQ(plan.problems[0].str(), "4096x14336x4096 row TN");
  EXPECT_EQ(plan.problems[17].str(), "2501x3499x1777 row NT");
  EXPECT_EQ(plan.problems[18].str(), "2501x3499x1777 row TT");
}

TEST(CliPreset, EveryListedNameWorksAndUnknownIsAnError) {
  for (const std::string& name : preset_names()) EXPECT_FALSE(preset_shapes(name).empty()) << name;
  expect_invalid([] { preset_shapes("nope"); }, "--preset: unknown preset 'nope'",
                 "textbook, tvm-post, odd, ladder, small, models or batched");
  expect_invalid([] { preset_shapes("Textbook"); }, "--preset: unknown preset 'Textbook'");
}

TEST(CliTrans, ParsesAndRejects) {
  EXPECT_EQ(parse_trans("NT"), std::make_pair(Op::N, Op::T));
  EXPECT_EQ(parse_trans("tn"), std::make_pair(Op::T, Op::N));
  for (const char* bad : {"NX", "N", "NNN", "", "TT "}) {
    SCOPED_TRACE(bad);
    expect_invalid([&] { parse_trans(bad); }, std::string("--trans: unknown value '") + bad + "'");
  }
}

TEST(CliProblem, SizesAndLabels) {
  Problem p = parse_shape("3x5x7");
  EXPECT_EQ(p.size_a(), 21);
  EXPECT_EQ(p.size_b(), 35);
  EXPECT_EQ(p.size_c(), 15);
  EXPECT_EQ(p.lda(), 7);
  p.layout = Layout::ColMajor;
  p.op_a = Op::T;
  EXPECT_EQ(p.lda(), 7);  // A stored as K x M column-major: ld = K
  EXPECT_EQ(p.ldc(), 3);
  EXPECT_EQ(p.str(), "3x5x7 col TN");
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 3 * 5 * 7);
}

// --batch: every shape as N strided batches, each matrix's batches stored rows x ld apart; the batched
// preset keeps its own counts; malformed counts name the option.
TEST(CliProblem, StridedBatches) {
  Problem p = parse_shape("3x5x7");  // row-major NN: A 3x7, B 7x5, C 3x5
  p.ld_pad = 1;
  p.offset = 2;
  std::vector<Problem> list = {p};
  apply_batch(list, "4");
  p = list[0];
  EXPECT_EQ(p.batch, 4);
  EXPECT_EQ(p.stride_a(), 3 * 8);
  EXPECT_EQ(p.stride_b(), 7 * 6);
  EXPECT_EQ(p.stride_c(), 3 * 6);
  EXPECT_EQ(p.size_a(), 2 + 3 * 24 + 2 * 8 + 7);  // offset + 3 strides + the last batch's extent
  EXPECT_EQ(p.size_c(), 2 + 3 * 18 + 2 * 6 + 5);
  EXPECT_EQ(p.c_outer(), 4 * 3);  // C's rows over every batch, ldc apart
  EXPECT_DOUBLE_EQ(p.flops(), 4 * 2.0 * 3 * 5 * 7);
  EXPECT_EQ(p.str(), "4 x 3x5x7 row NN ld+1 off=2");
  p.layout = Layout::ColMajor;  // stored columns x ld
  EXPECT_EQ(p.stride_a(), 7 * 4);
  apply_batch(list, "");  // keeps the count
  EXPECT_EQ(list[0].batch, 4);
  for (const char* bad : {"0", "x", "-1", "1000001", "12345678"}) {
    SCOPED_TRACE(bad);
    expect_invalid([&] { apply_batch(list, bad); }, std::string("--batch: "));
  }
  const std::vector<Problem> batched = preset_shapes("batched");
  ASSERT_GE(batched.size(), 5u);
  EXPECT_EQ(batched[0].batch, 16);
  EXPECT_EQ(batched[0].str(), "16 x 1024x1024x1024 row NN");
  EXPECT_DOUBLE_EQ(batched[0].flops(), batched[2].flops());  // beside one product of the same FLOPs
  BenchArgs a;
  a.preset = "batched";
  a.batch = "2";
  for (const Problem& q : plan_bench(a).problems) EXPECT_EQ(q.batch, 2);
}

// --epilogue: each listed epilogue runs every shape; the bias lies after C's batches in C's buffer,
// and an epilogue makes the run's reference the FP64 product.
TEST(CliProblem, Epilogues) {
  std::vector<Problem> list = {parse_shape("3x5x7"), parse_shape("8x8x8")};
  apply_epilogues(list, "none,bias+gelu-tanh,row-bias,SILU");
  ASSERT_EQ(list.size(), 8u);
  EXPECT_TRUE(list[0].plain_epilogue());
  EXPECT_EQ(list[0].str(), "3x5x7 row NN");
  EXPECT_EQ(list[1].bias, BiasKind::PerColumn);
  EXPECT_EQ(list[1].activation, Activation::GeluTanh);
  EXPECT_EQ(list[1].str(), "3x5x7 row NN epi=bias+gelu-tanh");
  EXPECT_EQ(list[1].bias_count(), 5);  // n values
  EXPECT_EQ(list[2].bias_count(), 3);  // row-bias: m values
  EXPECT_EQ(list[2].epilogue_name(), "row-bias");
  EXPECT_EQ(list[3].epilogue_name(), "silu");
  EXPECT_EQ(list[3].bias_count(), 0);
  EXPECT_EQ(list[4].str(), "8x8x8 row NN");
  EXPECT_FALSE(list[0].fp64_reference());  // FP32 without an epilogue: against SGEMM
  EXPECT_TRUE(list[1].fp64_reference());
  Problem p = list[1];
  p.offset = 3;
  ASSERT_EQ(p.size_c(), 3 + 15);  // offset + 3 x 5
  EXPECT_EQ(p.bias_first(), 64);  // the next 256-byte boundary of f32 elements
  EXPECT_EQ(p.size_c_buffer(), 64 + 5);
  const char* c = reinterpret_cast<const char*>(0x1000) + 3 * 4;  // C's first element, 3 elements in
  EXPECT_EQ(bias_in(p, c), reinterpret_cast<const char*>(0x1000) + 256);
  p.dtype = DType::BF16;
  EXPECT_EQ(p.bias_first(), 128);
  EXPECT_EQ(list[0].size_c_buffer(), list[0].size_c());  // no bias, no room for one
  for (const char* bad : {"gelu", "bias+", "+relu", "bias+row-bias", "relu+silu", "none,", ",", "bias,,relu"}) {
    SCOPED_TRACE(bad);
    std::vector<Problem> one = {parse_shape("3x5x7")};
    expect_invalid([&] { apply_epilogues(one, bad); }, std::string("--epilogue: "));
  }
  std::vector<Problem> kept = {parse_shape("3x5x7")};
  apply_epilogues(kept, "");
  EXPECT_EQ(kept.size(), 1u);
  EXPECT_TRUE(kept[0].plain_epilogue());
}

TEST(CliProblem, PaddedAndOffsetMemory) {
  Problem p = parse_shape("3x5x7");  // row-major NN: A 3x7, B 7x5, C 3x5
  p.ld_pad = 7;
  p.offset = 1;
  EXPECT_EQ(p.lda(), 14);
  EXPECT_EQ(p.ldb(), 12);
  EXPECT_EQ(p.ldc(), 12);
  EXPECT_EQ(p.size_a(), 1 + 2 * 14 + 7);  // offset + extent: the last row is not padded
  EXPECT_EQ(p.size_c(), 1 + 2 * 12 + 5);
  EXPECT_EQ(p.c_outer(), 3);
  EXPECT_EQ(p.c_inner(), 5);
  EXPECT_EQ(p.str(), "3x5x7 row NN ld+7 off=1");
  p.ld_abs = 20;
  EXPECT_EQ(p.lda(), 20);
  EXPECT_EQ(p.ldc(), 20);
  EXPECT_EQ(p.str(), "3x5x7 row NN ld=20 off=1");
  EXPECT_FALSE(p.tight());
}

TEST(CliLd, ParsesPaddingAndAbsoluteAndRejectsTheRest) {
  EXPECT_EQ(parse_ld("+7").pad, 7);
  EXPECT_EQ(parse_ld("+7").absolute, 0);
  EXPECT_EQ(parse_ld("1031").absolute, 1031);
  EXPECT_EQ(parse_ld("+0").pad, 0);
  for (const char* bad : {"", "+", "-3", "x", "7.5", "+1e3", " 7"})
    expect_invalid([&] { parse_ld(bad); }, std::string("--ld: malformed value '") + bad + "'");
  expect_invalid([] { parse_ld("0"); }, "--ld: value '0' out of range");
  expect_invalid([] { parse_ld("+2000000"); }, "--ld: value '+2000000' out of range");
  EXPECT_EQ(parse_offset("1"), 1);
  EXPECT_EQ(parse_offset("0"), 0);
  expect_invalid([] { parse_offset("-1"); }, "--offset: malformed value '-1'");
  expect_invalid([] { parse_offset("2000000"); }, "--offset: value '2000000' out of range");
}

TEST(CliTune, OptionsBecomeTheLibrarysTuneOptions) {
  TuneArgs a;
  a.preset = "models";
  GemmTuneArgs layout;
  layout.trans = "TT";
  layout.ld = "+3";
  TunePlan plan = plan_tune(a, "/default/tuning.sqlite3");
  EXPECT_EQ(plan.action, TunePlan::Action::Tune);
  const std::vector<Problem> problems = plan_gemm_tune(a.shapes, a.preset, layout);
  ASSERT_EQ(problems.size(), 19u);
  EXPECT_EQ(problems[0].op_a, Op::T);        // --trans applies to the preset's free shapes
  EXPECT_EQ(problems.back().op_b, Op::T);    // and a fixed-op shape keeps its ops (TT)
  EXPECT_EQ(problems[17].op_a, Op::N);       // 2501x3499x1777 NT stays NT
  EXPECT_EQ(problems[0].ld_pad, 3);
  EXPECT_EQ(plan.db, "/default/tuning.sqlite3");
  EXPECT_EQ(plan.options.database, plan.db);
  EXPECT_EQ(plan.options.max_measured, 12);
  EXPECT_TRUE(plan.options.store);
  EXPECT_FALSE(plan.options.run_time_configs);
  a.exhaustive = true;
  a.jit = true;
  a.no_store = true;
  a.db = "/x/mine.sqlite3";
  a.budget_s = 5;
  a.min_time = 0.01;
  plan = plan_tune(a, "/default/tuning.sqlite3");
  EXPECT_EQ(plan.options.max_measured, 0);
  EXPECT_TRUE(plan.options.run_time_configs);
  EXPECT_FALSE(plan.options.store);
  EXPECT_EQ(plan.options.database, "/x/mine.sqlite3");
  EXPECT_EQ(plan.options.budget_s, 5);
  EXPECT_EQ(plan.options.min_time_s, 0.01);
  TuneArgs list;
  list.list = true;
  EXPECT_EQ(plan_tune(list, "/d.sqlite3").action, TunePlan::Action::List);
  list.min_time = 100;  // tuning options are not looked at for a database action
  EXPECT_EQ(plan_tune(list, "/d.sqlite3").db, "/d.sqlite3");
  a.min_time = 61;
  expect_invalid([&] { plan_tune(a, "/d"); }, "--min-time: must be in [0, 60] seconds");
  // --batch and --epilogue as in bench: each listed epilogue tunes every shape.
  GemmTuneArgs batched;
  batched.dtype = "bf16";
  batched.batch = "4";
  batched.epilogue = "none,bias+gelu-tanh";
  const std::vector<Problem> with = plan_gemm_tune({"64x96x128"}, "", batched);
  ASSERT_EQ(with.size(), 2u);
  EXPECT_EQ(with[0].batch, 4);
  EXPECT_TRUE(with[0].plain_epilogue());
  EXPECT_EQ(with[1].str(), "4 x 64x96x128 row NN epi=bias+gelu-tanh");
  EXPECT_EQ(with[1].dtype, DType::BF16);
  batched.batch = "0";
  expect_invalid([&] { plan_gemm_tune({"64x96x128"}, "", batched); }, "--batch: ");
  batched.batch = "";
  batched.epilogue = "gelu";
  expect_invalid([&] { plan_gemm_tune({"64x96x128"}, "", batched); }, "--epilogue: unknown part 'gelu'");
}

TEST(CliCheckBsr, ProblemsKernelsAndConfigs) {
  SparseCheckArgs a;
  SparseCheckPlan plan = plan_sparse_check(a);
  EXPECT_EQ(plan.problems.size(), 36u);  // seed-sparse without a shape
  EXPECT_EQ(plan.kernels.size(), 5u);    // auto and the four kernels
  a.shapes = {"96x200x160"};
  a.blocks = {"8x10"};
  a.op = "wx";
  a.kernels = "tiled-tf32x3";
  a.configs = {"bsr-tiled:16x64x16:t2x4:s3"};
  plan = plan_sparse_check(a);
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0].op, SparseOp::Wx);
  EXPECT_EQ(plan.kernels, std::vector<BsrKernel>{BsrKernel::TiledTf32x3});
  EXPECT_EQ(plan.configs, std::vector<std::string>{"bsr-tiled:16x64x16:t2x4:s3:jit"});
  a.configs = {"gemv-cols:s1:l32:k1"};
  expect_invalid([&] { plan_sparse_check(a); }, "--config: 'gemv-cols:s1:l32:k1' is not a BSR config");
}

TEST(CliTune, BsrTakesTheSparseProblemOptions) {
  BsrTuneArgs a;
  a.op = "wx";
  a.seed = "7";
  BsrTunePlan plan = plan_bsr_tune({}, "transformer-sparse", a);
  ASSERT_EQ(plan.problems.size(), 72u);
  EXPECT_EQ(plan.problems[0].op, SparseOp::Wx);
  EXPECT_EQ(plan.seed, 7u);
  BsrTuneArgs s;
  s.blocks = {"16", "32x8"};
  s.sparsities = {"0.5", "0.9"};
  s.rows = {"skewed"};
  plan = plan_bsr_tune({"512x1024x2048"}, "", s);
  ASSERT_EQ(plan.problems.size(), 4u);
  EXPECT_EQ(plan.problems[3].block_rows, 32);
  EXPECT_EQ(plan.problems[3].block_cols, 8);
  EXPECT_EQ(plan.problems[3].rows, RowDistribution::Skewed);
  EXPECT_EQ(plan.problems[0].op, SparseOp::Xwt);
  BsrTuneArgs none;
  expect_invalid([&] { plan_bsr_tune({}, "", none); }, "--shape: no shapes to tune");
  none.sparsities = {"1"};
  expect_invalid([&] { plan_bsr_tune({"64x64x64"}, "", none); },
                 "--shape: xwt m=64 k=64 n=64 block 32x32 sparsity 1 uniform has no stored blocks or an empty dimension");
  none.sparsities.clear();
  expect_invalid([&] { plan_bsr_tune({}, "models", none); }, "--preset: 'models' is a dense preset");
  TuneArgs shared;
  expect_invalid([&] { plan_tune(shared, "/d"); }, "--shape: no shapes to tune");
}

// bench, check and tune take an operation word, made explicit before CLI11 parses: the default is the
// first profiler (gemm), --sparse selects bsr, and an option of another operation is named as such.
TEST(CliOperations, TheOperationWordIsMadeExplicit) {
  CLI::App app;
  add_bench_command(app, {});
  add_check_command(app);
  add_tune_command(app);
  add_info_command(app);
  using V = std::vector<std::string>;
  EXPECT_EQ(with_operation(V{"tilegemm", "bench", "--shape", "8x8x8"}, app), (V{"tilegemm", "bench", "gemm", "--shape", "8x8x8"}));
  EXPECT_EQ(with_operation(V{"tilegemm", "bench", "--op", "wx", "--sparse"}, app),
            (V{"tilegemm", "bench", "bsr", "--op", "wx"}));
  EXPECT_EQ(with_operation(V{"tilegemm", "tune", "bsr", "--block", "16"}, app), (V{"tilegemm", "tune", "bsr", "--block", "16"}));
  EXPECT_EQ(with_operation(V{"tilegemm", "check"}, app), (V{"tilegemm", "check", "gemm"}));
  // After "--" the words are not options: --sparse there selects nothing and stays.
  EXPECT_EQ(with_operation(V{"tilegemm", "bench", "--", "--sparse"}, app), (V{"tilegemm", "bench", "gemm", "--", "--sparse"}));
  EXPECT_EQ(with_operation(V{"tilegemm", "bench", "--help"}, app), (V{"tilegemm", "bench", "--help"}));
  EXPECT_EQ(with_operation(V{"tilegemm", "info"}, app), (V{"tilegemm", "info"}));
  expect_invalid([&] { with_operation(V{"tilegemm", "bench", "conv"}, app); },
                 "operation 'conv': unknown (expected gemm or bsr)");
  expect_invalid([&] { with_operation(V{"tilegemm", "tune", "--sparsity=0.5"}, app); },
                 "--sparsity: not available with tune gemm (an option of tune bsr)");
  expect_invalid([&] { with_operation(V{"tilegemm", "check", "bsr", "--trans", "TT"}, app); },
                 "--trans: not available with check bsr (an option of check gemm)");
  expect_invalid([&] { with_operation(V{"tilegemm", "bench", "gemm", "--sparse"}, app); },
                 "--sparse: not available with bench gemm (it selects bench bsr)");
  // Every operation's subcommand exists under each of the three commands.
  for (const auto& p : profilers())
    for (const char* command : {"bench", "check", "tune"}) EXPECT_NO_THROW(app.get_subcommand(command)->get_subcommand(p->name()));
}

TEST(CliLd, AppliedToEveryShapeAndCheckedAgainstIt) {
  BenchArgs a;
  a.shapes = {"1000x1000x1000", "8x16x4"};
  a.ld = "+7";
  a.offset = "1";
  BenchPlan plan = plan_bench(a);
  for (const Problem& p : plan.problems) {
    EXPECT_EQ(p.ld_pad, 7);
    EXPECT_EQ(p.offset, 1);
  }
  EXPECT_EQ(plan.problems[0].lda(), 1007);
  a.ld = "1024";
  plan = plan_bench(a);
  EXPECT_EQ(plan.problems[1].ldb(), 1024);
  a.ld = "999";  // below 1000x1000x1000's rows
  expect_invalid([&] { plan_bench(a); }, "--ld: 999 is too small for 1000x1000x1000 row NN", ">= 1000");
  CheckArgs c;
  c.ld = "+x";
  expect_invalid([&] { plan_check(c); }, "--ld: malformed value '+x'");
  c.ld = "+3";
  c.offset = "2";
  const CheckPlan cp = plan_check(c);
  EXPECT_EQ(cp.problems[0].ld_pad, 3);
  EXPECT_EQ(cp.problems[0].offset, 2);
}

TEST(CliConfig, ListsAreCanonicalAndErrorsNameTheOption) {
  const std::vector<std::string> c =
      parse_config_list({"tiled:64x64x16:w32x32:t8x4:s3:b6", "gemv-cols:s1:l8:k4", "TILED:64x64x16:w32x32:t8x4:s3:b6:k1"});
  EXPECT_EQ(c, (std::vector<std::string>{"tiled:64x64x16:w32x32:t8x4:s3:b6:k1:hilbert", "gemv-cols:s1:l8:k4"}));
  expect_invalid([] { parse_config_list({"tiled:64x64"}); }, "--config: 'tiled:64x64' is not a GEMM config");
  BenchArgs a;
  a.configs = {"gemv-rows:s3x"};
  expect_invalid([&] { plan_bench(a); }, "--config: 'gemv-rows:s3x' is not a GEMM config");
}

TEST(CliChoiceLog, TextNamesTheConfigTheClassAndTheRunnersUp) {
  GemmChoice c;
  c.config = "gemv-cols:s1:l32:k1";
  c.kind = "gemv";
  c.predicted_us = 90.64;
  c.reason = "224 blocks";
  c.runners_up = {{"gemv-cols:s1:l16:k1", 92.0}};
  const std::string text = choice_text(parse_shape("1x14336x4096"), c);
  EXPECT_EQ(text,
            "tilegemm: auto on 1x14336x4096 row NN: gemv-cols:s1:l32:k1 (gemv), predicted 90.6 us\n"
            "  why: 224 blocks\n"
            "  next: gemv-cols:s1:l16:k1 (92.0 us)\n");
  setenv("TILEGEMM_LOG_CHOICE", "1", 1);
  EXPECT_TRUE(log_choice_requested());
  setenv("TILEGEMM_LOG_CHOICE", "0", 1);
  EXPECT_FALSE(log_choice_requested());
  unsetenv("TILEGEMM_LOG_CHOICE");
  EXPECT_FALSE(log_choice_requested());
}

// --- dtype and kernel lists -------------------------------------------------------------------------

TEST(CliDType, AcceptsFp32Tf32Bf16AndFp16) {
  EXPECT_EQ(parse_dtype("fp32").dtype, DType::F32);
  EXPECT_EQ(parse_dtype("FP32").name, "fp32");
  EXPECT_EQ(parse_dtype("fp32").math, Math::Fp32);
  EXPECT_EQ(parse_dtype("fp32-accurate").math, Math::Fp32);  // what fp32 means here
  EXPECT_EQ(parse_dtype("TF32").dtype, DType::F32);          // FP32 data, TF32 math
  EXPECT_EQ(parse_dtype("tf32").math, Math::Tf32);
  EXPECT_EQ(parse_dtype("bf16").dtype, DType::BF16);
  EXPECT_EQ(parse_dtype("FP16").dtype, DType::F16);
  for (const char* bad : {"tf16", "", "float", "f16"}) {
    SCOPED_TRACE(bad);
    expect_invalid([&] { parse_dtype(bad); }, std::string("--dtype: unsupported value '") + bad + "'",
                   "(accepted: fp32, fp32-accurate, tf32, bf16 or fp16)");
  }
}

TEST(CliDType, ATf32RunNamesTheMathOnEveryProblemAndDefaultsToAuto) {
  BenchArgs a;
  a.shapes = {"64x32x16", "5x6x7"};
  a.dtype = "tf32";
  const BenchPlan plan = plan_bench(a);
  EXPECT_EQ(plan.dtype.name, "tf32");
  EXPECT_EQ(plan.kernels, std::vector<Kernel>{Kernel::Auto});  // the ladder computes FP32 only
  for (const Problem& p : plan.problems) {
    EXPECT_EQ(p.dtype, DType::F32);
    EXPECT_EQ(p.math, Math::Tf32);
  }
  // The FP64 reference's buffers count against the device's memory, as for 16-bit runs.
  const double elements = 64 * 16 + 16 * 32 + 64 * 32;
  EXPECT_DOUBLE_EQ(problem_bytes(plan.problems[0], 2), 4.0 * (64 * 16 + 16 * 32 + 2 * 64 * 32) + 8.0 * elements);
  CheckArgs c;
  c.shapes = {"5x6x7"};
  c.dtype = "tf32";
  EXPECT_EQ(plan_check(c).problems[0].math, Math::Tf32);
}

TEST(CliDType, A16BitGemmRunTypesEveryProblemAndDefaultsToAuto) {
  BenchArgs a;
  a.shapes = {"64x32x16", "5x6x7"};
  a.dtype = "bf16";
  const BenchPlan plan = plan_bench(a);
  ASSERT_EQ(plan.problems.size(), 2u);
  for (const Problem& p : plan.problems) EXPECT_EQ(p.dtype, DType::BF16);
  EXPECT_EQ(plan.kernels, std::vector<Kernel>{Kernel::Auto});  // the ladder is FP32: not in the default list
  // 2-byte elements, and the FP64 reference: 2 (A + B + 2 C) + 8 (A + B + C).
  const double elements = 64 * 16 + 16 * 32 + 64 * 32;
  EXPECT_DOUBLE_EQ(problem_bytes(plan.problems[0], 2), 2.0 * (64 * 16 + 16 * 32 + 2 * 64 * 32) + 8.0 * elements);
  a.kernels = "auto,6";  // named levels stay (their rows say why they cannot run)
  EXPECT_EQ(plan_bench(a).kernels, (std::vector<Kernel>{Kernel::Auto, Kernel::WarpTiled}));
  CheckArgs c;
  c.shapes = {"8x8x8"};
  c.dtype = "fp16";
  const CheckPlan check = plan_check(c);
  EXPECT_EQ(check.problems[0].dtype, DType::F16);
  EXPECT_EQ(check.kernels, std::vector<Kernel>{Kernel::Auto});
}

TEST(CliDType, ErrorListsEverySupportedDtype) {
  try {
    parse_dtype("nope");
    FAIL();
  } catch (const Error& e) {
    for (const DTypeChoice& d : supported_dtypes()) EXPECT_NE(std::string(e.what()).find(d.name), std::string::npos);
  }
}

TEST(CliKernels, Lists) {
  EXPECT_EQ(parse_kernel_list("all"), (std::vector<Kernel>{Kernel::Naive, Kernel::Coalesced, Kernel::SharedTiled,
                                                           Kernel::RegisterTiled, Kernel::Vectorized,
                                                           Kernel::WarpTiled, Kernel::MmaTf32x3}));
  EXPECT_EQ(parse_kernel_list("6,1,6,06-warp-tiled"), (std::vector<Kernel>{Kernel::WarpTiled, Kernel::Naive}));
  EXPECT_EQ(parse_kernel_list("auto,5"), (std::vector<Kernel>{Kernel::Auto, Kernel::Vectorized}));
  expect_invalid([] { parse_kernel_list("1,9"); }, "--kernels: unknown value '9'");
  expect_invalid([] { parse_kernel_list(""); }, "--kernels: empty list");
  expect_invalid([] { parse_kernel_list(",,"); }, "--kernels: empty list");
}

TEST(CliRasters, Lists) {
  EXPECT_EQ(parse_raster_list({"hilbert", "rowmajor", "hilbert"}),
            (std::vector<Raster>{Raster::Hilbert, Raster::RowMajor}));
  EXPECT_TRUE(parse_raster_list({}).empty());
  expect_invalid([] { parse_raster_list({"zigzag"}); }, "--rasters: unknown value 'zigzag'");
}

// --- bench / check argument validation -------------------------------------------------------------

TEST(CliGraphBatch, ParsesCountsAndRejectsTheRest) {
  EXPECT_EQ(parse_graph_batch("0"), 0);
  EXPECT_EQ(parse_graph_batch("1"), 1);
  EXPECT_EQ(parse_graph_batch("100"), 100);
  EXPECT_EQ(parse_graph_batch("007"), 7);
  EXPECT_EQ(parse_graph_batch("000"), 0);
  EXPECT_EQ(parse_graph_batch(std::to_string(kMaxGraphBatch)), kMaxGraphBatch);
  for (const char* bad : {"-1", "-100"})
    expect_invalid([&] { parse_graph_batch(bad); }, std::string("--graph-batch: value '") + bad + "' out of range",
                   "0 to 10000");
  for (const char* big : {"10001", "1000000", "99999999999999999999999"})
    expect_invalid([&] { parse_graph_batch(big); }, std::string("--graph-batch: value '") + big + "' out of range");
  for (const char* bad : {"abc", "", "1.5", "+3", " 3", "3 ", "1e3", "0x10", "-", "--1", "-1a"})
    expect_invalid([&] { parse_graph_batch(bad); }, std::string("--graph-batch: malformed value '") + bad + "'");
  expect_invalid([] { parse_graph_batch("x", "--other"); }, "--other: malformed value 'x'");
}

TEST(CliGraphBatch, TimingMethodTexts) {
  EXPECT_EQ(timing_method_text(0), "events per launch");
  EXPECT_EQ(timing_method_text(100), "CUDA graph of 100 launches (per-launch time, warm L2 after the first)");
  EXPECT_EQ(timing_csv_text(0), "events");
  EXPECT_EQ(timing_csv_text(100), "graph:100");
  EXPECT_STREQ(l2_text(false, 0), "cold (flushed)");
  EXPECT_STREQ(l2_text(true, 0), "warm");
  EXPECT_STREQ(l2_text(false, 10), "cold (flushed before each graph)");
  EXPECT_STREQ(l2_text(true, 10), "warm");
}

TEST(CliPlanBench, Defaults) {
  const BenchPlan plan = plan_bench(BenchArgs{});
  std::vector<std::string> dims;
  for (const Problem& p : plan.problems) dims.push_back(p.str());
  EXPECT_EQ(dims, (std::vector<std::string>{"4096x4096x4096 row NN", "8192x8192x8192 row NN",
                                            "4095x4097x4093 row NN"}));
  EXPECT_EQ(plan.dtype.name, "fp32");
  // Auto (the product the library runs) first, then the seven ladder levels.
  ASSERT_EQ(plan.kernels.size(), 8u);
  EXPECT_EQ(plan.kernels.front(), Kernel::Auto);
  EXPECT_EQ(plan.kernels.back(), Kernel::MmaTf32x3);
  EXPECT_FALSE(plan.warm);  // cold is the default
  EXPECT_DOUBLE_EQ(plan.min_time, 0.5);
  EXPECT_EQ(plan.graph_batch, 0);  // events around each launch is the default
  EXPECT_TRUE(plan.csv.empty());
  EXPECT_TRUE(plan.json.empty());
  EXPECT_TRUE(plan.plot.empty());
}

TEST(CliPlanBench, PresetThenShapesThenSizesWithLayout) {
  BenchArgs a;
  a.preset = "tvm-post";
  a.shapes = {"7x8x9", "1x2x3"};
  a.sizes = "64:128:x2";
  a.layout = "col";
  a.trans = "TN";
  a.warm = true;
  a.graph_batch = "0100";
  const BenchPlan plan = plan_bench(a);
  std::vector<std::string> dims;
  for (const Problem& p : plan.problems) dims.push_back(p.str());
  EXPECT_EQ(dims, (std::vector<std::string>{"1024x512x2048 col TN", "7x8x9 col TN", "1x2x3 col TN", "64x64x64 col TN",
                                            "128x128x128 col TN"}));
  EXPECT_TRUE(plan.warm);
  EXPECT_EQ(plan.graph_batch, 100);
}

TEST(CliPlanBench, RejectsEachBadArgument) {
  auto with = [](const std::function<void(BenchArgs&)>& edit) {
    BenchArgs a;
    edit(a);
    return [a] { plan_bench(a); };
  };
  expect_invalid(with([](BenchArgs& a) { a.shapes = {"12x"}; }), "--shape: malformed value '12x'");
  expect_invalid(with([](BenchArgs& a) { a.sizes = "1:2"; }), "--sizes: malformed value '1:2'");
  expect_invalid(with([](BenchArgs& a) { a.preset = "nope"; }), "--preset: unknown preset 'nope'");
  expect_invalid(with([](BenchArgs& a) { a.dtype = "tf64"; }), "--dtype: unsupported value 'tf64'", "fp32");
  expect_invalid(with([](BenchArgs& a) { a.kernels = "8"; }), "--kernels: unknown value '8'");
  expect_invalid(with([](BenchArgs& a) { a.layout = "diag"; }), "--layout: unknown value 'diag'");
  expect_invalid(with([](BenchArgs& a) { a.trans = "NTT"; }), "--trans: unknown value 'NTT'");
  expect_invalid(with([](BenchArgs& a) { a.rasters = {"zigzag"}; }), "--rasters: unknown value 'zigzag'");
  expect_invalid(with([](BenchArgs& a) { a.warm = a.cold = true; }), "--warm: cannot be combined with --cold");
  expect_invalid(with([](BenchArgs& a) { a.min_time = -1; }), "--min-time: invalid value '-1'");
  expect_invalid(with([](BenchArgs& a) { a.min_time = std::numeric_limits<double>::quiet_NaN(); }), "--min-time: invalid value");
  expect_invalid(with([](BenchArgs& a) { a.graph_batch = "-1"; }), "--graph-batch: value '-1' out of range",
                 "0 to 10000");
  expect_invalid(with([](BenchArgs& a) { a.graph_batch = "abc"; }), "--graph-batch: malformed value 'abc'");
  expect_invalid(with([](BenchArgs& a) { a.graph_batch = "10001"; }), "--graph-batch: value '10001' out of range");
  expect_invalid(with([](BenchArgs& a) { a.plot = "out.gif"; }), "--plot: unsupported file type 'out.gif'",
                 ".png or .svg");
  expect_invalid(with([](BenchArgs& a) { a.plot = "png"; }), "--plot: unsupported file type 'png'");
  expect_invalid(with([](BenchArgs& a) { a.csv = "/nonexistent-dir/x.csv"; }),
                 "--csv: cannot write '/nonexistent-dir/x.csv'");
  expect_invalid(with([](BenchArgs& a) { a.json = "/nonexistent-dir/x.json"; }),
                 "--json: cannot write '/nonexistent-dir/x.json'");
  expect_invalid(with([](BenchArgs& a) { a.plot = "/nonexistent-dir/x.png"; }),
                 "--plot (its CSV): cannot write '/nonexistent-dir/x.csv'");
}

TEST(CliPlanBench, ArgumentsAreCheckedBeforeFiles) {
  BenchArgs a;
  a.csv = "/nonexistent-dir/x.csv";
  a.shapes = {"1x2x"};
  expect_invalid([&] { plan_bench(a); }, "--shape:");
  a.shapes.clear();
  a.graph_batch = "x";
  expect_invalid([&] { plan_bench(a); }, "--graph-batch: malformed value 'x'");
  a.graph_batch = "0";
  a.plot = "x.gif";
  expect_invalid([&] { plan_bench(a); }, "--plot: unsupported file type");
}

TEST_F(CliFiles, PlanBenchOutputs) {
  BenchArgs a;
  a.plot = path("sweep.png");
  BenchPlan plan = plan_bench(a);
  EXPECT_EQ(plan.plot, path("sweep.png"));
  EXPECT_EQ(plan.csv, path("sweep.csv"));  // the plot's CSV sits next to it
  EXPECT_TRUE(fs::is_empty(dir)) << "probing must not leave files behind";

  a.csv = path("mine.csv");
  a.json = path("mine.json");
  a.plot = path("sweep.SVG");
  plan = plan_bench(a);
  EXPECT_EQ(plan.csv, path("mine.csv"));
  EXPECT_EQ(plan.json, path("mine.json"));
  EXPECT_TRUE(fs::is_empty(dir));

  a.json = path("mine.csv");
  expect_invalid([&] { plan_bench(a); }, "--json: '" + path("mine.csv") + "' is the same file as --csv");
  a.json.clear();
  a.csv = path("./sweep.SVG");
  expect_invalid([&] { plan_bench(a); }, "--plot: '" + path("sweep.SVG") + "' is the same file as --csv");
  a.csv = path("sub/../x.csv");  // no such directory 'sub': still not writable
  expect_invalid([&] { plan_bench(a); }, "--csv: cannot write");
  a.csv = dir.string();
  expect_invalid([&] { plan_bench(a); }, "--csv: '" + dir.string() + "' is a directory");
}

TEST_F(CliFiles, ProbeKeepsExistingFiles) {
  const std::string f = path("old.csv");
  std::ofstream(f) << "precious\n";
  probe_writable(f, "--csv");
  EXPECT_EQ(read_file(f), "precious\n");
  probe_writable(path("new.json"), "--json");
  EXPECT_FALSE(fs::exists(path("new.json")));
  expect_invalid([] { probe_writable("", "--json"); }, "--json: empty file name");
}

TEST(CliPlanCheck, DefaultsAndErrors) {
  const CheckPlan plan = plan_check(CheckArgs{});
  EXPECT_EQ(plan.problems.size(), preset_shapes("small").size());
  EXPECT_EQ(plan.dtype.name, "fp32");
  CheckArgs a;
  a.preset = "";
  a.shapes = {"5x6x7"};
  a.layout = "col";
  const CheckPlan one = plan_check(a);
  ASSERT_EQ(one.problems.size(), 1u);
  EXPECT_EQ(one.problems[0].str(), "5x6x7 col NN");
  a.shapes.clear();
  expect_invalid([&] { plan_check(a); }, "--preset: no shapes to check");
  a.shapes = {"5x6x7"};
  a.dtype = "tf64";
  expect_invalid([&] { plan_check(a); }, "--dtype: unsupported value 'tf64'");
}

TEST(CliFits, RejectsShapesLargerThanTheDevice) {
  const double gib = 1073741824.0;
  EXPECT_NO_THROW(check_fits({cube(4096), cube(16384)}, 2, 100e6, 80 * gib, "GPU"));
  // 65536^3: A, B and two C of 16 GiB each.
  EXPECT_DOUBLE_EQ(problem_bytes(cube(65536), 2), 64 * gib);
  expect_invalid([&] { check_fits({cube(4096), cube(65536)}, 2, 0, 60 * gib, "Test GPU"); },
                 "shape 65536x65536x65536 row NN needs 64.0 GiB of device memory; Test GPU has 60.0 GiB");
  // The largest accepted dimensions must not overflow while computing the size.
  Problem huge;
  huge.m = huge.n = huge.k = kMaxDim;
  EXPECT_GT(problem_bytes(huge, 2), 1e19);
  expect_invalid([&] { check_fits({huge}, 2, 0, 80 * gib, "GPU"); }, "shape 2147483647x");
}

// --- report ---------------------------------------------------------------------------------------

DeviceInfo fake_h100() {
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.sm_clock_khz = 1980000;
  d.mem_clock_khz = 2619000;
  d.mem_bus_width_bits = 5120;
  d.global_mem_bytes = size_t(85) << 30;
  d.l2_bytes = 50 << 20;
  d.driver_version = 13000;
  d.runtime_version = 12090;
  return d;
}

std::vector<Row> sample_rows() {
  std::vector<Row> rows;
  Row base;
  base.what = parse_shape("4096x4096x4096");
  base.kernel = "cublas";
  base.baseline = true;
  base.status = "ok";
  base.t = {2.5, 2.4, 2.75, 200};
  base.tflops = 54.975581;
  base.ratio = 1.0;
  base.peak_pct = 82.1;
  base.tol = 0.0039;
  rows.push_back(base);
  Row k = base;
  k.kernel = "auto";
  k.config = "tiled:128x256x32:w64x64:t16x8:s4:b1:k1:hilbert";
  k.baseline = false;
  k.t = {2.0, 1.9, 2.1, 250};
  k.ratio = 1.25;
  k.max_err = 1.5e-5;
  rows.push_back(k);
  Row bad = base;
  bad.kernel = "01-naive";
  bad.baseline = false;
  bad.status = "FAILED: \"bad\", max |C - cuBLAS| = 1 > tolerance 0.0039";
  bad.t = {};
  bad.ratio.reset();
  bad.max_err = 1.0;
  rows.push_back(bad);
  Row skipped = base;
  skipped.kernel = "gemv-cols:s1:l8:k4";
  skipped.baseline = false;
  skipped.status = "skipped: a GEMV config needs M or N <= 16";
  skipped.t = {};
  skipped.ratio.reset();
  rows.push_back(skipped);
  Row graph = k;  // timed with --graph-batch 100
  graph.kernel = "04-register-tiled";
  graph.t = {0.005, 0.004, 0.006, 40, 100};
  rows.push_back(graph);
  return rows;
}

TEST_F(CliFiles, CsvWriterRoundTrip) {
  const std::string f = path("bench.csv");
  write_csv(f, sample_rows(), "NVIDIA H100 80GB HBM3", gemm_report());
  const std::vector<std::string> lines = lines_of(read_file(f));
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[0], csv_header(gemm_report()));
  const std::vector<std::string> head = split_csv_line(lines[0]);
  ASSERT_EQ(head.size(), 24u);
  EXPECT_EQ(head[0], "device");
  auto col = [&](const std::vector<std::string>& cells, const std::string& name) {
    for (size_t i = 0; i < head.size(); ++i)
      if (head[i] == name) return cells.at(i);
    ADD_FAILURE() << "no column " << name;
    return std::string();
  };
  const std::vector<std::string> r0 = split_csv_line(lines[1]), r1 = split_csv_line(lines[2]),
                                   r2 = split_csv_line(lines[3]), r3 = split_csv_line(lines[4]),
                                   r4 = split_csv_line(lines[5]);
  for (const auto& r : {r0, r1, r2, r3, r4}) ASSERT_EQ(r.size(), head.size());
  EXPECT_EQ(col(r0, "device"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(col(r0, "m"), "4096");
  EXPECT_EQ(col(r0, "layout"), "row");
  EXPECT_EQ(col(r0, "trans"), "NN");
  EXPECT_EQ(col(r0, "dtype"), "fp32");
  EXPECT_EQ(col(r0, "kernel"), "cublas");
  EXPECT_EQ(col(r0, "status"), "ok");
  EXPECT_DOUBLE_EQ(std::stod(col(r0, "median_ms")), 2.5);
  EXPECT_DOUBLE_EQ(std::stod(col(r0, "max_ms")), 2.75);
  EXPECT_EQ(col(r0, "reps"), "200");
  EXPECT_NEAR(std::stod(col(r0, "tflops")), 54.975581, 1e-4);
  EXPECT_EQ(col(r0, "max_abs_err"), "");  // cuBLAS is not compared with itself
  EXPECT_DOUBLE_EQ(std::stod(col(r1, "ratio_vs_cublas")), 1.25);
  EXPECT_DOUBLE_EQ(std::stod(col(r1, "max_abs_err")), 1.5e-5);
  EXPECT_EQ(col(r2, "status"), "FAILED: \"bad\", max |C - cuBLAS| = 1 > tolerance 0.0039");
  EXPECT_EQ(col(r2, "median_ms"), "");  // a failed kernel gets no time
  EXPECT_EQ(col(r2, "tflops"), "");
  EXPECT_DOUBLE_EQ(std::stod(col(r2, "max_abs_err")), 1.0);
  EXPECT_EQ(col(r3, "kernel"), "gemv-cols:s1:l8:k4");
  EXPECT_EQ(col(r1, "config"), "tiled:128x256x32:w64x64:t16x8:s4:b1:k1:hilbert");
  EXPECT_EQ(col(r0, "config"), "");
  EXPECT_EQ(col(r0, "ld"), "+0");
  EXPECT_EQ(col(r0, "offset"), "0");
  EXPECT_EQ(col(r0, "epilogue"), "none");
  EXPECT_EQ(col(r3, "ratio_vs_cublas"), "");
  EXPECT_DOUBLE_EQ(std::stod(col(r3, "tolerance")), 0.0039);
  // How each ok row was timed; no time, no method.
  EXPECT_EQ(head.back(), "timing");
  EXPECT_EQ(col(r0, "timing"), "events");
  EXPECT_EQ(col(r2, "timing"), "");
  EXPECT_EQ(col(r3, "timing"), "");
  EXPECT_EQ(col(r4, "timing"), "graph:100");
  EXPECT_DOUBLE_EQ(std::stod(col(r4, "median_ms")), 0.005);
  EXPECT_EQ(col(r4, "reps"), "40");

  // Rewritten, not appended, as the bench does after every shape.
  write_csv(f, {sample_rows()[0]}, "GPU", gemm_report());
  EXPECT_EQ(lines_of(read_file(f)).size(), 2u);
  expect_invalid([&] { write_csv(path("no/such/dir.csv"), sample_rows(), "GPU", gemm_report(), "--csv"); }, "--csv: cannot write");
}

TEST_F(CliFiles, JsonWriterRoundTrip) {
  RunInfo run;
  run.device = fake_h100();
  run.build = build_info();
  run.argv = {"tilegemm", "bench", "--preset", "ladder", "--json", "my results.json"};
  run.date_utc = utc_iso8601(1700000000);
  run.min_time_s = 0.25;
  run.flush_bytes = 2.0 * run.device.l2_bytes;
  run.format = &gemm_report();
  const std::string f = path("bench.json");
  write_json(f, run, sample_rows());
  const nlohmann::json j = nlohmann::json::parse(read_file(f));

  const nlohmann::json& h = j.at("header");
  EXPECT_EQ(h.at("date_utc"), "2023-11-14T22:13:20Z");
  EXPECT_EQ(h.at("command_line"), "tilegemm bench --preset ladder --json 'my results.json'");
  EXPECT_EQ(h.at("argv").size(), 6u);
  const nlohmann::json& d = h.at("device");
  EXPECT_EQ(d.at("name"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d.at("compute_capability"), "9.0");
  EXPECT_EQ(d.at("sm_count"), 132);
  EXPECT_DOUBLE_EQ(d.at("max_sm_clock_mhz").get<double>(), 1980.0);
  EXPECT_DOUBLE_EQ(d.at("memory_clock_mhz").get<double>(), 2619.0);
  EXPECT_EQ(d.at("l2_bytes"), 50 << 20);
  EXPECT_NEAR(d.at("fp32_peak_tflops").get<double>(), 132 * 256 * 1.98e9 / 1e12, 1e-9);
  EXPECT_NEAR(d.at("tf32_peak_tflops").get<double>(), 132 * 2048 * 1.98e9 / 1e12, 1e-9);
  EXPECT_NEAR(d.at("bf16_peak_tflops").get<double>(), 132 * 4096 * 1.98e9 / 1e12, 1e-9);
  EXPECT_EQ(h.at("driver_version"), "13.0");
  EXPECT_EQ(h.at("runtime_version"), "12.9");
  const nlohmann::json& b = h.at("build");
  EXPECT_EQ(b.at("version"), TILEGEMM_EXPECTED_VERSION);
  EXPECT_EQ(b.at("archs").get<std::vector<std::string>>(), compiled_archs());
  EXPECT_FALSE(b.at("cxx_compiler").get<std::string>().empty());
  EXPECT_FALSE(b.at("cuda_compiler").get<std::string>().empty());
  const nlohmann::json& m = h.at("method");
  EXPECT_EQ(m.at("l2"), "cold");
  EXPECT_EQ(m.at("dtype"), "fp32");
  EXPECT_DOUBLE_EQ(m.at("min_time_s").get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(m.at("l2_flush_bytes").get<double>(), 100.0 * 1048576);
  EXPECT_EQ(m.at("min_reps"), kMinReps);
  EXPECT_EQ(m.at("timing"), "events per launch");
  EXPECT_EQ(m.at("graph_batch"), 0);
  EXPECT_EQ(m.at("statistic"), "median of per-run CUDA event times");
  EXPECT_FALSE(m.contains("l2_note"));
  EXPECT_EQ(m.at("baseline"), "cuBLAS cublasGemmEx, CUBLAS_COMPUTE_32F_PEDANTIC");  // the format's method
  EXPECT_EQ(h.at("tool"), "tilegemm bench");
  EXPECT_EQ(h.at("interrupted"), false);

  const nlohmann::json& rows = j.at("rows");
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].at("kernel"), "cublas");
  EXPECT_EQ(rows[0].at("baseline"), true);
  EXPECT_EQ(rows[0].at("m"), 4096);
  EXPECT_EQ(rows[0].at("trans"), "NN");
  EXPECT_DOUBLE_EQ(rows[0].at("median_ms").get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(rows[0].at("min_ms").get<double>(), 2.4);
  EXPECT_EQ(rows[0].at("reps"), 200);
  EXPECT_TRUE(rows[0].at("max_abs_err").is_null());
  EXPECT_DOUBLE_EQ(rows[1].at("ratio_vs_cublas").get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(rows[1].at("max_abs_err").get<double>(), 1.5e-5);
  EXPECT_EQ(rows[2].at("status"), "FAILED: \"bad\", max |C - cuBLAS| = 1 > tolerance 0.0039");
  EXPECT_TRUE(rows[2].at("median_ms").is_null());
  EXPECT_TRUE(rows[2].at("tflops").is_null());
  EXPECT_TRUE(rows[3].at("ratio_vs_cublas").is_null());
  EXPECT_DOUBLE_EQ(rows[3].at("tolerance").get<double>(), 0.0039);

  run.warm = true;
  run.interrupted = true;
  run.device.cc_major = 7;  // no tensor-core entry: null, not 0
  run.device.cc_minor = 5;
  const nlohmann::json j2 = bench_json(run, {});
  EXPECT_EQ(j2.at("header").at("method").at("l2"), "warm");
  EXPECT_EQ(j2.at("header").at("interrupted"), true);
  EXPECT_TRUE(j2.at("header").at("device").at("tf32_peak_tflops").is_null());
  EXPECT_TRUE(j2.at("rows").is_array());
  EXPECT_TRUE(j2.at("rows").empty());
  expect_invalid([&] { write_json(path("no/such/dir.json"), run, {}); }, "--json: cannot write");

  // --graph-batch: the method says so, and that the L2 is warm after each graph's first launch.
  run.warm = false;
  run.graph_batch = 100;
  const nlohmann::json j3 = bench_json(run, {});
  const nlohmann::json& g = j3.at("header").at("method");
  EXPECT_EQ(g.at("timing"), "CUDA graph of 100 launches (per-launch time, warm L2 after the first)");
  EXPECT_EQ(g.at("graph_batch"), 100);
  EXPECT_EQ(g.at("l2"), "cold");
  EXPECT_NE(g.at("statistic").get<std::string>().find("divided by 100"), std::string::npos) << g.at("statistic");
  EXPECT_NE(g.at("l2_note").get<std::string>().find("only the first launch can start cold"), std::string::npos)
      << g.at("l2_note");
}

TEST(CliReport, TimeAndCommandLine) {
  EXPECT_EQ(utc_iso8601(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(utc_iso8601(1700000000), "2023-11-14T22:13:20Z");
  EXPECT_EQ(shell_join({"tilegemm", "bench", "--shape", "1x2x3", "--csv", "my file.csv", "it's", ""}),
            "tilegemm bench --shape 1x2x3 --csv 'my file.csv' 'it'\\''s' ''");
  EXPECT_EQ(cuda_version_text(12090), "12.9");
  EXPECT_EQ(cuda_version_text(13000), "13.0");
  EXPECT_EQ(build_info().version, TILEGEMM_EXPECTED_VERSION);
}

// --- peaks ----------------------------------------------------------------------------------------

TEST(CliPeaks, TensorCoreTable) {
  EXPECT_EQ(tensor_flop_per_clk_per_sm(9, 0).tf32, 2048);
  EXPECT_EQ(tensor_flop_per_clk_per_sm(9, 0).bf16, 4096);
  EXPECT_EQ(tensor_flop_per_clk_per_sm(8, 0).tf32, 1024);
  EXPECT_EQ(tensor_flop_per_clk_per_sm(8, 0).bf16, 2048);
  for (int minor : {6, 9}) {
    EXPECT_EQ(tensor_flop_per_clk_per_sm(8, minor).tf32, 512);
    EXPECT_EQ(tensor_flop_per_clk_per_sm(8, minor).bf16, 1024);
  }
  EXPECT_EQ(tensor_flop_per_clk_per_sm(7, 5).tf32, 0);
  EXPECT_EQ(tensor_flop_per_clk_per_sm(8, 7).bf16, 0);
  EXPECT_EQ(tensor_flop_per_clk_per_sm(10, 0).tf32, 0);
}

TEST(CliPeaks, FromSmsAndMaxClock) {
  const DeviceInfo d = fake_h100();
  EXPECT_NEAR(peak_tflops(d, 2048), 535.26, 0.01);   // H100 SXM TF32 dense at 1980 MHz
  EXPECT_NEAR(peak_tflops(d, 4096), 1070.53, 0.01);  // BF16
  EXPECT_EQ(peak_tflops(d, 0), 0.0);
}

// --- plot -----------------------------------------------------------------------------------------

TEST(CliPlot, PathChecks) {
  EXPECT_NO_THROW(check_plot_path("a.png"));
  EXPECT_NO_THROW(check_plot_path("dir.d/a.SVG"));
  for (const char* bad : {"a.gif", "a", "png", "a.png.txt", "a.pdf"}) {
    SCOPED_TRACE(bad);
    expect_invalid([&] { check_plot_path(bad); }, std::string("--plot: unsupported file type '") + bad + "'");
  }
  EXPECT_EQ(plot_csv_path("out/sweep.png"), "out/sweep.csv");
  EXPECT_EQ(plot_csv_path("sweep.svg"), "sweep.csv");
}

TEST_F(CliFiles, FindsThePlotScript) {
  fs::create_directories(dir / "build");
  fs::create_directories(dir / "bench");
  const std::string exe = path("build/tilegemm");
  expect_invalid([&] { find_plot_script(exe, nullptr); }, "--plot: the plotting script is not at",
                 "TILEGEMM_PLOT_SCRIPT");
  std::ofstream(path("bench/plot_gflops.py")) << "# fake\n";
  EXPECT_EQ(fs::path(find_plot_script(exe, nullptr)), dir / "bench" / "plot_gflops.py");
  EXPECT_EQ(fs::path(find_plot_script(exe, "")), dir / "bench" / "plot_gflops.py");  // empty: unset
  std::ofstream(path("other.py")) << "# fake\n";
  EXPECT_EQ(find_plot_script(exe, path("other.py").c_str()), path("other.py"));
  expect_invalid([&] { find_plot_script(exe, path("missing.py").c_str()); }, "--plot: TILEGEMM_PLOT_SCRIPT names");
  EXPECT_FALSE(current_executable("x").empty());
}

TEST_F(CliFiles, RunsThePlotScript) {
  if (std::system("python3 -c pass >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string hint = "matplotlib is missing: pip install matplotlib (or apt-get install python3-matplotlib)";
  auto script = [&](const std::string& name, const std::string& body) {
    std::ofstream(path(name)) << "import sys\n" << body;
    return path(name);
  };
  // Success: the script sees CSV and OUT as its arguments; its output comes back.
  const std::string ok = script("ok.py", "print('args', sys.argv[1], sys.argv[2])\n");
  EXPECT_EQ(run_plot_script(ok, "in file.csv", "out.png"), "args in file.csv out.png\n");
  // Exit 3: the script's own line (the install hint) is the error message.
  const std::string nomp = script("nomp.py", "print('noise')\nprint('" + hint + "', file=sys.stderr)\nsys.exit(3)\n");
  try {
    run_plot_script(nomp, "a.csv", "b.png");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), hint);
  }
  // Any other failure names the script, the status and its last line.
  const std::string broken = script("broken.py", "print('first')\nprint('it broke')\nsys.exit(5)\n");
  try {
    run_plot_script(broken, "a.csv", "b.png");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--plot: " + broken + " failed (exit status 5): it broke"), std::string::npos) << what;
  }
}

// The real script on the real CSV writer's output: the two must agree on the format.
TEST_F(CliFiles, PlotScriptDrawsTheCsvWriterOutput) {
  if (std::system("python3 -c pass >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string script = std::string(TILEGEMM_SOURCE_DIR) + "/bench/plot_gflops.py";
  std::vector<Row> rows;
  for (int64_t s : {256, 512, 1024})
    for (Row r : sample_rows()) {
      r.what = cube(s);
      rows.push_back(r);
    }
  write_csv(path("bench.csv"), rows, "Test GPU", gemm_report());
  try {
    const std::string said = run_plot_script(script, path("bench.csv"), path("plot.svg"));
    EXPECT_NE(said.find("wrote"), std::string::npos) << said;
    EXPECT_NE(read_file(path("plot.svg")).find("<svg"), std::string::npos);
  } catch (const Error& e) {
    if (std::string(e.what()).rfind("matplotlib is missing: ", 0) == 0) GTEST_SKIP() << e.what();
    FAIL() << e.what();
  }
}


// --- the sparse bench (bench --sparse) ------------------------------------------------------------

TEST(CliSparseParse, Blocks) {
  EXPECT_EQ(parse_block("32").rows, 32);
  EXPECT_EQ(parse_block("32").cols, 32);
  EXPECT_EQ(parse_block("16x32").rows, 16);
  EXPECT_EQ(parse_block("16x32").cols, 32);
  EXPECT_EQ(parse_block("001x8").rows, 1);
  for (const char* bad : {"16x", "x16", "1x2x3", "-1", "abc", "", "16X16", "8 ", "1.5"}) {
    SCOPED_TRACE(bad);
    expect_invalid([&] { parse_block(bad); }, std::string("--block: malformed value '") + bad + "'", "RxC");
  }
  for (const char* bad : {"0", "0x16", "16x0", "2147483648", "99999999999999999999"}) {
    SCOPED_TRACE(bad);
    expect_invalid([&] { parse_block(bad); }, std::string("--block: value '") + bad + "' out of range");
  }
}

TEST(CliSparseParse, Sparsity) {
  EXPECT_DOUBLE_EQ(parse_sparsity("0"), 0.0);
  EXPECT_DOUBLE_EQ(parse_sparsity("1"), 1.0);
  EXPECT_DOUBLE_EQ(parse_sparsity("1.0"), 1.0);
  EXPECT_DOUBLE_EQ(parse_sparsity("0.95"), 0.95);
  EXPECT_DOUBLE_EQ(parse_sparsity(".8"), 0.8);
  for (const char* bad : {"1.5", "-0.1", "2", "1.0000001", "-1"}) {
    SCOPED_TRACE(bad);
    expect_invalid([&] { parse_sparsity(bad); }, std::string("--sparsity: value '") + bad + "' out of range",
                   "[0, 1]");
  }
  for (const char* bad : {"abc", "nan", "inf", "1e-1", "", ".", "0.5.1", " 0.5", "0,5", "+0.5", "-"}) {
    SCOPED_TRACE(bad);
    expect_invalid([&] { parse_sparsity(bad); }, std::string("--sparsity: malformed value '") + bad + "'");
  }
}

TEST(CliSparseParse, OpRowsSeed) {
  EXPECT_EQ(parse_sparse_op("xwt"), SparseOp::Xwt);
  EXPECT_EQ(parse_sparse_op("WX"), SparseOp::Wx);
  EXPECT_EQ(op_name(SparseOp::Wx), "wx");
  expect_invalid([] { parse_sparse_op("xw"); }, "--op: unknown value 'xw'", "xwt");
  expect_invalid([] { parse_sparse_op(""); }, "--op: unknown value ''");
  EXPECT_EQ(parse_rows("uniform"), RowDistribution::Uniform);
  EXPECT_EQ(parse_rows("Skewed"), RowDistribution::Skewed);
  EXPECT_EQ(rows_name(RowDistribution::Skewed), "skewed");
  expect_invalid([] { parse_rows("zipf"); }, "--rows: unknown value 'zipf'", "uniform or skewed");
  EXPECT_EQ(parse_seed("0"), 0u);
  EXPECT_EQ(parse_seed("18446744073709551615"), 18446744073709551615ull);
  for (const char* bad : {"-1", "", "1.5", "0x10", " 1"}) {
    SCOPED_TRACE(bad);
    expect_invalid([&] { parse_seed(bad); }, std::string("--seed: malformed value '") + bad + "'");
  }
  expect_invalid([] { parse_seed("18446744073709551616"); }, "--seed: value '18446744073709551616' out of range");
}

TEST(CliSparseParse, KernelLists) {
  EXPECT_EQ(parse_bsr_kernel_list("all"),
            (std::vector<BsrKernel>{BsrKernel::Reduction, BsrKernel::SmallM, BsrKernel::Tiled,
                                    BsrKernel::TiledTf32x3}));
  EXPECT_EQ(parse_bsr_kernel_list(kDefaultSparseKernels),
            (std::vector<BsrKernel>{BsrKernel::Auto, BsrKernel::Tiled, BsrKernel::TiledTf32x3}));
  EXPECT_EQ(parse_bsr_kernel_list("4,04-tiled-tf32x3,tiled-tf32x3,04"), (std::vector<BsrKernel>{BsrKernel::TiledTf32x3}));
  EXPECT_EQ(parse_bsr_kernel_list("tiled,3,03-tiled,small-m,1"),
            (std::vector<BsrKernel>{BsrKernel::Tiled, BsrKernel::SmallM, BsrKernel::Reduction}));
  EXPECT_EQ(parse_bsr_kernel_list("auto,all").size(), 5u);
  for (const char* bad : {"6", "naive", "5", "tiled,x", "tf32"}) {
    SCOPED_TRACE(bad);
    expect_invalid([&] { parse_bsr_kernel_list(bad); }, "--kernels: unknown value", "reduction, small-m, tiled");
  }
  expect_invalid([] { parse_bsr_kernel_list(""); }, "--kernels: empty list");
  expect_invalid([] { parse_bsr_kernel_list(",,"); }, "--kernels: empty list");
}

TEST(CliSparsePreset, SeedSparse) {
  const std::vector<SparseProblem> p = sparse_preset_problems("seed-sparse");
  ASSERT_EQ(p.size(), 4u * 3u * 3u);
  // (m, k, n) = (1, 128, 768) first: W is n x k = 768 x 128 for xwt.
  EXPECT_EQ(p[0].op, SparseOp::Xwt);
  EXPECT_EQ(p[0].m, 1);
  EXPECT_EQ(p[0].k, 128);
  EXPECT_EQ(p[0].n, 768);
  EXPECT_EQ(p[0].w_rows(), 768);
  EXPECT_EQ(p[0].batch(), 1);
  EXPECT_EQ(p[0].block_rows, 8);
  EXPECT_EQ(p[0].block_cols, 8);
  EXPECT_DOUBLE_EQ(p[0].sparsity, 0.80);
  EXPECT_EQ(p[0].str(), "xwt m=1 k=128 n=768 block 8x8 sparsity 0.8 uniform");
  EXPECT_EQ(p.back().str(), "xwt m=8 k=1024 n=1024 block 32x32 sparsity 0.95 uniform");
  for (const SparseProblem& q : p) {
    EXPECT_EQ(q.rows, RowDistribution::Uniform);
    EXPECT_EQ(q.w_rows() % q.block_rows, 0);
    EXPECT_EQ(q.k % q.block_cols, 0);
  }
}

TEST(CliSparsePreset, TransformerSparseAndOps) {
  const std::vector<SparseProblem> p = sparse_preset_problems("transformer-sparse");
  ASSERT_EQ(p.size(), 3u * 3u * 4u * 2u);
  int skewed = 0;
  for (const SparseProblem& q : p) skewed += q.rows == RowDistribution::Skewed;
  EXPECT_EQ(skewed, 36);
  EXPECT_EQ(p[0].str(), "xwt m=4096 k=768 n=3072 block 16x16 sparsity 0.8 uniform");
  EXPECT_EQ(p[1].str(), "xwt m=4096 k=768 n=3072 block 16x16 sparsity 0.8 skewed");
  EXPECT_EQ(p.back().str(), "xwt m=8192 k=8192 n=8192 block 64x64 sparsity 0.99 skewed");
  // wx: the same layers in cuSPARSE's orientation, Y^T = W X^T: M = n, N = m, the same W (n x k).
  for (const std::string& name : sparse_preset_names()) {
    const std::vector<SparseProblem> x = sparse_preset_problems(name, SparseOp::Xwt);
    const std::vector<SparseProblem> w = sparse_preset_problems(name, SparseOp::Wx);
    ASSERT_EQ(w.size(), x.size());
    for (size_t i = 0; i < w.size(); ++i) {
      EXPECT_EQ(w[i].op, SparseOp::Wx);
      EXPECT_EQ(w[i].m, x[i].n);
      EXPECT_EQ(w[i].n, x[i].m);
      EXPECT_EQ(w[i].k, x[i].k);
      EXPECT_EQ(w[i].w_rows(), x[i].w_rows());
      EXPECT_EQ(w[i].batch(), x[i].batch());
      EXPECT_EQ(w[i].expected_nnzb(), x[i].expected_nnzb());
      EXPECT_EQ(w[i].w_rows() % w[i].block_rows, 0) << w[i].str();
    }
  }
  const SparseProblem w0 = sparse_preset_problems("transformer-sparse", SparseOp::Wx)[0];
  EXPECT_EQ(w0.str(), "wx m=3072 k=768 n=4096 block 16x16 sparsity 0.8 uniform");
  EXPECT_EQ(w0.size_x(), 768 * 4096);
  for (const std::string& name : sparse_preset_names()) EXPECT_FALSE(sparse_preset_problems(name).empty());
  expect_invalid([] { sparse_preset_problems("nope"); }, "--preset: unknown sparse preset 'nope'",
                 "seed-sparse or transformer-sparse");
  expect_invalid([] { sparse_preset_problems("ladder"); }, "--preset: 'ladder' is a dense preset");
  expect_invalid([] { preset_shapes("seed-sparse"); }, "--preset: 'seed-sparse' is a sparse preset: add --sparse");
}

TEST(CliSparseProblem, CountsMatchTheGenerator) {
  SparseProblem p;
  p.m = 8;
  p.n = 96;
  p.k = 64;
  p.block_rows = 16;
  p.block_cols = 8;
  for (double s : {0.0, 0.5, 0.8, 0.95, 0.99, 1.0})
    for (RowDistribution r : {RowDistribution::Uniform, RowDistribution::Skewed}) {
      p.sparsity = s;
      p.rows = r;
      SCOPED_TRACE(p.str());
      EXPECT_EQ(p.total_blocks(), 6 * 8);
      const BsrMatrix w = generate_bsr(p.w_rows(), p.w_cols(), p.block_rows, p.block_cols, p.sparsity, p.rows, 7);
      EXPECT_EQ(w.nnzb(), p.expected_nnzb());
      EXPECT_DOUBLE_EQ(useful_flops(p, w.nnzb()), 2.0 * 8 * w.nnzb() * 16 * 8);
    }
  p.op = SparseOp::Wx;  // W is m x k now; the batch is n
  p.m = 32;
  EXPECT_EQ(p.w_rows(), 32);
  EXPECT_EQ(p.batch(), 96);
  EXPECT_EQ(p.size_x(), 64 * 96);
  EXPECT_EQ(p.size_y(), 32 * 96);
}

TEST(CliSparseProblem, SeedsAreDeterministicPerProblem) {
  const std::vector<SparseProblem> p = sparse_preset_problems("seed-sparse");
  EXPECT_EQ(sparse_w_seed(1, p[0]), sparse_w_seed(1, p[0]));
  EXPECT_NE(sparse_w_seed(1, p[0]), sparse_w_seed(2, p[0]));
  EXPECT_NE(sparse_w_seed(1, p[0]), sparse_w_seed(1, p[1]));
  EXPECT_NE(sparse_w_seed(1, p[0]), sparse_x_seed(1, p[0]));
  // The same problem from --shape gets the same data as from the preset.
  SparseBenchArgs a;
  a.shapes = {"1x768x128"};
  a.blocks = {"8"};
  a.sparsities = {"0.80"};
  const SparseBenchPlan plan = plan_sparse_bench(a);
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0].str(), p[0].str());
  EXPECT_EQ(sparse_w_seed(1, plan.problems[0]), sparse_w_seed(1, p[0]));
}

TEST(CliSparseProblem, ReductionIsSkippedOnBigProblems) {
  SparseProblem p = sparse_preset_problems("transformer-sparse")[0];  // 4096 x 768 x 3072, 16x16, 0.8
  const int64_t nnzb = p.expected_nnzb();
  EXPECT_GT(useful_flops(p, nnzb), kReductionMaxFlops);
  const std::string why = sparse_kernel_skip_reason(BsrKernel::Reduction, p, nnzb);
  EXPECT_NE(why.find("01-reduction is the reference kernel"), std::string::npos) << why;
  EXPECT_EQ(sparse_kernel_skip_reason(BsrKernel::Tiled, p, nnzb), "");
  EXPECT_EQ(sparse_kernel_skip_reason(BsrKernel::SmallM, p, nnzb), "");
  EXPECT_EQ(sparse_kernel_skip_reason(BsrKernel::Auto, p, nnzb), "");
  for (const SparseProblem& q : sparse_preset_problems("seed-sparse"))
    EXPECT_EQ(sparse_kernel_skip_reason(BsrKernel::Reduction, q, q.expected_nnzb()), "") << q.str();
}

TEST(CliPlanSparse, Defaults) {
  const SparseBenchPlan plan = plan_sparse_bench(SparseBenchArgs{});
  EXPECT_EQ(plan.problems.size(), sparse_preset_problems("seed-sparse").size());
  EXPECT_EQ(plan.kernels, (std::vector<BsrKernel>{BsrKernel::Auto, BsrKernel::Tiled, BsrKernel::TiledTf32x3}));
  EXPECT_EQ(plan.seed, 1u);
  EXPECT_EQ(plan.dtype.name, "fp32");
  EXPECT_FALSE(plan.warm);
  EXPECT_DOUBLE_EQ(plan.min_time, 0.5);
  EXPECT_EQ(plan.graph_batch, 0);
  EXPECT_TRUE(plan.csv.empty());
  EXPECT_TRUE(plan.json.empty());
}

TEST(CliPlanSparse, PresetThenTheShapeGrid) {
  SparseBenchArgs a;
  a.preset = "seed-sparse";
  a.op = "wx";
  a.shapes = {"64x32x128", "32x16x64"};
  a.blocks = {"16", "16x32"};
  a.sparsities = {"0.5", "0.9"};
  a.rows = {"uniform", "skewed", "uniform"};
  a.kernels = "all";
  a.seed = "42";
  a.warm = true;
  a.graph_batch = "100";
  const SparseBenchPlan plan = plan_sparse_bench(a);
  ASSERT_EQ(plan.problems.size(), 36u + 2u * 2u * 2u * 2u);
  EXPECT_EQ(plan.problems[0].op, SparseOp::Wx);
  std::vector<std::string> grid;
  for (size_t i = 36; i < plan.problems.size(); ++i) grid.push_back(plan.problems[i].str());
  EXPECT_EQ(grid[0], "wx m=64 k=128 n=32 block 16x16 sparsity 0.5 uniform");
  EXPECT_EQ(grid[1], "wx m=64 k=128 n=32 block 16x16 sparsity 0.5 skewed");
  EXPECT_EQ(grid[2], "wx m=64 k=128 n=32 block 16x16 sparsity 0.9 uniform");
  EXPECT_EQ(grid[4], "wx m=64 k=128 n=32 block 16x32 sparsity 0.5 uniform");
  EXPECT_EQ(grid[8], "wx m=32 k=64 n=16 block 16x16 sparsity 0.5 uniform");
  EXPECT_EQ(plan.kernels.size(), 4u);
  EXPECT_EQ(plan.seed, 42u);
  EXPECT_TRUE(plan.warm);
  EXPECT_EQ(plan.graph_batch, 100);
}

TEST(CliPlanSparse, RejectsEachBadArgument) {
  auto with = [](const std::function<void(SparseBenchArgs&)>& edit) {
    SparseBenchArgs a;
    a.shapes = {"8x768x128"};
    edit(a);
    return [a] { plan_sparse_bench(a); };
  };
  expect_invalid(with([](SparseBenchArgs& a) { a.preset = "nope"; }), "--preset: unknown sparse preset 'nope'");
  expect_invalid(with([](SparseBenchArgs& a) { a.preset = "textbook"; }), "--preset: 'textbook' is a dense preset");
  expect_invalid(with([](SparseBenchArgs& a) { a.shapes = {"12x"}; }), "--shape: malformed value '12x'");
  expect_invalid(with([](SparseBenchArgs& a) { a.shapes = {"0x768x128"}; }), "--shape: '0x768x128' has a zero dimension");
  expect_invalid(with([](SparseBenchArgs& a) { a.blocks = {"0"}; }), "--block: value '0' out of range");
  expect_invalid(with([](SparseBenchArgs& a) { a.blocks = {"16x"}; }), "--block: malformed value '16x'");
  expect_invalid(with([](SparseBenchArgs& a) { a.sparsities = {"1.5"}; }), "--sparsity: value '1.5' out of range");
  expect_invalid(with([](SparseBenchArgs& a) { a.sparsities = {"-0.1"}; }), "--sparsity: value '-0.1' out of range");
  expect_invalid(with([](SparseBenchArgs& a) { a.rows = {"zipf"}; }), "--rows: unknown value 'zipf'");
  expect_invalid(with([](SparseBenchArgs& a) { a.op = "xw"; }), "--op: unknown value 'xw'");
  expect_invalid(with([](SparseBenchArgs& a) { a.dtype = "bf16"; }), "--dtype: bench bsr computes fp32 only");
  expect_invalid(with([](SparseBenchArgs& a) { a.dtype = "tf32"; }), "--dtype: bench bsr computes fp32 only");
  expect_invalid(with([](SparseBenchArgs& a) { a.kernels = "6"; }), "--kernels: unknown value '6'");
  expect_invalid(with([](SparseBenchArgs& a) { a.seed = "-3"; }), "--seed: malformed value '-3'");
  expect_invalid(with([](SparseBenchArgs& a) { a.warm = a.cold = true; }), "--warm: cannot be combined with --cold");
  expect_invalid(with([](SparseBenchArgs& a) { a.min_time = -1; }), "--min-time: invalid value '-1'");
  expect_invalid(with([](SparseBenchArgs& a) { a.graph_batch = "-1"; }), "--graph-batch: value '-1' out of range",
                 "0 to 10000");
  expect_invalid(with([](SparseBenchArgs& a) { a.graph_batch = "abc"; }), "--graph-batch: malformed value 'abc'");
  expect_invalid(with([](SparseBenchArgs& a) { a.graph_batch = "10001"; }),
                 "--graph-batch: value '10001' out of range");
  expect_invalid(with([](SparseBenchArgs& a) { a.csv = "/nonexistent-dir/x.csv"; }),
                 "--csv: cannot write '/nonexistent-dir/x.csv'");
  expect_invalid(with([](SparseBenchArgs& a) { a.json = "/nonexistent-dir/x.json"; }),
                 "--json: cannot write '/nonexistent-dir/x.json'");
  expect_invalid(with([](SparseBenchArgs& a) { a.csv = a.json = "same.out"; }), "--json: 'same.out' is the same file");
  // Blocks that do not divide W: xwt's W is N x K, wx's W is M x K.
  expect_invalid(with([](SparseBenchArgs& a) { a.shapes = {"8x100x128"}; a.blocks = {"16"}; }),
                 "--shape: 8x100x128 with --block 16x16: N = 100 is not divisible by the block rows R = 16",
                 "(xwt: W is N x K)");
  expect_invalid(with([](SparseBenchArgs& a) { a.shapes = {"8x768x100"}; a.blocks = {"16x32"}; }),
                 "--shape: 8x768x100 with --block 16x32: K = 100 is not divisible by the block columns C = 32");
  expect_invalid(with([](SparseBenchArgs& a) { a.op = "wx"; a.shapes = {"8x768x128"}; a.blocks = {"16"}; }),
                 "--shape: 8x768x128 with --block 16x16: M = 8 is not divisible by the block rows R = 16",
                 "(wx: W is M x K)");
  expect_invalid(with([](SparseBenchArgs& a) { a.shapes = {"1x65536x65536"}; a.blocks = {"1"}; }),
                 "--shape: 1x65536x65536 with --block 1x1: 4294967296 blocks in W");
  // The grid options need --shape.
  auto preset_only = [](const std::function<void(SparseBenchArgs&)>& edit) {
    SparseBenchArgs a;
    a.preset = "seed-sparse";
    edit(a);
    return [a] { plan_sparse_bench(a); };
  };
  expect_invalid(preset_only([](SparseBenchArgs& a) { a.blocks = {"16"}; }), "--block: applies to --shape problems");
  expect_invalid(preset_only([](SparseBenchArgs& a) { a.sparsities = {"0.5"}; }), "--sparsity: applies to --shape");
  expect_invalid(preset_only([](SparseBenchArgs& a) { a.rows = {"skewed"}; }), "--rows: applies to --shape");
  // --schedules adds the tuner's space, for either product; --config adds BSR configs, checked here.
  EXPECT_NO_THROW(preset_only([](SparseBenchArgs& a) { a.schedules = true; a.op = "wx"; })());
  EXPECT_NO_THROW(preset_only([](SparseBenchArgs& a) { a.schedules = true; })());
  expect_invalid(preset_only([](SparseBenchArgs& a) { a.configs = {"tiled:128x256x32:w64x64:t16x8:s4:b1"}; }),
                 "--config: 'tiled:128x256x32:w64x64:t16x8:s4:b1' is not a BSR config (unknown family 'tiled'");
  expect_invalid(preset_only([](SparseBenchArgs& a) { a.configs = {"bsr-tiled:32x128x16:t4x8:s1"}; }),
                 "--config: 'bsr-tiled:32x128x16:t4x8:s1' is not a BSR config (at least 2 pipeline stages");
  {
    SparseBenchArgs a;
    a.preset = "seed-sparse";
    a.configs = {"BSR-Tiled:32x128x16:t4x8:s4", "bsr-tf32x3:16x64x16:w1x2:s3"};
    const SparseBenchPlan plan = plan_sparse_bench(a);
    EXPECT_EQ(plan.configs, (std::vector<std::string>{"bsr-tiled:32x128x16:t4x8:s4", "bsr-tf32x3:16x64x16:w1x2:s3:jit"}));
  }
}

TEST(CliPlanSparse, ArgumentsAreCheckedBeforeFiles) {
  SparseBenchArgs a;
  a.csv = "/nonexistent-dir/x.csv";
  a.kernels = "9";
  expect_invalid([&] { plan_sparse_bench(a); }, "--kernels:");
  a.kernels = "";
  a.graph_batch = "-5";
  expect_invalid([&] { plan_sparse_bench(a); }, "--graph-batch: value '-5' out of range");
}

TEST(CliSparseFits, RejectsProblemsLargerThanTheDevice) {
  const double gib = 1073741824.0;
  SparseProblem p;
  p.m = 4;
  p.n = 32;
  p.k = 16;
  p.block_rows = p.block_cols = 8;  // 4 x 2 blocks
  p.sparsity = 0.5;                 // 4 stored
  // X 4x16, W dense 32x16, Y and Y_ref 4x32; 4 blocks of 64 + their indices; index pointer and order.
  EXPECT_DOUBLE_EQ(sparse_problem_bytes(p), 4.0 * (64 + 512 + 256) + 4 * (256.0 + 4) + 4.0 * (2 * 4 + 1));
  const std::vector<SparseProblem> tr = sparse_preset_problems("transformer-sparse");
  EXPECT_NO_THROW(check_sparse_fits(tr, 100e6, 80 * gib, "GPU"));
  // 8192^3: X, dense W and two Y of 0.25 GiB each, plus the BSR W (20 % of 0.25 GiB and its indices).
  expect_invalid([&] { check_sparse_fits(tr, 0, 1 * gib, "Small GPU"); },
                 "problem xwt m=8192 k=8192 n=8192 block 16x16 sparsity 0.8 uniform needs 1.1 GiB",
                 "Small GPU has 1.0 GiB");
  SparseProblem huge = p;
  huge.m = huge.n = huge.k = kMaxDim;
  huge.block_rows = huge.block_cols = 1;
  EXPECT_GT(sparse_problem_bytes(huge), 1e19);
}

std::vector<Row> sample_sparse_rows() {
  Row base;
  // 1 x 128 x 768, 8x8, 0.95
  base.what = SparseCase{sparse_preset_problems("seed-sparse")[2], 77, 1.0 - 77.0 / 1536.0, 3};
  base.tol = 1.2e-4;
  std::vector<Row> rows;
  Row dense = base;
  dense.kernel = kDenseBaselineLabel;
  dense.reference = true;
  dense.status = "ok";
  dense.t = {0.02, 0.019, 0.03, 100};
  dense.tflops = 0.5;
  rows.push_back(dense);
  Row cs = base;
  cs.kernel = kSparseBaselineLabel;
  cs.baseline = true;
  cs.status = "ok";
  cs.note = "Y^T = W * X^T, \"quoted\", commas";
  cs.t = {0.04, 0.035, 0.05, 60};
  cs.max_err = 1e-6;
  rows.push_back(cs);
  Row ours = base;
  ours.kernel = "03-tiled";
  ours.status = "ok";
  ours.t = {0.01, 0.009, 0.012, 300, 100};  // timed with --graph-batch 100
  ours.max_err = 2e-6;
  rows.push_back(ours);
  Row skipped = base;
  skipped.kernel = "01-reduction";
  skipped.status = "skipped: too slow";
  rows.push_back(skipped);
  set_ratios(rows);
  return rows;
}

TEST(CliSparseReport, Speedups) {
  const std::vector<Row> rows = sample_sparse_rows();
  EXPECT_DOUBLE_EQ(rows[0].vs_reference.value(), 1.0);
  EXPECT_DOUBLE_EQ(rows[0].ratio.value(), 2.0);
  EXPECT_DOUBLE_EQ(rows[1].ratio.value(), 1.0);
  EXPECT_DOUBLE_EQ(rows[1].vs_reference.value(), 0.5);
  EXPECT_DOUBLE_EQ(rows[2].ratio.value(), 4.0);
  EXPECT_DOUBLE_EQ(rows[2].vs_reference.value(), 2.0);
  EXPECT_FALSE(rows[3].vs_reference.has_value());
  std::vector<Row> no_cusparse = rows;
  no_cusparse[1].status = "skipped: cuSPARSE: CUSPARSE_STATUS_NOT_SUPPORTED";
  set_ratios(no_cusparse);
  EXPECT_FALSE(no_cusparse[2].ratio.has_value());
  EXPECT_DOUBLE_EQ(no_cusparse[2].vs_reference.value(), 2.0);
  const std::string table = bsr_report().table(rows);
  EXPECT_NE(table.find("xwt m=1 k=128 n=768, block 8x8, sparsity 0.95"), std::string::npos) << table;
  EXPECT_NE(table.find("nnzb 77 of 1536"), std::string::npos) << table;
  EXPECT_NE(table.find("4.000x"), std::string::npos) << table;
  EXPECT_NE(table.find("01-reduction   skipped: too slow"), std::string::npos) << table;
}

// One writer for every operation keeps each operation's CSV columns (the docs' result files and the
// scripts read them), and refuses a mixture.
TEST_F(CliFiles, CsvColumnsPerOperation) {
  EXPECT_EQ(csv_header(gemm_report()),
            "device,m,n,k,batch,layout,trans,ld,offset,epilogue,dtype,kernel,config,status,median_ms,min_ms,max_ms,reps,"
            "tflops,ratio_vs_cublas,pct_fp32_peak,max_abs_err,tolerance,timing");
  EXPECT_EQ(csv_header(bsr_report()),
            "device,op,m,n,k,block_rows,block_cols,sparsity,achieved_sparsity,nnzb,max_row_blocks,rows,dtype,kernel,"
            "status,median_ms,min_ms,max_ms,reps,useful_tflops,speedup_vs_cusparse,speedup_vs_cublas,pct_fp32_peak,"
            "max_abs_err,tolerance,note,timing");
  std::vector<Row> mixed = sample_sparse_rows();
  mixed.push_back(sample_rows()[0]);
  expect_invalid([&] { write_csv(path("mixed.csv"), mixed, "GPU", bsr_report(), "--csv"); },
                 "--csv: a run measures one operation");
  RunInfo run;
  run.format = &gemm_report();
  expect_invalid([&] { bench_json(run, mixed); }, "--json: a run measures one operation");
  EXPECT_FALSE(std::filesystem::exists(path("mixed.csv")));
}

TEST_F(CliFiles, SparseCsvWriterRoundTrip) {
  const std::string f = path("sparse.csv");
  write_csv(f, sample_sparse_rows(), "NVIDIA H100 80GB HBM3", bsr_report());
  const std::vector<std::string> lines = lines_of(read_file(f));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], csv_header(bsr_report()));
  const std::vector<std::string> head = split_csv_line(lines[0]);
  auto col = [&](const std::vector<std::string>& cells, const std::string& name) {
    for (size_t i = 0; i < head.size(); ++i)
      if (head[i] == name) return cells.at(i);
    ADD_FAILURE() << "no column " << name;
    return std::string();
  };
  std::vector<std::vector<std::string>> r;
  for (size_t i = 1; i < lines.size(); ++i) {
    r.push_back(split_csv_line(lines[i]));
    ASSERT_EQ(r.back().size(), head.size()) << lines[i];
  }
  EXPECT_EQ(col(r[0], "device"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(col(r[0], "op"), "xwt");
  EXPECT_EQ(col(r[0], "m"), "1");
  EXPECT_EQ(col(r[0], "n"), "768");
  EXPECT_EQ(col(r[0], "k"), "128");
  EXPECT_EQ(col(r[0], "block_rows"), "8");
  EXPECT_EQ(col(r[0], "sparsity"), "0.95");
  EXPECT_NEAR(std::stod(col(r[0], "achieved_sparsity")), 1.0 - 77.0 / 1536.0, 1e-9);
  EXPECT_EQ(col(r[0], "nnzb"), "77");
  EXPECT_EQ(col(r[0], "rows"), "uniform");
  EXPECT_EQ(col(r[0], "kernel"), "cublas-dense");
  EXPECT_EQ(col(r[0], "max_abs_err"), "");  // the reference is not compared with itself
  EXPECT_DOUBLE_EQ(std::stod(col(r[0], "speedup_vs_cusparse")), 2.0);
  EXPECT_EQ(col(r[1], "note"), "Y^T = W * X^T, \"quoted\", commas");
  EXPECT_DOUBLE_EQ(std::stod(col(r[2], "speedup_vs_cusparse")), 4.0);
  EXPECT_DOUBLE_EQ(std::stod(col(r[2], "speedup_vs_cublas")), 2.0);
  EXPECT_EQ(col(r[2], "reps"), "300");
  EXPECT_EQ(col(r[3], "status"), "skipped: too slow");
  EXPECT_EQ(col(r[3], "median_ms"), "");
  EXPECT_EQ(col(r[3], "speedup_vs_cublas"), "");
  EXPECT_DOUBLE_EQ(std::stod(col(r[3], "tolerance")), 1.2e-4);
  EXPECT_EQ(head.back(), "timing");
  EXPECT_EQ(col(r[0], "timing"), "events");
  EXPECT_EQ(col(r[2], "timing"), "graph:100");
  EXPECT_EQ(col(r[3], "timing"), "");  // skipped: not timed
  expect_invalid([&] { write_csv(path("no/such/dir.csv"), {}, "GPU", bsr_report(), "--csv"); }, "--csv: cannot write");
}

TEST_F(CliFiles, SparseJsonWriterRoundTrip) {
  RunInfo run;
  run.device = fake_h100();
  run.build = build_info();
  run.argv = {"tilegemm", "bench", "--sparse", "--preset", "seed-sparse"};
  run.date_utc = utc_iso8601(1700000000);
  const std::string f = path("sparse.json");
  run.format = &bsr_report();
  write_json(f, run, sample_sparse_rows());
  const nlohmann::json j = nlohmann::json::parse(read_file(f));
  const nlohmann::json& h = j.at("header");
  EXPECT_EQ(h.at("tool"), "tilegemm bench --sparse");
  EXPECT_EQ(h.at("command_line"), "tilegemm bench --sparse --preset seed-sparse");
  EXPECT_EQ(h.at("device").at("name"), "NVIDIA H100 80GB HBM3");
  const nlohmann::json& m = h.at("method");
  EXPECT_EQ(m.at("l2"), "cold");
  EXPECT_NE(m.at("baseline").at("sparse").get<std::string>().find("CUSPARSE_SPMM_BSR_ALG1"), std::string::npos);
  EXPECT_NE(m.at("baseline").at("dense").get<std::string>().find("CUBLAS_COMPUTE_32F_PEDANTIC"), std::string::npos);
  EXPECT_DOUBLE_EQ(m.at("reduction_max_flops").get<double>(), kReductionMaxFlops);
  EXPECT_EQ(m.at("timing"), "events per launch");
  run.graph_batch = 50;
  EXPECT_EQ(bench_json(run, {}).at("header").at("method").at("timing"),
            "CUDA graph of 50 launches (per-launch time, warm L2 after the first)");
  const nlohmann::json& rows = j.at("rows");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].at("baseline"), "dense");
  EXPECT_EQ(rows[1].at("baseline"), "sparse");
  EXPECT_TRUE(rows[2].at("baseline").is_null());
  EXPECT_EQ(rows[0].at("total_blocks"), 1536);
  EXPECT_EQ(rows[2].at("kernel"), "03-tiled");
  EXPECT_DOUBLE_EQ(rows[2].at("speedup_vs_cusparse").get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(rows[2].at("median_ms").get<double>(), 0.01);
  EXPECT_TRUE(rows[0].at("max_abs_err").is_null());
  EXPECT_TRUE(rows[3].at("median_ms").is_null());
  EXPECT_TRUE(rows[3].at("speedup_vs_cublas").is_null());
  expect_invalid([&] { write_json(path("no/such/dir.json"), run, {}); }, "--json: cannot write");
}

}  // namespace
}  // namespace tools
}  // namespace tilegemm
