// Test scaffolding for the library's process-wide inputs: a fresh temporary folder, an environment
// variable set for one test (restored afterwards), and the warnings the library logs meanwhile.
#pragma once
#include <stdlib.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "tilegemm/log.hpp"

namespace tilegemm {
namespace testing_env {

// mkdtemp under /tmp; removed with its contents on destruction.
class TempDir {
 public:
  explicit TempDir(const char* prefix) {
    std::string tmpl = std::string("/tmp/") + prefix + "-XXXXXX";
    if (mkdtemp(&tmpl[0])) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }  // empty when the folder could not be made

 private:
  std::string path_;
};

// Sets `name` to `value` until destruction, then restores the old value (or unsets it).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    const char* old = std::getenv(name);
    had_old_ = old != nullptr;
    if (old) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_old_) setenv(name_.c_str(), old_.c_str(), 1);
    else unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_, old_;
  bool had_old_ = false;
};

// Collects the library's warnings (set_log_callback) until destruction.
class WarningLog {
 public:
  WarningLog() {
    set_log_callback([this](LogLevel level, const std::string& m) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (level == LogLevel::Warning) warnings_.push_back(m);
    });
  }
  ~WarningLog() { set_log_callback({}); }
  WarningLog(const WarningLog&) = delete;
  WarningLog& operator=(const WarningLog&) = delete;
  std::vector<std::string> warnings() {
    std::lock_guard<std::mutex> lock(mutex_);
    return warnings_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> warnings_;
};

}  // namespace testing_env
}  // namespace tilegemm
