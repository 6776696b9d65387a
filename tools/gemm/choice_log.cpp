#include "choice_log.hpp"

#include <cstdio>
#include <cstdlib>

#include "contenders.hpp"

namespace tilegemm {
namespace tools {

bool log_choice_requested() {
  const char* v = std::getenv("TILEGEMM_LOG_CHOICE");
  return v != nullptr && v[0] != '\0' && std::string(v) != "0";
}

std::string choice_text(const Problem& p, const GemmChoice& choice) {
  char head[160];
  std::snprintf(head, sizeof head, " (%s%s), predicted %.1f us\n", choice.kind.c_str(),
                choice.tuned ? ", tuned" : "", choice.predicted_us);
  std::string out = "tilegemm: auto on " + p.str() + ": " + choice.config + head;
  out += "  why: " + choice.reason + "\n";
  for (const auto& [config, us] : choice.runners_up) {
    char line[64];
    std::snprintf(line, sizeof line, " (%.1f us)\n", us);
    out += "  next: " + config + line;
  }
  return out;
}

void log_choice_for(const Problem& p, const void* a, const void* b, const void* c) {
  const GemmChoice choice = explain_choice(gemm_args(p, a, b, c));
  std::fprintf(stderr, "%s", choice_text(p, choice).c_str());
}

}  // namespace tools
}  // namespace tilegemm
