// Parsing and validation of `tilegemm tune gemm|bsr` (tools/cmd_tune.cpp). Pure host code.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "options.hpp"
#include "sparse_options.hpp"
#include "tilegemm/tune.hpp"

namespace tilegemm {
namespace tools {

// tilegemm tune: either a tuning run over shapes, or one database action (--list, --export, --import,
// --clear) that needs no GPU.
struct TuneArgs {  // as typed
  std::string operation = "gemm";  // gemm | bsr
  std::vector<std::string> shapes;
  std::string preset, layout = "row", trans = "NN", ld = "+0", offset = "0";
  double budget_s = 30, min_time = 0.05;
  int top = 12;  // configs to measure at most per shape; 0 = every legal config
  bool exhaustive = false;
  bool jit = false;  // also run-time compiled variants
  bool no_store = false;
  std::string db;  // empty: tilegemm::tuning_database_path()
  bool list = false, clear = false;
  std::string export_path, import_path;
  std::string csv, json;
  // bsr: W's blocks, sparsities and row distributions for --shape, the product, the seed of W (the
  // bench's: the same problem gets the same W in both commands).
  std::vector<std::string> blocks, sparsities, rows;
  std::string op = "xwt", seed = "1";
  std::vector<std::string> given;  // the options given on the command line ("--layout", ...)
};
struct TunePlan {
  enum class Action { Tune, List, Export, Import, Clear };
  Action action = Action::Tune;
  bool bsr = false;               // the operation
  std::vector<Problem> problems;  // Action::Tune, gemm
  std::vector<SparseProblem> sparse_problems;  // Action::Tune, bsr
  uint64_t seed = 1;                           // bsr: W's and X's seeds (sparse_w_seed)
  TuneOptions options;  // Action::Tune: everything but the progress and cancel callbacks
  std::string db;    // the database path (resolved: never empty; also options.database)
  std::string file;  // --export / --import
  std::string csv, json;
};
// Checks every argument and the output files; touches no GPU. `default_db` is used without --db.
TunePlan plan_tune(const TuneArgs& args, const std::string& default_db);

}  // namespace tools
}  // namespace tilegemm
