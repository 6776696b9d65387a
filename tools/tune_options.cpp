#include "tune_options.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>

#include "shapes.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace tools {

namespace {
[[noreturn]] void invalid(const std::string& message) { throw Error(ErrorCode::InvalidArgument, message); }
}  // namespace

TunePlan plan_tune(const TuneArgs& args, const std::string& default_db) {
  TunePlan plan;
  if (args.operation != "gemm" && args.operation != "bsr")
    invalid("operation '" + args.operation + "': unknown (expected gemm or bsr)");
  plan.bsr = args.operation == "bsr";
  auto given = [&](const char* name) { return std::find(args.given.begin(), args.given.end(), name) != args.given.end(); };
  const std::vector<const char*> dense_only = {"--layout", "--trans", "--ld", "--offset"};
  const std::vector<const char*> sparse_only = {"--block", "--sparsity", "--rows", "--op", "--seed"};
  for (const char* name : plan.bsr ? dense_only : sparse_only)
    if (given(name))
      invalid(std::string(name) + ": not available with tune " + args.operation + " (it describes a " +
              (plan.bsr ? "dense" : "block-sparse") + " problem)");
  const int actions = int(args.list) + int(args.clear) + int(!args.export_path.empty()) + int(!args.import_path.empty());
  const bool has_shapes = !args.shapes.empty() || !args.preset.empty();
  if (actions > 1) invalid("--list, --export, --import and --clear: give at most one");
  if (actions == 1 && has_shapes) invalid("--shape/--preset: not available with --list, --export, --import or --clear");
  plan.db = args.db.empty() ? default_db : args.db;
  if (args.list) plan.action = TunePlan::Action::List;
  if (args.clear) plan.action = TunePlan::Action::Clear;
  if (!args.export_path.empty()) {
    plan.action = TunePlan::Action::Export;
    plan.file = args.export_path;
    probe_writable(plan.file, "--export");
  }
  if (!args.import_path.empty()) {
    plan.action = TunePlan::Action::Import;
    plan.file = args.import_path;
    if (!std::ifstream(plan.file)) invalid("--import: cannot read '" + plan.file + "'");
  }
  if (plan.action != TunePlan::Action::Tune) return plan;

  if (plan.bsr) {
    if (args.shapes.empty() && args.preset.empty()) invalid("--shape: no shapes to tune (give --shape or --preset)");
    plan.sparse_problems = parse_sparse_problems(args.preset, args.shapes, args.blocks, args.sparsities, args.rows, args.op);
    for (const SparseProblem& p : plan.sparse_problems)
      if (p.m < 1 || p.n < 1 || p.k < 1 || p.expected_nnzb() == 0)
        invalid("--shape: " + p.str() + " has no stored blocks or an empty dimension: nothing to tune");
    plan.seed = parse_seed(args.seed, "--seed");
  } else {
    if (!args.preset.empty()) plan.problems = preset_shapes(args.preset);
    for (const std::string& s : args.shapes) plan.problems.push_back(parse_shape(s, "--shape"));
    if (plan.problems.empty()) invalid("--shape: no shapes to tune (give --shape or --preset)");
    for (const Problem& p : plan.problems)
      if (p.m < 1 || p.n < 1 || p.k < 1) invalid("--shape: " + p.dims() + " has an empty dimension: nothing to tune");
    apply_layout(plan.problems, args.layout, args.trans, args.ld, args.offset);
  }
  if (!std::isfinite(args.budget_s) || args.budget_s <= 0) invalid("--budget-s: must be > 0 seconds");
  if (!std::isfinite(args.min_time) || args.min_time < 0 || args.min_time > 60)
    invalid("--min-time: must be in [0, 60] seconds");
  if (args.top < 0) invalid("--top: must be >= 0 (0 measures every legal config)");
  plan.options.budget_s = args.budget_s;
  plan.options.min_time_s = args.min_time;
  plan.options.max_measured = args.exhaustive ? 0 : args.top;
  plan.options.store = !args.no_store;
  plan.options.run_time_configs = args.jit;
  plan.options.database = plan.db;
  plan.csv = args.csv;
  plan.json = args.json;
  check_distinct(plan.csv, "--csv", plan.json, "--json");
  if (!plan.csv.empty()) probe_writable(plan.csv, "--csv");
  if (!plan.json.empty()) probe_writable(plan.json, "--json");
  return plan;
}

}  // namespace tools
}  // namespace tilegemm
