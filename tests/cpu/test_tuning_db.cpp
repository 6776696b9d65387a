// The tuning database (src/tune/database.hpp) and the problem key (src/tune/keys.hpp) without a GPU:
// round trips, the keep-the-faster rule, exact device-key matching, damaged and foreign files, two
// writer processes at once, a writer killed mid-loop, and where the file lives by default.
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ops/keys.hpp"
#include "tilegemm/error.hpp"
#include "tune/database.hpp"
#include "tune/keys.hpp"
#include "tilegemm/tune.hpp"

namespace tilegemm {
namespace detail {
namespace {

using Mode = TuningDatabase::Mode;

// A fresh folder per test, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/tilegemm-dbtest-XXXXXX";
    const char* made = mkdtemp(tmpl);
    if (!made) throw std::runtime_error("mkdtemp failed");
    path_ = made;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

DeviceKey h100_key() {
  DeviceKey k;
  k.device_name = "NVIDIA H100 80GB HBM3";
  k.compute_capability = "9.0";
  k.sm_count = 132;
  k.driver_version = 13000;
  k.library_version = "0.1.0";
  k.source_hash = "0123456789abcdef";
  return k;
}

TunedEntry make_entry(const DeviceKey& d, const std::string& problem, const std::string& config, double us,
                      double auto_us = 0) {
  TunedEntry e;
  e.device = d;
  e.problem = problem;
  e.config = config;
  e.measured_us = us;
  e.auto_us = auto_us;
  e.tuned_at = "2026-11-25T10:00:00Z";
  return e;
}

void expect_same_entry(const TunedEntry& a, const TunedEntry& b) {
  EXPECT_TRUE(a.device == b.device) << to_string(a.device) << " vs " << to_string(b.device);
  EXPECT_EQ(a.problem, b.problem);
  EXPECT_EQ(a.config, b.config);
  EXPECT_EQ(a.measured_us, b.measured_us);
  EXPECT_EQ(a.auto_us, b.auto_us);
  EXPECT_EQ(a.tuned_at, b.tuned_at);
}

// Runs `f` in a child process; its return value is the exit status, an exception exits 1. The child
// never returns into gtest.
pid_t spawn(const std::function<int()>& f) {
  fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    int rc = 1;
    try {
      rc = f();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child %d: %s\n", static_cast<int>(getpid()), e.what());
      rc = 1;
    } catch (...) {
      rc = 1;
    }
    _exit(rc);
  }
  return pid;
}

// The child's exit status, or -1 when it did not exit normally (a crash or a signal).
int wait_exit(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string error_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no tilegemm::Error thrown";
  return "";
}

// Creates an SQLite file that belongs to some other program.
void make_foreign_sqlite(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err);
  const std::string why = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << why;
}

// --- the problem key -----------------------------------------------------------------------------

// Operand facts as the keys see them: 16-byte aligned rows, rows all at one offset from a 16-byte
// boundary (`shifted`, at byte `offset`), or neither.
void aligned(int& align, int& pitch_align) { align = pitch_align = 16; }
void unaligned(int& align, int& pitch_align) { align = pitch_align = 4; }
void shifted(int& align, int& pitch_align, int& offset_field, int offset) {
  align = 4, pitch_align = 16, offset_field = offset;
}

ops::Problem square_problem() {
  ops::Problem p;
  p.m = p.n = p.k = 4096;
  p.beta_zero = true;
  return p;
}

// The key text of an F32 GEMM is the one databases were written with before the operation model
// (tune/keys.cpp's gemm_problem_key until 2026-11-27): existing databases still apply.
TEST(TuningDbKeys, ProblemKeyText) {
  EXPECT_EQ(ops::problem_key(square_problem()), "gemm f32 4096x4096x4096 NN a16 b16 beta0");
  ops::Problem p;
  p.m = 7;
  p.n = 13;
  p.k = 17;
  p.trans_a = true;
  unaligned(p.align_a, p.pitch_align_a);
  p.beta_zero = false;
  EXPECT_EQ(ops::problem_key(p), "gemm f32 7x13x17 TN a4 b16 beta1");
  // Sizes past 32 bits are written whole.
  p.m = 3000000000LL;
  EXPECT_EQ(ops::problem_key(p), "gemm f32 3000000000x13x17 TN a4 b16 beta1");
  // Rows all at one offset from a 16-byte boundary, and A's and B's at the same one.
  p.m = 7;
  shifted(p.align_a, p.pitch_align_a, p.offset_a, 4);
  shifted(p.align_b, p.pitch_align_b, p.offset_b, 8);
  EXPECT_EQ(ops::problem_key(p), "gemm f32 7x13x17 TN a4s b4s beta1");
  p.offset_b = 4;
  EXPECT_EQ(ops::problem_key(p), "gemm f32 7x13x17 TN a4s b4s same-shift beta1");
  // An 8-byte aligned F32 operand copies 4 bytes at a time, as before: a4.
  p.align_a = p.pitch_align_a = 8;
  EXPECT_EQ(ops::problem_key(p), "gemm f32 7x13x17 TN a4 b4s beta1");
  // Other dtypes name their types and alignments in bytes.
  ops::Problem h = square_problem();
  h.a_type = h.b_type = DType::BF16;
  h.align_b = h.pitch_align_b = 2;
  EXPECT_EQ(ops::problem_key(h), "gemm bf16.bf16.f32 4096x4096x4096 NN a16 b2 beta0");
}

// A batch above 1 and a fused epilogue end the key; plain_single drops them (the fallback's key).
TEST(TuningDbKeys, BatchAndEpilogueEndTheKey) {
  ops::Problem p = square_problem();
  p.a_type = p.b_type = p.c_type = DType::BF16;
  const std::string plain = ops::problem_key(p);
  EXPECT_EQ(plain, "gemm bf16.bf16.bf16 4096x4096x4096 NN a16 b16 beta0");
  p.batch = 1;
  EXPECT_EQ(ops::problem_key(p), plain);
  p.batch = 8;
  EXPECT_EQ(ops::problem_key(p), plain + " batch8");
  p.bias = BiasKind::PerColumn;
  p.bias_type = DType::BF16;
  EXPECT_EQ(ops::problem_key(p), plain + " batch8 epi=column");
  p.activation = Activation::GeluTanh;
  EXPECT_EQ(ops::problem_key(p), plain + " batch8 epi=column+gelu-tanh");
  p.batch = 1;
  p.bias = BiasKind::PerRow;
  EXPECT_EQ(ops::problem_key(p), plain + " epi=row+gelu-tanh");
  p.bias = BiasKind::None;
  p.activation = Activation::Silu;
  EXPECT_EQ(ops::problem_key(p), plain + " epi=silu");
  p.batch = 5;
  const ops::Problem single = ops::plain_single(p);
  EXPECT_EQ(ops::problem_key(single), plain);
  EXPECT_EQ(single.batch, 1);
  EXPECT_TRUE(single.plain_epilogue());
  EXPECT_EQ(single.m, p.m);
}

TEST(TuningDbKeys, ProblemKeyDistinguishesEachField) {
  const ops::Problem base = square_problem();
  std::vector<std::pair<const char*, ops::Problem>> variants;
  auto vary = [&](const char* what, const std::function<void(ops::Problem&)>& change) {
    ops::Problem p = base;
    change(p);
    variants.emplace_back(what, p);
  };
  vary("m", [](ops::Problem& p) { p.m = 4095; });
  vary("n", [](ops::Problem& p) { p.n = 4095; });
  vary("k", [](ops::Problem& p) { p.k = 4095; });
  vary("m and n swapped", [](ops::Problem& p) { p.m = 64, p.n = 4096; });
  vary("n and m swapped", [](ops::Problem& p) { p.m = 4096, p.n = 64; });
  vary("trans_a", [](ops::Problem& p) { p.trans_a = true; });
  vary("trans_b", [](ops::Problem& p) { p.trans_b = true; });
  vary("a unaligned", [](ops::Problem& p) { unaligned(p.align_a, p.pitch_align_a); });
  vary("b unaligned", [](ops::Problem& p) { unaligned(p.align_b, p.pitch_align_b); });
  vary("beta_zero", [](ops::Problem& p) { p.beta_zero = false; });
  vary("a shifted", [](ops::Problem& p) { shifted(p.align_a, p.pitch_align_a, p.offset_a, 4); });
  vary("b shifted", [](ops::Problem& p) { shifted(p.align_b, p.pitch_align_b, p.offset_b, 4); });
  vary("both shifted", [](ops::Problem& p) {
    shifted(p.align_a, p.pitch_align_a, p.offset_a, 4);
    shifted(p.align_b, p.pitch_align_b, p.offset_b, 8);
  });
  vary("shifts match", [](ops::Problem& p) {
    shifted(p.align_a, p.pitch_align_a, p.offset_a, 4);
    shifted(p.align_b, p.pitch_align_b, p.offset_b, 4);
  });
  vary("a_type", [](ops::Problem& p) { p.a_type = DType::F16; });
  vary("c_type", [](ops::Problem& p) { p.c_type = DType::BF16; });
  vary("batch", [](ops::Problem& p) { p.batch = 2; });
  vary("bias per row", [](ops::Problem& p) { p.bias = BiasKind::PerRow; });
  vary("bias per column", [](ops::Problem& p) { p.bias = BiasKind::PerColumn; });
  vary("relu", [](ops::Problem& p) { p.activation = Activation::Relu; });
  vary("gelu-erf", [](ops::Problem& p) { p.activation = Activation::GeluErf; });

  const std::string base_key = ops::problem_key(base);
  std::map<std::string, std::string> seen{{base_key, "base"}};
  for (const auto& [what, p] : variants) {
    const std::string key = ops::problem_key(p);
    EXPECT_NE(key, base_key) << what;
    const auto [it, fresh] = seen.emplace(key, what);
    EXPECT_TRUE(fresh) << what << " and " << it->second << " share the key '" << key << "'";
  }
  // The same problem always gives the same key.
  EXPECT_EQ(ops::problem_key(square_problem()), base_key);
}

// --- one process ---------------------------------------------------------------------------------

TEST(TuningDb, PutAndRead) {
  TempDir dir;
  const std::string path = dir.file("a/b/tuning.sqlite3");  // the folders do not exist yet
  const TunedEntry e = make_entry(h100_key(), "gemm f32 4096x4096x4096 NN a16 b16 beta0", "tiled 128x128x32 w8",
                                  812.25, 901.5);
  {
    TuningDatabase db(path, Mode::ReadWrite);
    EXPECT_EQ(db.path(), path);
    EXPECT_TRUE(std::filesystem::is_regular_file(path));
    EXPECT_TRUE(db.entries_for(e.device).empty());
    EXPECT_TRUE(db.put(e));
    const auto got = db.entries_for(e.device);
    ASSERT_EQ(got.size(), 1u);
    expect_same_entry(got[0], e);
    const auto every = db.all();
    ASSERT_EQ(every.size(), 1u);
    expect_same_entry(every[0], e);
  }
  // It is on disk: a later read-only open sees it.
  TuningDatabase db(path, Mode::ReadOnly);
  const auto got = db.entries_for(e.device);
  ASSERT_EQ(got.size(), 1u);
  expect_same_entry(got[0], e);
}

TEST(TuningDb, KeepsTheFaster) {
  TempDir dir;
  TuningDatabase db(dir.file("tuning.sqlite3"), Mode::ReadWrite);
  const DeviceKey d = h100_key();
  const std::string problem = "gemm f32 1024x1024x1024 NN a16 b16 beta0";
  const TunedEntry first = make_entry(d, problem, "first", 100.0, 150.0);
  ASSERT_TRUE(db.put(first));

  EXPECT_FALSE(db.put(make_entry(d, problem, "slower", 120.0, 10.0)));
  EXPECT_FALSE(db.put(make_entry(d, problem, "as fast", 100.0, 10.0)));
  auto got = db.entries_for(d);
  ASSERT_EQ(got.size(), 1u);
  expect_same_entry(got[0], first);

  TunedEntry faster = make_entry(d, problem, "faster", 80.0, 140.0);
  faster.tuned_at = "2026-11-26T09:30:00Z";
  EXPECT_TRUE(db.put(faster));
  got = db.entries_for(d);
  ASSERT_EQ(got.size(), 1u);
  expect_same_entry(got[0], faster);
}

TEST(TuningDb, OtherDeviceKeyIsNeverUsed) {
  TempDir dir;
  TuningDatabase db(dir.file("tuning.sqlite3"), Mode::ReadWrite);
  const DeviceKey d = h100_key();
  const std::string problem = "gemm f32 512x512x512 NN a16 b16 beta0";
  ASSERT_TRUE(db.put(make_entry(d, problem, "mine", 10.0)));

  std::vector<std::pair<const char*, DeviceKey>> others;
  auto vary = [&](const char* what, const std::function<void(DeviceKey&)>& change) {
    DeviceKey k = d;
    change(k);
    others.emplace_back(what, k);
  };
  vary("device_name", [](DeviceKey& k) { k.device_name = "NVIDIA H200"; });
  vary("compute_capability", [](DeviceKey& k) { k.compute_capability = "9.1"; });
  vary("sm_count", [](DeviceKey& k) { k.sm_count = 114; });
  vary("driver_version", [](DeviceKey& k) { k.driver_version = 12080; });
  vary("library_version", [](DeviceKey& k) { k.library_version = "0.1.1"; });
  vary("source_hash", [](DeviceKey& k) { k.source_hash = "fedcba9876543210"; });

  for (const auto& [what, k] : others) EXPECT_TRUE(db.entries_for(k).empty()) << "differs in " << what;

  // An entry for each other key is stored beside ours (even when faster) and does not leak into it.
  for (const auto& [what, k] : others) EXPECT_TRUE(db.put(make_entry(k, problem, what, 1.0))) << what;
  const auto mine = db.entries_for(d);
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0].config, "mine");
  EXPECT_EQ(mine[0].measured_us, 10.0);
  for (const auto& [what, k] : others) {
    const auto got = db.entries_for(k);
    ASSERT_EQ(got.size(), 1u) << what;
    EXPECT_EQ(got[0].config, what);
  }
  EXPECT_EQ(db.all().size(), others.size() + 1);
}

