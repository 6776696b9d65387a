#include "settings.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace tilegemm {
namespace blas {

bool parse_count(const char* text, double* out) {
  if (text == nullptr || *text == '\0') return false;
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !std::isfinite(v) || v < 0) return false;
  *out = v;
  return true;
}

namespace {

bool flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

Settings read_settings() {
  Settings s;
  s.quiet = flag("TILEGEMM_BLAS_QUIET");
  s.log = flag("TILEGEMM_BLAS_LOG");
  auto count = [&](const char* name, double* out) {
    const char* v = std::getenv(name);
    if (v != nullptr && !parse_count(v, out))
      s.problem += std::string(s.problem.empty() ? "" : "; ") + name + "='" + v +
                   "' is not a non-negative number, the default applies";
  };
  count("TILEGEMM_BLAS_MIN_FLOPS", &s.min_flops);
  count("TILEGEMM_BLAS_CHUNK_BYTES", &s.chunk_bytes);
  s.chunk_bytes = s.chunk_bytes < 1 ? 1 : s.chunk_bytes;
  return s;
}

}  // namespace

const Settings& settings() {
  static const Settings s = read_settings();
  return s;
}

}  // namespace blas
}  // namespace tilegemm
