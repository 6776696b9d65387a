#include "tune/tuned_table.hpp"

#include <sys/stat.h>

#include <mutex>
#include <string>

#include "core/device_context.hpp"
#include "core/log.hpp"
#include "ops/context_state.hpp"
#include "ops/keys.hpp"
#include "ops/registry.hpp"
#include "tilegemm/error.hpp"
#include "tune/keys.hpp"  // device_key

namespace tilegemm {
namespace detail {

namespace {

bool file_exists(const std::string& path) {
  struct stat st{};
  return stat(path.c_str(), &st) == 0;
}


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
      (void)ops::registry().parse(e.config, "config", ops::key_kind(e.problem));
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
  if (!ctx.tuned_loaded) {
    load(ctx);
    ctx.tuned_loaded = true;
  }
  if (ctx.tuned_configs.empty()) return "";  // nothing tuned: no key built on the hot path
  const auto it = ctx.tuned_configs.find(problem());
  return it == ctx.tuned_configs.end() ? "" : it->second;
}

}  // namespace

ops::Config tuned_config(const DeviceContext& ctx, const ops::Problem& p) {
  std::string text = tuned_text(ctx, [&] { return ops::problem_key(p); });
  // A batched or epilogue call without an entry of its own takes the single plain product's.
  if (text.empty() && p.kind == ops::OpKind::Gemm && (p.batch > 1 || !p.plain_epilogue()))
    text = tuned_text(ctx, [&] { return ops::problem_key(ops::plain_single(p)); });
  if (text.empty()) return ops::Config();
  return ops::registry().parse(text, "config", p.kind);  // parsed once at load: cannot throw here
}

void remember_tuned(const DeviceContext& ctx, const TunedEntry& e) {
  {
    std::lock_guard<std::mutex> lock(ctx.tuned_mutex);
    if (ctx.tuned_loaded) ctx.tuned_configs[e.problem] = e.config;
  }
  ctx.ops->choices.clear();
}

void forget_tuned_tables() {
  for_each_device_context([](const DeviceContext& ctx) {
    {
      std::lock_guard<std::mutex> lock(ctx.tuned_mutex);
      ctx.tuned_loaded = false;
    }
    ctx.ops->choices.clear();
  });
}

}  // namespace detail
}  // namespace tilegemm
