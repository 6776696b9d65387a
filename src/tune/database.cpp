#include "tune/database.hpp"

#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <thread>
#include <cstdlib>
#include <ctime>
#include <string>

#include "core/cache_dir.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

namespace {

constexpr int kSchemaVersion = 1;
// How long a writer waits for another process's transaction before giving up (two tuners at once).
constexpr int kBusyTimeoutMs = 30000;

const char* kCreateSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO meta(key, value) VALUES('schema', '1');
CREATE TABLE IF NOT EXISTS tuned(
  device_name TEXT NOT NULL,
  compute_capability TEXT NOT NULL,
  sm_count INTEGER NOT NULL,
  driver_version INTEGER NOT NULL,
  library_version TEXT NOT NULL,
  source_hash TEXT NOT NULL,
  problem TEXT NOT NULL,
  config TEXT NOT NULL,
  measured_us REAL NOT NULL,
  auto_us REAL NOT NULL,
  tuned_at TEXT NOT NULL,
  PRIMARY KEY(device_name, compute_capability, sm_count, driver_version, library_version, source_hash, problem));
)sql";

const char* kColumns =
    "device_name, compute_capability, sm_count, driver_version, library_version, source_hash, problem, config, "
    "measured_us, auto_us, tuned_at";
const char* kDeviceMatch =
    "device_name = ?1 AND compute_capability = ?2 AND sm_count = ?3 AND driver_version = ?4 AND "
    "library_version = ?5 AND source_hash = ?6";

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error(ErrorCode::InvalidArgument, "tuning database '" + path + "': " + what);
}

// Statements are finalized whatever path leaves the scope.
struct Statement {
  sqlite3_stmt* s = nullptr;
  Statement(sqlite3* db, const std::string& path, const std::string& sql) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) fail(path, sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(s); }
  void text(int i, const std::string& v) { sqlite3_bind_text(s, i, v.c_str(), -1, SQLITE_TRANSIENT); }
  void integer(int i, int v) { sqlite3_bind_int(s, i, v); }
  void real(int i, double v) { sqlite3_bind_double(s, i, v); }
  std::string column_text(int i) const {
    const unsigned char* t = sqlite3_column_text(s, i);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
};

void bind_device(Statement& st, const DeviceKey& d) {
  st.text(1, d.device_name);
  st.text(2, d.compute_capability);
  st.integer(3, d.sm_count);
  st.integer(4, d.driver_version);
  st.text(5, d.library_version);
  st.text(6, d.source_hash);
}

void make_parent_folders(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return;
  if (!make_folders(path.substr(0, slash))) fail(path, "cannot create the folder '" + path.substr(0, slash) + "'");
}

}  // namespace

std::string to_string(const DeviceKey& k) {
  return k.device_name + ", cc " + k.compute_capability + ", " + std::to_string(k.sm_count) + " SMs, driver " +
         std::to_string(k.driver_version) + ", tilegemm " + k.library_version + ", kernels " + k.source_hash;
}

