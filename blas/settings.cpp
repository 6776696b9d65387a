#include "settings.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <strings.h>

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
  // The words of tilegemm::parse_math (this library stays free of the device library, for its tests).
  if (const char* v = std::getenv("TILEGEMM_BLAS_MATH"); v != nullptr && *v != '\0') {
    if (strcasecmp(v, "ffma") == 0) s.math = Settings::Math::Ffma;
    else if (strcasecmp(v, "tf32") == 0) s.math = Settings::Math::Tf32;
    else if (strcasecmp(v, "fp32") != 0)
      s.problem += std::string(s.problem.empty() ? "" : "; ") + "TILEGEMM_BLAS_MATH='" + v +
                   "' is not fp32, ffma or tf32, the default (fp32) applies";
  }
  return s;
}

}  // namespace

const Settings& settings() {
  static const Settings s = read_settings();
  return s;
}

}  // namespace blas
}  // namespace tilegemm
