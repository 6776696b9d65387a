#include "ops/choose.hpp"

#include <algorithm>

#include "ops/registry.hpp"

namespace tilegemm {
namespace ops {

Config Ranking::best() const {
  if (!estimated.empty()) return estimated.front().config;
  if (!measure_only.empty()) return measure_only.front();
  return Config();
}

namespace {

// The gap of a launch queued right after the product in the same stream.
constexpr double kPassLaunchUs = 2.0;

// Appends family f's legal candidates for `call` to `out` (unsorted), or its reason for having none.
void add_candidates(const Family& f, const Problem& call, const DeviceFacts& d, Ranking& out) {
  const Problem p = launch_problem(f, call);
  std::string unsupported = f.supports(p);
  if (unsupported.empty()) unsupported = f.runs_on(d);
  if (!unsupported.empty()) {
    out.refusals.push_back(std::string(f.name()) + ": " + unsupported);
    return;
  }
  std::string first_refusal;
  bool any = false;
  for (Config& c : f.candidates(p, d)) {
    const std::string why = f.can_implement(p, c);
    if (!why.empty()) {
      if (first_refusal.empty()) first_refusal = why;
      continue;
    }
    any = true;
    if (std::optional<Estimate> e = call_estimate(f, call, c, d)) out.estimated.push_back({std::move(c), std::move(*e)});
    else out.measure_only.push_back(std::move(c));
  }
  if (!any)
    out.refusals.push_back(std::string(f.name()) + ": " +
                           (first_refusal.empty() ? "no config of it fits this product" : first_refusal));
}

Ranking sorted(Ranking out) {
  std::stable_sort(out.estimated.begin(), out.estimated.end(),
                   [](const Ranked& a, const Ranked& b) { return a.estimate.rank_us < b.estimate.rank_us; });
  return out;
}

}  // namespace

double epilogue_pass_us(const Problem& p, const DeviceFacts& d) {
  const double bus = d.bus_bytes_per_s();
  const double bytes = 2.0 * dtype_bytes(p.c_type) * double(p.m) * double(p.n);
  return kPassLaunchUs + bytes / (0.75 * bus) * 1e6;
}

std::optional<Estimate> call_estimate(const Family& f, const Problem& p, const Config& c, const DeviceFacts& d) {
  std::optional<Estimate> e = f.estimate(launch_problem(f, p), c, d);
  if (e && !p.plain_epilogue() && !f.fuses_epilogue()) {
    // One pass per product: a family that runs the batches in one launch is still followed by p.batch.
    const double pass = epilogue_pass_us(p, d) * static_cast<double>(f.runs_batches() ? p.batch : 1);
    e->us += pass;
    e->rank_us += pass;
    e->why += "; the epilogue's pass over C " + std::to_string(static_cast<int>(pass + 0.5)) + " us";
  }
  const int64_t n = launches(f, p);
  if (e && n > 1) {
    e->us *= static_cast<double>(n);
    e->rank_us *= static_cast<double>(n);
    e->why += "; one launch per batch: x" + std::to_string(n);
  }
  return e;
}

Ranking rank(const Problem& p, const DeviceFacts& d) {
  Ranking out;
  for (const Family* f : registry().families(p.kind)) add_candidates(*f, p, d, out);
  return sorted(std::move(out));
}

Ranking rank(const Problem& p, const DeviceFacts& d, const Family& only) {
  Ranking out;
  add_candidates(only, p, d, out);
  return sorted(std::move(out));
}

std::string no_family_reason(const Problem& p, const Ranking& r) {
  std::string s = std::string("no kernel family can run this ") + to_string(p.kind) + " product (" + dtype_text(p) + ")";
  for (const std::string& why : r.refusals) s += "; " + why;
  return s;
}

bool ChoiceCache::find(const Problem& p, Config* out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = choices_.find(p);
  if (it == choices_.end()) return false;
  *out = it->second;
  return true;
}

void ChoiceCache::insert(const Problem& p, const Config& c) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (choices_.size() >= kMaxEntries) choices_.clear();
  choices_.emplace(p, c);
}

void ChoiceCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  choices_.clear();
}

Decision decide(const Problem& p, const DeviceFacts& d, const TunedLookup& tuned) {
  Decision out;
  if (tuned) out.config = tuned(p);
  // An entry that cannot run this call (other leading dimensions; tuned on tensor cores, math = ffma).
  if (!out.config.empty() &&
      !out.config.family()->can_implement(launch_problem(*out.config.family(), p), out.config).empty())
    out.config = Config();
  out.tuned = !out.config.empty();
  if (!out.tuned) {
    out.ranking = rank(p, d);
    out.config = out.ranking.best();
  }
  return out;
}

Config choose(const Problem& p, const DeviceFacts& d, ChoiceCache& cache, const TunedLookup& tuned) {
  Config c;
  if (cache.find(p, &c)) return c;
  c = decide(p, d, tuned).config;
  cache.insert(p, c);
  return c;
}

}  // namespace ops
}  // namespace tilegemm
