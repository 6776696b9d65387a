#include "operation_profiler.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tilegemm/error.hpp"

namespace tilegemm {
namespace tools {

namespace {
[[noreturn]] void invalid(const std::string& message) { throw Error(ErrorCode::InvalidArgument, message); }
}  // namespace

void CheckTable::print_header() const {
  std::printf("%-*s %-*s %-10s %12s %12s\n", c_.problem_width, "shape", c_.label_width, "kernel", "reference",
              "max error", "tolerance");
}

void CheckTable::result(const std::string& problem, const std::string& label, const char* reference, const Diff& d,
                        double tol) {
  const bool ok = !d.non_finite && d.max_abs <= tol;
  std::printf("%-*s %-*s %-10s %12.3g %12.3g %s\n", c_.problem_width, problem.c_str(), c_.label_width, label.c_str(),
              reference, d.non_finite ? NAN : d.max_abs, tol, ok ? "PASS" : "FAIL");
  failures_ += ok ? 0 : 1;
}

void CheckTable::skipped(const std::string& problem, const std::string& label, const std::string& why) const {
  std::printf("%-*s %-*s skipped: %s\n", c_.problem_width, problem.c_str(), c_.label_width, label.c_str(), why.c_str());
}

std::vector<std::string> with_operation(const std::vector<std::string>& args, const CLI::App& app) {
  if (args.size() < 2) return args;
  const std::string& command = args[1];
  if (command != "bench" && command != "check" && command != "tune") return args;
  const CLI::App* cmd = app.get_subcommand(command);
  std::vector<std::string> names;
  for (const auto& p : profilers()) names.push_back(p->name());

  std::vector<std::string> rest(args.begin() + 2, args.end());
  std::string operation;
  if (!rest.empty() && !rest.front().empty() && rest.front()[0] != '-') {
    if (std::find(names.begin(), names.end(), rest.front()) == names.end())
      invalid("operation '" + rest.front() + "': unknown (expected " + join_alternatives(names) + ")");
    operation = rest.front();
    rest.erase(rest.begin());
  }
  // A flag alias (before any "--") selects its operation; it must not contradict an operation word.
  for (const auto& p : profilers()) {
    const std::string flag = p->flag_alias();
    const auto options_end = std::find(rest.begin(), rest.end(), "--");
    if (flag.empty() || std::find(rest.begin(), options_end, flag) == options_end) continue;
    if (!operation.empty() && operation != p->name())
      invalid(flag + ": not available with " + command + " " + operation + " (it selects " + command + " " +
              p->name() + ")");
    operation = p->name();
    rest.erase(std::remove(rest.begin(), options_end, flag), options_end);
  }
  if (operation.empty()) {
    // `tilegemm bench --help` lists the operations; anything else runs the default one.
    if (rest.size() == 1 && (rest[0] == "--help" || rest[0] == "-h")) return args;
    operation = names.front();
  }

  // An option only another operation has gets a message naming both, not "unexpected argument".
  const CLI::App* mine = cmd->get_subcommand(operation);
  for (const std::string& a : rest) {
    if (a == "--") break;
    if (a.size() < 3 || a.compare(0, 2, "--") != 0) continue;
    const std::string name = a.substr(0, a.find('='));
    if (mine->get_option_no_throw(name) != nullptr || name == "--help") continue;
    for (const std::string& other : names)
      if (other != operation && cmd->get_subcommand(other)->get_option_no_throw(name) != nullptr)
        invalid(name + ": not available with " + command + " " + operation + " (an option of " + command + " " +
                other + ")");
  }
  std::vector<std::string> out = {args[0], command, operation};
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

}  // namespace tools
}  // namespace tilegemm
