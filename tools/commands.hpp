// Subcommands of the tilegemm command (one file each). Each parses and validates all of its arguments
// (no GPU needed) before it touches the device. bench, check and tune take an operation
// (profiler/operation_profiler.hpp); overhead and info are about the GEMM entry and the device.
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace tilegemm {
namespace tools {

// argv: the whole command line, recorded in the JSON report; argv[0] also locates the plot script.
void add_bench_command(CLI::App& app, const std::vector<std::string>& argv);
void add_check_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_overhead_command(CLI::App& app);
void add_tune_command(CLI::App& app);

}  // namespace tools
}  // namespace tilegemm
