// tilegemm check <operation>: every contender over a problem set against an independent reference
// (the CPU reference in double accumulation for small problems, cuBLAS FP32 for large ones). Exits
// non-zero on any failure. All arguments are checked before the device is touched.
#include <cstdio>

#include "commands.hpp"
#include "profiler/operation_profiler.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace tools {

namespace {

void run_check(OperationProfiler& op) {
  const size_t problems = op.plan_check();  // every argument, before the device is touched
  require_supported_device();
  op.start_check(current_device_info());
  CheckTable table(op.check_columns());
  table.print_header();
  for (size_t i = 0; i < problems; ++i) op.check_problem(i, table);
  if (table.failures())
    throw Error(ErrorCode::Internal, std::to_string(table.failures()) + " kernel/problem combinations failed");
  std::printf("all checks passed\n");
}

}  // namespace

void add_check_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "check", "Verify every kernel against the CPU reference or cuBLAS; gemm unless an operation is named");
  cmd->require_subcommand(1);
  for (const auto& p : profilers()) {
    CLI::App* sub = cmd->add_subcommand(p->name(), p->summary());
    p->add_check_options(sub);
    OperationProfiler* op = p.get();
    sub->callback([op] { run_check(*op); });
  }
}

}  // namespace tools
}  // namespace tilegemm
