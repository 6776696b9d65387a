// The tuning database: the best config measured per (device, problem), in SQLite. Entries are keyed
// by everything that makes a measurement stale — the device's name, compute capability and SM count,
// the driver, the library version and a hash of the kernel sources — so an entry from another GPU,
// driver, release or kernel source is never applied. Writes are transactions (a writer killed midway
// leaves the previous state), the file is in WAL mode with a busy timeout (two tuners writing at once
// both keep their results), and a stored entry is only replaced by a faster one.
#pragma once
#include <string>
#include <vector>

struct sqlite3;

namespace tilegemm {
namespace detail {

struct DeviceKey {
  std::string device_name;         // "NVIDIA H100 80GB HBM3"
  std::string compute_capability;  // "9.0"
  int sm_count = 0;
  int driver_version = 0;          // cudaDriverGetVersion, e.g. 13000
  std::string library_version;     // "0.1.0"
  std::string source_hash;         // kernel_source_hash()
  bool operator==(const DeviceKey& o) const {
    return device_name == o.device_name && compute_capability == o.compute_capability && sm_count == o.sm_count &&
           driver_version == o.driver_version && library_version == o.library_version &&
           source_hash == o.source_hash;
  }
};
std::string to_string(const DeviceKey& k);  // one line, for listings and warnings

struct TunedEntry {
  DeviceKey device;
  std::string problem;      // ops::problem_key(): "gemm f32 4096x4096x4096 NN a16 b16 beta0"
  std::string config;       // the winner's text form
  double measured_us = 0;   // its median time when tuned
  double auto_us = 0;       // the untuned Auto pick's time in the same run (0: not measured)
  std::string tuned_at;     // UTC, ISO 8601
};

// Where the database lives: $TILEGEMM_TUNING_DB, else tuning.sqlite3 in $TILEGEMM_CACHE_DIR, else in
// $XDG_CACHE_HOME/tilegemm, else in $HOME/.cache/tilegemm.
std::string default_tuning_db_path();
// The current time in UTC, ISO 8601 ("2026-11-25T10:00:00Z").
std::string utc_now();

class TuningDatabase {
 public:
  enum class Mode { ReadOnly, ReadWrite };
  // Opens the database at `path` (ReadWrite creates it and its folder). Throws Error(InvalidArgument)
  // naming the path when it cannot be opened, is not an SQLite file, fails its integrity check or is
  // not a tilegemm tuning database of this schema.
  TuningDatabase(const std::string& path, Mode mode);
  ~TuningDatabase();
  TuningDatabase(const TuningDatabase&) = delete;
  TuningDatabase& operator=(const TuningDatabase&) = delete;

  // Stores `e` unless an entry for the same device and problem is at least as fast; returns whether
  // it was stored.
  bool put(const TunedEntry& e);
  // The entries of one device key (exact match on every field), or of every device.
  std::vector<TunedEntry> entries_for(const DeviceKey& device) const;
  std::vector<TunedEntry> all() const;
  // Removes every entry; returns how many there were.
  int clear();
  const std::string& path() const { return path_; }

 private:
  void exec(const char* sql) const;
  int count(const char* sql) const;  // the first column of a one-row query
  void set_wal_mode() const;
  std::vector<TunedEntry> select(const char* sql, const DeviceKey* device) const;
  sqlite3* db_ = nullptr;
  std::string path_;
};

}  // namespace detail
}  // namespace tilegemm
