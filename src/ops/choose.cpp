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

Ranking rank(const Problem& p, const DeviceFacts& d) {
  Ranking out;
  for (const Family* f : registry().families(p.kind)) {
    const std::string unsupported = f->supports(p);
    if (!unsupported.empty()) {
      out.refusals.push_back(std::string(f->name()) + ": " + unsupported);
      continue;
    }
    std::string first_refusal;
    bool any = false;
    for (Config& c : f->candidates(p, d)) {
      const std::string why = f->can_implement(p, c);
      if (!why.empty()) {
        if (first_refusal.empty()) first_refusal = why;
        continue;
      }
      any = true;
      if (std::optional<Estimate> e = f->estimate(p, c, d)) out.estimated.push_back({std::move(c), std::move(*e)});
      else out.measure_only.push_back(std::move(c));
    }
    if (!any) out.refusals.push_back(std::string(f->name()) + ": " + (first_refusal.empty() ? "no config of it fits this product" : first_refusal));
  }
  std::stable_sort(out.estimated.begin(), out.estimated.end(),
                   [](const Ranked& a, const Ranked& b) { return a.estimate.rank_us < b.estimate.rank_us; });
  return out;
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

Config choose(const Problem& p, const DeviceFacts& d, ChoiceCache& cache, const TunedLookup& tuned) {
  Config c;
  if (cache.find(p, &c)) return c;
  if (tuned) c = tuned(p);
  if (!c.empty() && !c.family()->can_implement(p, c).empty()) c = Config();  // e.g. tuned on tensor cores, math = ffma
  if (c.empty()) c = rank(p, d).best();
  cache.insert(p, c);
  return c;
}

}  // namespace ops
}  // namespace tilegemm
