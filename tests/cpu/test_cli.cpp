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

#include "options.hpp"
#include "peaks.hpp"
#include "plot.hpp"
#include "report.hpp"
#include "shapes.hpp"
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

TEST(CliPreset, EveryListedNameWorksAndUnknownIsAnError) {
  for (const std::string& name : preset_names()) EXPECT_FALSE(preset_shapes(name).empty()) << name;
  expect_invalid([] { preset_shapes("nope"); }, "--preset: unknown preset 'nope'",
                 "textbook, tvm-post, odd, ladder or small");
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

// --- dtype and kernel lists -------------------------------------------------------------------------

TEST(CliDType, AcceptsFp32Only) {
  EXPECT_EQ(parse_dtype("fp32").dtype, DType::F32);
  EXPECT_EQ(parse_dtype("FP32").name, "fp32");
  for (const char* bad : {"bf16", "fp16", "tf32", "", "float"}) {
    SCOPED_TRACE(bad);
    expect_invalid([&] { parse_dtype(bad); }, std::string("--dtype: unsupported value '") + bad + "'",
                   "(accepted: fp32)");
  }
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
                                                           Kernel::WarpTiled}));
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

TEST(CliPlanBench, Defaults) {
  const BenchPlan plan = plan_bench(BenchArgs{});
  std::vector<std::string> dims;
  for (const Problem& p : plan.problems) dims.push_back(p.str());
  EXPECT_EQ(dims, (std::vector<std::string>{"4096x4096x4096 row NN", "8192x8192x8192 row NN",
                                            "4095x4097x4093 row NN"}));
  EXPECT_EQ(plan.dtype.name, "fp32");
  EXPECT_EQ(plan.kernels.size(), 6u);
  EXPECT_FALSE(plan.warm);  // cold is the default
  EXPECT_DOUBLE_EQ(plan.min_time, 0.5);
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
  const BenchPlan plan = plan_bench(a);
  std::vector<std::string> dims;
  for (const Problem& p : plan.problems) dims.push_back(p.str());
  EXPECT_EQ(dims, (std::vector<std::string>{"1024x512x2048 col TN", "7x8x9 col TN", "1x2x3 col TN", "64x64x64 col TN",
                                            "128x128x128 col TN"}));
  EXPECT_TRUE(plan.warm);
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
  expect_invalid(with([](BenchArgs& a) { a.dtype = "bf16"; }), "--dtype: unsupported value 'bf16'", "fp32");
  expect_invalid(with([](BenchArgs& a) { a.kernels = "7"; }), "--kernels: unknown value '7'");
  expect_invalid(with([](BenchArgs& a) { a.layout = "diag"; }), "--layout: unknown value 'diag'");
  expect_invalid(with([](BenchArgs& a) { a.trans = "NTT"; }), "--trans: unknown value 'NTT'");
  expect_invalid(with([](BenchArgs& a) { a.rasters = {"zigzag"}; }), "--rasters: unknown value 'zigzag'");
  expect_invalid(with([](BenchArgs& a) { a.warm = a.cold = true; }), "--warm: cannot be combined with --cold");
  expect_invalid(with([](BenchArgs& a) { a.min_time = -1; }), "--min-time: invalid value '-1'");
  expect_invalid(with([](BenchArgs& a) { a.min_time = std::numeric_limits<double>::quiet_NaN(); }), "--min-time: invalid value");
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
  a.dtype = "fp16";
  expect_invalid([&] { plan_check(a); }, "--dtype: unsupported value 'fp16'");
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
  base.problem = parse_shape("4096x4096x4096");
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
  k.kernel = "06-warp-tiled";
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
  skipped.kernel = "06:128x256@hilbert";
  skipped.baseline = false;
  skipped.status = "skipped: candidates run row-major NN with K > 0 only";
  skipped.t = {};
  skipped.ratio.reset();
  rows.push_back(skipped);
  return rows;
}

TEST_F(CliFiles, CsvWriterRoundTrip) {
  const std::string f = path("bench.csv");
  write_csv(f, sample_rows(), "NVIDIA H100 80GB HBM3");
  const std::vector<std::string> lines = lines_of(read_file(f));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], csv_header());
  const std::vector<std::string> head = split_csv_line(lines[0]);
  ASSERT_EQ(head.size(), 18u);
  EXPECT_EQ(head[0], "device");
  auto col = [&](const std::vector<std::string>& cells, const std::string& name) {
    for (size_t i = 0; i < head.size(); ++i)
      if (head[i] == name) return cells.at(i);
    ADD_FAILURE() << "no column " << name;
    return std::string();
  };
  const std::vector<std::string> r0 = split_csv_line(lines[1]), r1 = split_csv_line(lines[2]),
                                   r2 = split_csv_line(lines[3]), r3 = split_csv_line(lines[4]);
  for (const auto& r : {r0, r1, r2, r3}) ASSERT_EQ(r.size(), head.size());
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
  EXPECT_EQ(col(r3, "kernel"), "06:128x256@hilbert");
  EXPECT_EQ(col(r3, "ratio_vs_cublas"), "");
  EXPECT_DOUBLE_EQ(std::stod(col(r3, "tolerance")), 0.0039);

  // Rewritten, not appended, as the bench does after every shape.
  write_csv(f, {sample_rows()[0]}, "GPU");
  EXPECT_EQ(lines_of(read_file(f)).size(), 2u);
  expect_invalid([&] { write_csv(path("no/such/dir.csv"), sample_rows(), "GPU", "--csv"); }, "--csv: cannot write");
}

TEST_F(CliFiles, JsonWriterRoundTrip) {
  RunInfo run;
  run.device = fake_h100();
  run.build = build_info();
  run.argv = {"tilegemm", "bench", "--preset", "ladder", "--json", "my results.json"};
  run.date_utc = utc_iso8601(1700000000);
  run.min_time_s = 0.25;
  run.flush_bytes = 2.0 * run.device.l2_bytes;
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
  EXPECT_EQ(h.at("interrupted"), false);

  const nlohmann::json& rows = j.at("rows");
  ASSERT_EQ(rows.size(), 4u);
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
      r.problem = cube(s);
      rows.push_back(r);
    }
  write_csv(path("bench.csv"), rows, "Test GPU");
  try {
    const std::string said = run_plot_script(script, path("bench.csv"), path("plot.svg"));
    EXPECT_NE(said.find("wrote"), std::string::npos) << said;
    EXPECT_NE(read_file(path("plot.svg")).find("<svg"), std::string::npos);
  } catch (const Error& e) {
    if (std::string(e.what()).rfind("matplotlib is missing: ", 0) == 0) GTEST_SKIP() << e.what();
    FAIL() << e.what();
  }
}

}  // namespace
}  // namespace tools
}  // namespace tilegemm