TEST(TuningDb, ClearReturnsTheCount) {
  TempDir dir;
  TuningDatabase db(dir.file("tuning.sqlite3"), Mode::ReadWrite);
  DeviceKey other = h100_key();
  other.sm_count = 114;
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(db.put(make_entry(h100_key(), "p" + std::to_string(i), "c", 1.0)));
  ASSERT_TRUE(db.put(make_entry(other, "p0", "c", 1.0)));
  EXPECT_EQ(db.clear(), 5);
  EXPECT_TRUE(db.all().empty());
  EXPECT_TRUE(db.entries_for(h100_key()).empty());
  EXPECT_EQ(db.clear(), 0);
  // Still usable afterwards.
  EXPECT_TRUE(db.put(make_entry(h100_key(), "p0", "c", 1.0)));
  EXPECT_EQ(db.all().size(), 1u);
}

TEST(TuningDb, ReadOnlyRefusesWrites) {
  TempDir dir;
  const std::string path = dir.file("tuning.sqlite3");
  { TuningDatabase(path, Mode::ReadWrite).put(make_entry(h100_key(), "p", "c", 1.0)); }
  TuningDatabase db(path, Mode::ReadOnly);
  const std::string msg = error_message([&] { db.put(make_entry(h100_key(), "q", "c", 1.0)); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_EQ(db.all().size(), 1u);
}

TEST(TuningDb, UtcNowIsIso8601) {
  EXPECT_TRUE(std::regex_match(utc_now(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"))) << utc_now();
}

// --- files that are not a usable database --------------------------------------------------------

TEST(TuningDbDamaged, MissingFileReadOnly) {
  TempDir dir;
  const std::string path = dir.file("missing.sqlite3");
  const std::string msg = error_message([&] { TuningDatabase db(path, Mode::ReadOnly); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_FALSE(std::filesystem::exists(path));  // a reader never creates it
}

TEST(TuningDbDamaged, EmptyPath) {
  error_message([] { TuningDatabase db("", Mode::ReadWrite); });
  error_message([] { TuningDatabase db("", Mode::ReadOnly); });
}

TEST(TuningDbDamaged, FolderCannotBeCreated) {
  TempDir dir;
  std::ofstream(dir.file("plain-file")) << "x";
  const std::string path = dir.file("plain-file/sub/tuning.sqlite3");
  const std::string msg = error_message([&] { TuningDatabase db(path, Mode::ReadWrite); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
}

TEST(TuningDbDamaged, GarbageFile) {
  TempDir dir;
  const std::string path = dir.file("garbage.sqlite3");
  {
    std::ofstream out(path, std::ios::binary);
    for (int i = 0; i < 80; ++i) out << "this is not an SQLite database, just 64 bytes of text. line " << (i % 10) << "\n";
  }
  const std::string before = read_bytes(path);
  ASSERT_GE(before.size(), 4096u);
  for (Mode mode : {Mode::ReadOnly, Mode::ReadWrite}) {
    const std::string msg = error_message([&] { TuningDatabase db(path, mode); });
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
  }
  EXPECT_EQ(read_bytes(path), before);  // a writer left it alone
}

TEST(TuningDbDamaged, TruncatedFile) {
  TempDir dir;
  const std::string path = dir.file("tuning.sqlite3");
  constexpr int kWritten = 300;
  {
    TuningDatabase db(path, Mode::ReadWrite);
    for (int i = 0; i < kWritten; ++i)
      ASSERT_TRUE(db.put(make_entry(h100_key(), "gemm f32 " + std::to_string(i) + "x64x64 NN a16 b16 beta0",
                                    "config number " + std::to_string(i) + std::string(40, '.'), 1.0 + i)));
  }
  const auto size = std::filesystem::file_size(path);
  ASSERT_GT(size, 8192u);
  ASSERT_EQ(truncate(path.c_str(), static_cast<off_t>(size / 2)), 0);

  // In a child, so a crash is a failed test, not a dead test runner. Exit 0: read no more than was
  // written; 2: Error naming the path; anything else is a failure.
  for (Mode mode : {Mode::ReadOnly, Mode::ReadWrite}) {
    const pid_t pid = spawn([&]() -> int {
      try {
        TuningDatabase db(path, mode);
        const size_t all = db.all().size(), mine = db.entries_for(h100_key()).size();
        return all <= kWritten && mine <= kWritten ? 0 : 3;
      } catch (const Error& e) {
        return std::string(e.what()).find(path) != std::string::npos ? 2 : 4;
      }
    });
    ASSERT_GT(pid, 0);
    const int rc = wait_exit(pid);
    EXPECT_TRUE(rc == 0 || rc == 2) << (mode == Mode::ReadOnly ? "ReadOnly" : "ReadWrite")
                                    << ": child exit " << rc << " (-1 crash, 3 too many entries, "
                                    << "4 message without the path, 1 other exception)";
  }
}

TEST(TuningDbDamaged, ForeignSqliteFileReadOnly) {
  TempDir dir;
  const std::string path = dir.file("other.sqlite3");
  make_foreign_sqlite(path, "CREATE TABLE songs(title TEXT, year INTEGER); INSERT INTO songs VALUES('x', 1999);");
  const std::string msg = error_message([&] { TuningDatabase db(path, Mode::ReadOnly); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("not a tilegemm tuning database"), std::string::npos) << msg;
}

TEST(TuningDbDamaged, ForeignSqliteFileReadWrite) {
  TempDir dir;
  const std::string path = dir.file("other.sqlite3");
  make_foreign_sqlite(path, "CREATE TABLE songs(title TEXT, year INTEGER); INSERT INTO songs VALUES('x', 1999);");
  const std::string before = read_bytes(path);
  const std::string msg = error_message([&] { TuningDatabase db(path, Mode::ReadWrite); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("not a tilegemm tuning database"), std::string::npos) << msg;
  EXPECT_EQ(read_bytes(path), before);  // no tables added, journal mode unchanged
}

TEST(TuningDbDamaged, OtherSchemaVersion) {
  TempDir dir;
  const std::string path = dir.file("future.sqlite3");
  make_foreign_sqlite(path, "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                            "INSERT INTO meta VALUES('schema', '2');");
  for (Mode mode : {Mode::ReadOnly, Mode::ReadWrite}) {
    const std::string msg = error_message([&] { TuningDatabase db(path, mode); });
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("not a tilegemm tuning database"), std::string::npos) << msg;
  }
}

// --- several processes ---------------------------------------------------------------------------

TEST(TuningDbProcesses, TwoWritersAtOnce) {
  TempDir dir;
  const std::string path = dir.file("tuning.sqlite3");  // created by whichever child comes first
  const DeviceKey d = h100_key();
  const std::string shared = "gemm f32 2048x2048x2048 NN a16 b16 beta0";
  constexpr int kEach = 200;
  const double shared_us[2] = {50.0, 40.0};

  // Both children start on the parent's word, so their writes overlap.
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  pid_t pids[2];
  for (int w = 0; w < 2; ++w) {
    pids[w] = spawn([&, w]() -> int {
      close(go[1]);
      char c;
      if (read(go[0], &c, 1) < 0) return 1;
      TuningDatabase db(path, Mode::ReadWrite);
      for (int i = 0; i < kEach; ++i) {
        const std::string problem = "gemm f32 w" + std::to_string(w) + "x" + std::to_string(i) + "x1 NN a16 b16 beta0";
        if (!db.put(make_entry(d, problem, "writer " + std::to_string(w), 1.0 + i))) return 2;
        if (i == kEach / 2) db.put(make_entry(d, shared, "shared from writer " + std::to_string(w), shared_us[w]));
      }
      return 0;
    });
    ASSERT_GT(pids[w], 0);
  }
  close(go[0]);
  close(go[1]);  // EOF releases both
  for (int w = 0; w < 2; ++w) EXPECT_EQ(wait_exit(pids[w]), 0) << "writer " << w;

  TuningDatabase db(path, Mode::ReadOnly);
  const auto got = db.entries_for(d);
  EXPECT_EQ(got.size(), 2u * kEach + 1);
  std::set<std::string> problems;
  for (const auto& e : got) problems.insert(e.problem);
  EXPECT_EQ(problems.size(), got.size());
  for (int w = 0; w < 2; ++w)
    for (int i = 0; i < kEach; ++i)
      EXPECT_TRUE(problems.count("gemm f32 w" + std::to_string(w) + "x" + std::to_string(i) + "x1 NN a16 b16 beta0"))
          << "writer " << w << " problem " << i;
  bool found = false;
  for (const auto& e : got)
    if (e.problem == shared) {
      found = true;
      EXPECT_EQ(e.measured_us, 40.0);
      EXPECT_EQ(e.config, "shared from writer 1");
    }
  EXPECT_TRUE(found);
}

// The killed writer's rows: problem "kill pN", measured_us = 1e9 - iteration (each write is faster, so
// it replaces), config names both, so a row mixing two writes shows.
std::string killed_writer_config(const std::string& problem, long long iteration) {
  return "cfg " + problem + " iteration " + std::to_string(iteration);
}

TEST(TuningDbProcesses, KilledWriter) {
  TempDir dir;
  const std::string path = dir.file("tuning.sqlite3");
  const DeviceKey d = h100_key();
  constexpr int kProblems = 50;
  std::map<std::string, double> previous;  // what the last round left, which a later kill must keep

  for (int round = 0; round < 3; ++round) {
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    const long long first_iteration = round * 100000000LL;
    const pid_t pid = spawn([&]() -> int {
      close(ready[0]);
      TuningDatabase db(path, Mode::ReadWrite);
      for (long long it = first_iteration;; ++it) {
        const std::string problem = "kill p" + std::to_string(it % kProblems);
        TunedEntry e = make_entry(d, problem, killed_writer_config(problem, it), 1e9 - static_cast<double>(it),
                                  static_cast<double>(it));
        if (!db.put(e)) return 2;
        if (it == first_iteration) {
          const char c = 1;
          if (write(ready[1], &c, 1) != 1) return 3;
          close(ready[1]);
        }
      }
    });
    ASSERT_GT(pid, 0);
    close(ready[1]);
    char c = 0;
    ASSERT_EQ(read(ready[0], &c, 1), 1) << "the writer failed before its first put";
    close(ready[0]);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "round " << round << ": the writer ended early";

    auto check = [&](const std::vector<TunedEntry>& got) {
      EXPECT_GE(got.size(), previous.size());
      EXPECT_LE(got.size(), static_cast<size_t>(kProblems));
      std::map<std::string, double> now;
      for (const auto& e : got) {
        const long long it = static_cast<long long>(e.auto_us);
        EXPECT_EQ(e.config, killed_writer_config(e.problem, it)) << e.problem;
        EXPECT_EQ(e.measured_us, 1e9 - static_cast<double>(it)) << e.problem;
        EXPECT_EQ(e.problem, "kill p" + std::to_string(it % kProblems));
        now[e.problem] = e.measured_us;
      }
      for (const auto& [problem, us] : previous) {
        EXPECT_TRUE(now.count(problem)) << "round " << round << " lost " << problem;
        if (now.count(problem)) EXPECT_LE(now[problem], us) << problem;
      }
      return now;
    };
    {
      TuningDatabase db(path, Mode::ReadOnly);
      check(db.entries_for(d));
    }
    {
      TuningDatabase db(path, Mode::ReadWrite);
      previous = check(db.entries_for(d));
      EXPECT_FALSE(previous.empty()) << "round " << round;
      // The file is writable again after the kill; the marker is cleared so the next round's check
      // sees only the writer's rows.
      EXPECT_TRUE(db.put(make_entry(d, "after kill " + std::to_string(round), "c", 1.0)));
      EXPECT_EQ(db.clear(), static_cast<int>(previous.size()) + 1);
      for (const auto& [problem, us] : previous) {
        const long long it = static_cast<long long>(1e9 - us);
        ASSERT_TRUE(db.put(make_entry(d, problem, killed_writer_config(problem, it), us, static_cast<double>(it))));
      }
    }
  }
}

// --- where the file lives ------------------------------------------------------------------------

// Saves the variables default_tuning_db_path reads and puts them back.
class SavedEnv {
 public:
  SavedEnv() {
    for (const char* name : kNames) {
      const char* v = std::getenv(name);
      saved_[name] = v ? std::optional<std::string>(v) : std::nullopt;
    }
  }
  ~SavedEnv() {
    for (const auto& [name, v] : saved_) {
      if (v)
        setenv(name.c_str(), v->c_str(), 1);
      else
        unsetenv(name.c_str());
    }
  }
  static constexpr const char* kNames[] = {"TILEGEMM_TUNING_DB", "TILEGEMM_CACHE_DIR", "XDG_CACHE_HOME", "HOME"};

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

TEST(TuningDbPath, DefaultPathOrder) {
  SavedEnv saved;
  setenv("TILEGEMM_TUNING_DB", "/x/explicit.db", 1);
  setenv("TILEGEMM_CACHE_DIR", "/x/cache-dir", 1);
  setenv("XDG_CACHE_HOME", "/x/xdg", 1);
  setenv("HOME", "/x/home", 1);
  EXPECT_EQ(default_tuning_db_path(), "/x/explicit.db");
  unsetenv("TILEGEMM_TUNING_DB");
  EXPECT_EQ(default_tuning_db_path(), "/x/cache-dir/tuning.sqlite3");
  unsetenv("TILEGEMM_CACHE_DIR");
  EXPECT_EQ(default_tuning_db_path(), "/x/xdg/tilegemm/tuning.sqlite3");
  unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(default_tuning_db_path(), "/x/home/.cache/tilegemm/tuning.sqlite3");
  // An empty variable counts as unset.
  setenv("TILEGEMM_TUNING_DB", "", 1);
  setenv("TILEGEMM_CACHE_DIR", "", 1);
  setenv("XDG_CACHE_HOME", "", 1);
  EXPECT_EQ(default_tuning_db_path(), "/x/home/.cache/tilegemm/tuning.sqlite3");
}

// --- tune()'s arguments: checked before the device is touched, so they fail the same without a GPU --

TEST(TuneArguments, BadShapeAndOptionsAreNamed) {
  auto message = [](const GemmShape& s, const TuneOptions& o) -> std::string {
    try {
      tune(s, o);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      return e.what();
    }
    return "no error";
  };
  GemmShape ok;
  ok.m = ok.n = ok.k = 64;
  GemmShape s = ok;
  s.m = 0;
  EXPECT_NE(message(s, {}).find("shape.m = 0 is not in [1, 2^31-1]"), std::string::npos) << message(s, {});
  s = ok;
  s.k = int64_t(1) << 31;
  EXPECT_NE(message(s, {}).find("shape.k = 2147483648"), std::string::npos);
  s = ok;
  s.lda = 63;
  EXPECT_NE(message(s, {}).find("shape.lda = 63 is not in [64, 2^31-1]"), std::string::npos) << message(s, {});
  s = ok;
  s.op_b = static_cast<Op>(9);
  EXPECT_NE(message(s, {}).find("shape.op_b"), std::string::npos);
  s = ok;
  s.offset = -1;
  EXPECT_NE(message(s, {}).find("shape.offset = -1"), std::string::npos);
  s = ok;
  s.batch = 0;
  EXPECT_NE(message(s, {}).find("shape.batch = 0 is not in [1, 2^20]"), std::string::npos) << message(s, {});
  s = ok;
  s.bias = static_cast<BiasKind>(7);
  EXPECT_NE(message(s, {}).find("shape.bias = 7 is not a BiasKind value"), std::string::npos) << message(s, {});
  s = ok;
  s.activation = static_cast<Activation>(-1);
  EXPECT_NE(message(s, {}).find("shape.activation = -1 is not an Activation value"), std::string::npos)
      << message(s, {});
  TuneOptions o;
  o.budget_s = 0;
  EXPECT_NE(message(ok, o).find("options.budget_s"), std::string::npos);
  o = {};
  o.max_measured = -2;
  EXPECT_NE(message(ok, o).find("options.max_measured = -2"), std::string::npos);
  o = {};
  o.min_time_s = std::nan("");
  EXPECT_NE(message(ok, o).find("options.min_time_s"), std::string::npos);
}

}  // namespace
}  // namespace detail
}  // namespace tilegemm
