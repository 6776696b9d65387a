// Shapes from the command line: MxNxK, size sweeps, named presets, layout and transposes. Every parser
// throws Error(InvalidArgument) whose message starts with the option name (`what`) and quotes the value.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "problem.hpp"
#include "profiler/run_options.hpp"

namespace tilegemm {
namespace tools {

// Largest M, N or K accepted: cuBLAS and the launchers take 32-bit sizes.
inline constexpr int64_t kMaxDim = 2147483647;
// Most sizes one --sizes sweep may produce (a typo like 1:100000:+1 should not queue 10^5 runs).
inline constexpr size_t kMaxSweepSizes = 1000;

// "MxNxK" -> Problem (layout and ops left default); each of M, N, K in [0, kMaxDim].
Problem parse_shape(const std::string& s, const char* what = "--shape");
// "LO:HI:xF" (LO, LO*F, ... <= HI) or "LO:HI:+S" (LO, LO+S, ... <= HI) -> square sizes.
std::vector<int64_t> parse_sizes(const std::string& s, const char* what = "--sizes");
// Named shape sets (preset_names() lists them); unknown names throw naming --preset.
std::vector<Problem> preset_shapes(const std::string& name);
const std::vector<std::string>& preset_names();
// "NN", "NT", "TN", "TT" (case-insensitive) -> (op(A), op(B)).
std::pair<Op, Op> parse_trans(const std::string& s, const char* what = "--trans");


}  // namespace tools
}  // namespace tilegemm
