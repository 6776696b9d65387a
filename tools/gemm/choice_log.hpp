// TILEGEMM_LOG_CHOICE=1: bench and check print, for every problem, the config Kernel::Auto runs and
// why (tilegemm::explain_choice) on stderr. The library itself never prints.
#pragma once
#include <string>

#include "problem.hpp"
#include "tilegemm/gemm.hpp"

namespace tilegemm {
namespace tools {

// True when the environment variable TILEGEMM_LOG_CHOICE is set to a value other than "" or "0".
bool log_choice_requested();
// The text printed for one problem (one line per field), from explain_choice's answer.
std::string choice_text(const Problem& p, const GemmChoice& choice);
// Prints choice_text for Auto on the problem (laid out at a, b, c) to stderr.
void log_choice_for(const Problem& p, const void* a, const void* b, const void* c);

}  // namespace tools
}  // namespace tilegemm
