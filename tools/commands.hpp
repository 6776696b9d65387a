// Subcommands of the tilegemm command (one file each).
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "harness.hpp"

namespace tilegemm {
namespace tools {

void add_bench_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_info_command(CLI::App& app);

// "MxNxK" -> Problem (layout and ops left default). Throws Error(InvalidArgument) naming `what`.
Problem parse_shape(const std::string& s, const char* what = "--shape");
// "lo:hi:xF" (geometric) or "lo:hi:+S" (arithmetic) -> square sizes.
std::vector<int64_t> parse_sizes(const std::string& s, const char* what = "--sizes");
// Named shape sets: textbook, tvm-post, odd, small.
std::vector<Problem> preset_shapes(const std::string& name);

}  // namespace tools
}  // namespace tilegemm
