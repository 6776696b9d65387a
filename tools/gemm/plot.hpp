// Drawing the TFLOP/s-vs-size plot of a bench run: bench/plot_gflops.py, run as `python3 -u SCRIPT CSV OUT`.
#pragma once
#include <string>

namespace tilegemm {
namespace tools {

// Exit status of the script when matplotlib cannot be imported (it prints the install hint).
inline constexpr int kPlotExitNoMatplotlib = 3;

// Path of this executable (/proc/self/exe), or `argv0` where that cannot be read.
std::string current_executable(const char* argv0);
// The plotting script: `env_value` ($TILEGEMM_PLOT_SCRIPT) when non-null and non-empty, else
// <directory of exe_path>/../bench/plot_gflops.py (build/tilegemm and dist/tilegemm both sit one level
// below the source tree). Throws Error(InvalidArgument) naming --plot when the file is missing.
std::string find_plot_script(const std::string& exe_path, const char* env_value);
// Runs python3 SCRIPT CSV OUT, returns what it printed. Throws Error when python3 cannot be started or
// the script fails; the message is the script's last line (for a missing matplotlib: the install hint).
std::string run_plot_script(const std::string& script, const std::string& csv, const std::string& out);

}  // namespace tools
}  // namespace tilegemm
