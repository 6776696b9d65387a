// The tilegemm command: bench, check and info. Errors become one line on stderr and a non-zero exit.
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "tilegemm/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"tilegemm: fast matrix multiplication on NVIDIA GPUs, measured against cuBLAS"};
  app.require_subcommand(1);
  tilegemm::tools::add_bench_command(app);
  tilegemm::tools::add_check_command(app);
  tilegemm::tools::add_info_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const tilegemm::Error& e) {
    std::fprintf(stderr, "tilegemm: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tilegemm: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