std::string default_tuning_db_path() {
  const char* explicit_path = std::getenv("TILEGEMM_TUNING_DB");
  if (explicit_path && *explicit_path) return explicit_path;
  return cache_dir() + "/tuning.sqlite3";
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

TuningDatabase::TuningDatabase(const std::string& path, Mode mode) : path_(path) {
  if (path.empty()) fail(path, "the path is empty");
  const bool write = mode == Mode::ReadWrite;
  if (write) make_parent_folders(path);
  const int flags = write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
  if (sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    fail(path, "cannot open it (" + why + ")");
  }
  try {
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    // A file that is not SQLite fails here, at the first read of its header.
    {
      Statement check(db_, path_, "PRAGMA quick_check");
      const int rc = sqlite3_step(check.s);
      if (rc != SQLITE_ROW) fail(path_, std::string("not a readable SQLite database (") + sqlite3_errmsg(db_) + ")");
      if (check.column_text(0) != "ok") fail(path_, "damaged (integrity check: " + check.column_text(0) + ")");
    }
    // Another program's SQLite file is refused, never given our tables; an empty file becomes ours.
    // A writer looks inside its write transaction, so two tuners creating one new file agree.
    auto check_ours = [&] {
      const int meta_tables = count("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'");
      const int all_tables = count("SELECT count(*) FROM sqlite_master");
      if (meta_tables == 0 && (!write || all_tables > 0))
        fail(path_, "not a tilegemm tuning database of schema " + std::to_string(kSchemaVersion) +
                        " (it has no meta table)");
      if (meta_tables == 0) return;  // an empty file, about to get the schema
      Statement schema(db_, path_, "SELECT value FROM meta WHERE key = 'schema'");
      if (sqlite3_step(schema.s) != SQLITE_ROW || schema.column_text(0) != std::to_string(kSchemaVersion))
        fail(path_, "not a tilegemm tuning database of schema " + std::to_string(kSchemaVersion));
    };
    if (write) {
      exec("BEGIN IMMEDIATE");
      try {
        check_ours();
        exec(kCreateSchema);
        exec("COMMIT");
      } catch (...) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
      }
      set_wal_mode();  // after the check: another program's file keeps its journal mode
    } else {
      check_ours();
    }
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

TuningDatabase::~TuningDatabase() { sqlite3_close(db_); }

int TuningDatabase::count(const char* sql) const {
  Statement st(db_, path_, sql);
  if (sqlite3_step(st.s) != SQLITE_ROW) fail(path_, std::string("reading its tables failed: ") + sqlite3_errmsg(db_));
  return sqlite3_column_int(st.s, 0);
}

void TuningDatabase::set_wal_mode() const {
  // Switching to WAL needs the file to itself and SQLite does not wait for that through the busy
  // handler: retry while another connection (a second tuner opening the same new file) holds it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    const int rc = sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return;
    if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || std::chrono::steady_clock::now() > deadline)
      fail(path_, std::string("switching to WAL mode failed: ") + sqlite3_errmsg(db_));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void TuningDatabase::exec(const char* sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string why = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    fail(path_, why);
  }
}

bool TuningDatabase::put(const TunedEntry& e) {
  Statement st(db_, path_,
               std::string("INSERT INTO tuned(") + kColumns +
                   ") VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) "
                   "ON CONFLICT DO UPDATE SET config = excluded.config, measured_us = excluded.measured_us, "
                   "auto_us = excluded.auto_us, tuned_at = excluded.tuned_at "
                   "WHERE excluded.measured_us < tuned.measured_us");
  bind_device(st, e.device);
  st.text(7, e.problem);
  st.text(8, e.config);
  st.real(9, e.measured_us);
  st.real(10, e.auto_us);
  st.text(11, e.tuned_at);
  if (sqlite3_step(st.s) != SQLITE_DONE) fail(path_, std::string("storing an entry failed: ") + sqlite3_errmsg(db_));
  return sqlite3_changes(db_) > 0;
}

std::vector<TunedEntry> TuningDatabase::select(const char* sql, const DeviceKey* device) const {
  Statement st(db_, path_, sql);
  if (device) bind_device(st, *device);
  std::vector<TunedEntry> out;
  int rc;
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) {
    TunedEntry e;
    e.device.device_name = st.column_text(0);
    e.device.compute_capability = st.column_text(1);
    e.device.sm_count = sqlite3_column_int(st.s, 2);
    e.device.driver_version = sqlite3_column_int(st.s, 3);
    e.device.library_version = st.column_text(4);
    e.device.source_hash = st.column_text(5);
    e.problem = st.column_text(6);
    e.config = st.column_text(7);
    e.measured_us = sqlite3_column_double(st.s, 8);
    e.auto_us = sqlite3_column_double(st.s, 9);
    e.tuned_at = st.column_text(10);
    out.push_back(std::move(e));
  }
  if (rc != SQLITE_DONE) fail(path_, std::string("reading entries failed: ") + sqlite3_errmsg(db_));
  return out;
}

std::vector<TunedEntry> TuningDatabase::entries_for(const DeviceKey& device) const {
  const std::string sql = std::string("SELECT ") + kColumns + " FROM tuned WHERE " + kDeviceMatch + " ORDER BY problem";
  return select(sql.c_str(), &device);
}

std::vector<TunedEntry> TuningDatabase::all() const {
  const std::string sql = std::string("SELECT ") + kColumns + " FROM tuned ORDER BY device_name, problem";
  return select(sql.c_str(), nullptr);
}

int TuningDatabase::clear() {
  exec("BEGIN IMMEDIATE");
  Statement st(db_, path_, "DELETE FROM tuned");
  const int rc = sqlite3_step(st.s);
  const int removed = sqlite3_changes(db_);
  if (rc != SQLITE_DONE) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    fail(path_, std::string("clearing failed: ") + sqlite3_errmsg(db_));
  }
  exec("COMMIT");
  return removed;
}

}  // namespace detail
}  // namespace tilegemm
