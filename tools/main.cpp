// The tilegemm command: bench, check, info, overhead and tune. Every error becomes one line on stderr,
// "tilegemm: error: ...", and a non-zero exit status.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "commands.hpp"
#include "profiler/operation_profiler.hpp"
#include "profiler/report.hpp"
#include "tilegemm/error.hpp"
#include "tilegemm/log.hpp"

namespace {
int fail(const std::string& message, int code = 1) {
  std::fprintf(stderr, "tilegemm: error: %s\n", message.c_str());
  return code;
}
}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv, argv + argc);
  // The library's messages (a tuning database or a cached kernel it ignored) go to stderr.
  tilegemm::set_log_callback([](tilegemm::LogLevel level, const std::string& message) {
    std::fprintf(stderr, "tilegemm: %s: %s\n", level == tilegemm::LogLevel::Warning ? "warning" : "info",
                 message.c_str());
  });
  CLI::App app{"tilegemm: fast matrix multiplication on NVIDIA GPUs, measured against cuBLAS"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tilegemm " + tilegemm::tools::build_info().version);
  tilegemm::tools::add_bench_command(app, args);
  tilegemm::tools::add_check_command(app);
  tilegemm::tools::add_info_command(app);
  tilegemm::tools::add_overhead_command(app);
  tilegemm::tools::add_tune_command(app);
  // CLI11 reports a mistyped command as "A subcommand is required"; name it instead.
  if (argc > 1 && argv[1][0] != '-') {
    try {
      app.get_subcommand(argv[1]);
    } catch (const CLI::OptionNotFound&) {
      return fail(std::string("unknown command '") + argv[1] + "' (expected bench, check, info, overhead or tune)");
    }
  }
  try {
    // bench/check/tune take an operation word; make it explicit (gemm by default, --sparse = bsr).
    std::vector<std::string> words = tilegemm::tools::with_operation(args, app);
    std::vector<char*> word_ptrs;
    for (std::string& w : words) word_ptrs.push_back(w.data());
    app.parse(static_cast<int>(word_ptrs.size()), word_ptrs.data());
  } catch (const CLI::Success& e) {  // --help, --version: CLI11 prints them, exit 0
    return app.exit(e);
  } catch (const CLI::ParseError& e) {  // CLI11's own checks: unknown options, --warm with --cold, ...
    return fail(std::string(e.what()) + " (see tilegemm --help)", e.get_exit_code() ? e.get_exit_code() : 1);
  } catch (const tilegemm::Error& e) {
    return fail(e.what());
  } catch (const std::exception& e) {
    return fail(e.what());
  } catch (...) {
    return fail("unexpected exception");
  }
  return 0;
}
