#include "tune/tuned_table.hpp"

#include <sys/stat.h>

#include <atomic>
#include <mutex>
#include <string>

#include "core/device_context.hpp"
#include "core/log.hpp"
#include "dense/choose.hpp"
#include "dense/gemm_ops.hpp"
#include "tilegemm/error.hpp"
#include "tune/keys.hpp"

namespace tilegemm {
namespace detail {

namespace {

// Bumped by forget_tuned_tables(): a context whose table was loaded for an older generation reloads.
std::atomic<int> g_generation{0};

bool file_exists(const std::string& path) {
  struct stat st{};
  return stat(path.c_str(), &st) == 0;
}

bool is_bsr_key(const std::string& problem) { return problem.compare(0, 4, "bsr ") == 0; }

// Reads the device's entries into ctx.tuned_configs (ctx.tuned_mutex held).
void load(const DeviceContext& ctx) {
  ctx.tuned_configs.clear();
  const std::string path = default_tuning_db_path();
  if (!file_exists(path)) return;  // nothing tuned yet: not worth a warning
  std::vector<TunedEntry> entries;
  try {
    TuningDatabase db(path, TuningDatabase::Mode::ReadOnly);
    entries = db.entries_for(device_key(ctx));
  } catch (const std::exception& e) {
    log_warning(std::string(e.what()) + "; ignored, Auto uses the analytic chooser");
    return;
  }
  int bad = 0;
  std::string first_bad;
  for (const TunedEntry& e : entries) {
    try {
      if (is_bsr_key(e.problem)) (void)parse_bsr_config(e.config, "config");
      else (void)parse_gemm_config(e.config, "config");
      ctx.tuned_configs[e.problem] = e.config;
    } catch (const std::exception& err) {
      if (bad++ == 0) first_bad = "'" + e.problem + "': " + err.what();
    }
  }
  if (bad > 0)
    log_warning("tuning database '" + path + "': " + std::to_string(bad) + " entr" + (bad == 1 ? "y" : "ies") +
                " ignored (the first, " + first_bad + ")");
}

// The stored config text for `problem` on the context's device (loading the table when needed), or "".
template <class KeyOf>
std::string tuned_text(const DeviceContext& ctx, const KeyOf& problem) {
  std::lock_guard<std::mutex> lock(ctx.tuned_mutex);
  const int generation = g_generation.load();
  if (ctx.tuned_generation != generation) {
    load(ctx);
    ctx.tuned_generation = generation;
  }
  if (ctx.tuned_configs.empty()) return "";  // nothing tuned: no key built on the hot path
  const auto it = ctx.tuned_configs.find(problem());
  return it == ctx.tuned_configs.end() ? "" : it->second;
}

}  // namespace

std::optional<GemmConfig> tuned_gemm_config(const DeviceContext& ctx, const GemmProblem& p) {
  const std::string text = tuned_text(ctx, [&] { return gemm_problem_key(p); });
  if (text.empty()) return std::nullopt;
  GemmConfig c = parse_gemm_config(text, "config");  // parsed once at load: cannot throw here
  if (!can_implement(p, c).empty()) return std::nullopt;  // an entry made with other leading dimensions or extents
  return c;
}

std::optional<BsrConfig> tuned_bsr_config(const DeviceContext& ctx, const BsrProblem& prob) {
  const std::string text = tuned_text(ctx, [&] { return bsr_problem_key(prob); });
  if (text.empty()) return std::nullopt;
  BsrConfig c = parse_bsr_config(text, "config");
  if (!bsr_can_implement(prob, c).empty()) return std::nullopt;
  return c;
}

void remember_tuned(const DeviceContext& ctx, const TunedEntry& e) {
  {
    std::lock_guard<std::mutex> lock(ctx.tuned_mutex);
    if (ctx.tuned_generation == g_generation.load()) ctx.tuned_configs[e.problem] = e.config;
  }
  clear_choice_cache();
}

void forget_tuned_tables() {
  g_generation.fetch_add(1);
  clear_choice_cache();
}

}  // namespace detail
}  // namespace tilegemm
