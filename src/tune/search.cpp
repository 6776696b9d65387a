#include "tune/search.hpp"

#include <algorithm>
#include <thread>

#include "core/cuda_check.hpp"
#include "core/device_context.hpp"
#include "tilegemm/error.hpp"
#include "tune/keys.hpp"
#include "tune/tuned_table.hpp"

namespace tilegemm {
namespace detail {

std::vector<ops::Ranked> tuning_candidates(const ops::Problem& p, const DeviceFacts& d, bool run_time_configs,
                                           size_t* compiled_count) {
  const ops::Ranking ranking = ops::rank(p, d);
  std::vector<ops::Ranked> out = ranking.estimated;
  *compiled_count = out.size();
  if (!run_time_configs) return out;
  constexpr int kBases = 2;
  std::vector<std::string> groups;
  for (const ops::Ranked& r : ranking.estimated) {
    const ops::Family& f = *r.config.family();
    const std::string group = std::string(f.name()) + " " + f.error_group(r.config);
    if (std::find(groups.begin(), groups.end(), group) != groups.end()) continue;
    const std::vector<ops::Config> neighbours = f.neighbours(p, r.config);
    if (neighbours.empty()) continue;  // a family without run-time variants (GEMV) takes no base's place
    groups.push_back(group);
    for (const ops::Config& v : neighbours) {
      if (!f.can_implement(p, v).empty()) continue;
      bool seen = false;
      for (const ops::Ranked& o : out) seen = seen || o.config == v;
      if (seen) continue;
      if (std::optional<ops::Estimate> e = f.estimate(p, v, d)) out.push_back({v, std::move(*e)});
    }
    if (static_cast<int>(groups.size()) == kBases) break;
  }
  return out;
}

void check_tune_options(const TuneOptions& o) {
  auto invalid = [](const std::string& msg) { throw Error(ErrorCode::InvalidArgument, msg); };
  if (!(o.budget_s > 0)) invalid("options.budget_s = " + std::to_string(o.budget_s) + " must be > 0");
  if (o.max_measured < 0) invalid("options.max_measured = " + std::to_string(o.max_measured) + " is negative");
  if (!(o.min_time_s >= 0) || o.min_time_s > 60)
    invalid("options.min_time_s = " + std::to_string(o.min_time_s) + " is not in [0, 60]");
}

OwnedStream::OwnedStream() { TILEGEMM_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }

OwnedStream::~OwnedStream() {
  if (s) cudaStreamDestroy(s);
}

TuneStore::TuneStore(const TuneOptions& o) : path(o.database.empty() ? default_tuning_db_path() : o.database) {
  if (o.store) db.emplace(path, TuningDatabase::Mode::ReadWrite);
}

void TuneStore::store(const DeviceContext& ctx, TuneResult& result) {
  if (!db || result.best_config.empty()) return;
  TunedEntry e;
  e.device = device_key(ctx);
  e.problem = result.problem;
  e.config = result.best_config;
  e.measured_us = result.best_us;
  e.auto_us = result.auto_us;
  e.tuned_at = utc_now();
  result.stored = db->put(e);
  if (result.stored && path == default_tuning_db_path()) remember_tuned(ctx, e);
}

void report_progress(const TuneOptions& options, const TuneResult& result, int attempts, const TuneCandidate& cand) {
  if (!options.progress) return;
  TuneProgress p;
  p.problem = result.problem;
  p.measured = attempts;
  p.candidates = static_cast<int>(result.candidates.size());
  p.config = cand.config;
  p.us = cand.measured_us;
  p.best_config = result.best_config;
  p.best_us = result.best_us;
  options.progress(p);
}

void record_measurement(TuneResult& result, int index) {
  const TuneCandidate& cand = result.candidates[index];
  ++result.measured;
  if (result.best_config.empty() || cand.measured_us < result.best_us) {
    result.best_config = cand.config;
    result.best_us = cand.measured_us;
  }
  if (index == 0) result.auto_us = cand.measured_us;
}

void prefetch_run_time_kernels(const DeviceContext& ctx, const std::vector<JitRequest>& requests,
                               const std::vector<size_t>& which, TuneResult& result, std::vector<bool>& tried) {
  if (requests.empty()) return;
  const Stopwatch clock;
  const std::vector<std::string> errors =
      jit_prefetch(ctx, requests, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  for (size_t j = 0; j < errors.size(); ++j)
    if (!errors[j].empty()) {
      result.candidates[which[j]].status = "failed: " + errors[j];
      tried[which[j]] = true;
    }
  result.compile_seconds += clock.seconds();
}

void finish_run(const DeviceContext& ctx, const std::vector<bool>& tried, cudaStream_t s, TuneStore& store,
                const Stopwatch& clock, TuneResult& result) {
  result.exhaustive = std::all_of(tried.begin(), tried.end(), [](bool t) { return t; });
  TILEGEMM_CUDA_CHECK(cudaStreamSynchronize(s));
  store.store(ctx, result);
  result.seconds = clock.seconds();
}

bool verify_and_time(TuneCandidate& cand, const std::function<void()>& reset, const std::function<void()>& product,
                     const std::function<Diff()>& compare, double tolerance, double min_time_s, size_t flush_bytes,
                     cudaStream_t s) {
  try {
    reset();
    product();
    const Diff d = compare();
    if (d.non_finite || d.max_abs > tolerance) {
      cand.status = "wrong result: max |out - level 5| = " + std::to_string(d.max_abs) +
                    (d.non_finite ? " (non-finite elements)" : "") + ", tolerance " + std::to_string(tolerance);
      return false;
    }
    const Timing t = time_runs(product, min_time_s, flush_bytes, 0, s);
    cand.measured_us = t.median_ms * 1e3;
    cand.status = "measured";
    return true;
  } catch (const Error& e) {
    if (e.code() == ErrorCode::InvalidArgument) throw;  // a library bug, not a property of the config
    cudaGetLastError();
    cand.status = std::string("failed: ") + e.what();
    return false;
  }
}

}  // namespace detail
}  // namespace tilegemm
