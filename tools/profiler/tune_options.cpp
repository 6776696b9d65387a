#include "tune_options.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>

#include "run_options.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace tools {

namespace {
[[noreturn]] void invalid(const std::string& message) { throw Error(ErrorCode::InvalidArgument, message); }
}  // namespace

TunePlan plan_tune(const TuneArgs& args, const std::string& default_db) {
  TunePlan plan;
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

  if (args.shapes.empty() && args.preset.empty()) invalid("--shape: no shapes to tune (give --shape or --preset)");
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
  // The file system: every output must be writable before the measuring starts.
  check_output_files(plan.csv, plan.json);
  return plan;
}

}  // namespace tools
}  // namespace tilegemm
