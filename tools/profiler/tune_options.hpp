// Parsing and validation of the options `tilegemm tune <operation>` shares across operations
// (tools/cmd_tune.cpp): the tuning budget, the database and its actions, the output files. The
// problems come from the operation's profiler. Pure host code.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tilegemm/tune.hpp"

namespace tilegemm {
namespace tools {

// tilegemm tune: either a tuning run over shapes, or one database action (--list, --export, --import,
// --clear) that needs no GPU.
struct TuneArgs {  // as typed
  std::vector<std::string> shapes;  // the operation's profiler parses --shape and --preset
  std::string preset;
  double budget_s = 30, min_time = 0.05;
  int top = 12;  // configs to measure at most per shape; 0 = every legal config
  bool exhaustive = false;
  bool jit = false;  // also run-time compiled variants
  bool no_store = false;
  std::string db;  // empty: tilegemm::tuning_database_path()
  bool list = false, clear = false;
  std::string export_path, import_path;
  std::string csv, json;
};
struct TunePlan {
  enum class Action { Tune, List, Export, Import, Clear };
  Action action = Action::Tune;
  TuneOptions options;  // Action::Tune: everything but the progress and cancel callbacks
  std::string db;    // the database path (resolved: never empty; also options.database)
  std::string file;  // --export / --import
  std::string csv, json;
};
// Checks every shared argument and the output files; touches no GPU. `default_db` is used without --db.
// A tuning run (Action::Tune) needs --shape or --preset.
TunePlan plan_tune(const TuneArgs& args, const std::string& default_db);

}  // namespace tools
}  // namespace tilegemm
