#include "core/cache_dir.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>

namespace tilegemm {
namespace detail {

namespace {
std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : "";
}
}  // namespace

std::string cache_dir() {
  if (!env("TILEGEMM_CACHE_DIR").empty()) return env("TILEGEMM_CACHE_DIR");
  if (!env("XDG_CACHE_HOME").empty()) return env("XDG_CACHE_HOME") + "/tilegemm";
  return (env("HOME").empty() ? std::string("/tmp") : env("HOME")) + "/.cache/tilegemm";
}

bool make_folders(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); ++i)
    if (i == dir.size() || dir[i] == '/') {
      const std::string part = dir.substr(0, i);
      if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
  return true;
}

}  // namespace detail
}  // namespace tilegemm
