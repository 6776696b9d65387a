#include "tune/search.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <map>
#include <thread>

#include "core/cuda_check.hpp"
#include "core/device_context.hpp"
#include "tilegemm/error.hpp"
#include "ops/keys.hpp"
#include "ops/registry.hpp"
#include "tune/keys.hpp"
#include "tune/tuned_table.hpp"

namespace tilegemm {
namespace detail {

namespace {

// `c` with its family's estimate (an empty one, estimate.us == 0, where the family has none), or nullopt
// when it cannot run `p`.
std::optional<ops::Ranked> legal_candidate(const ops::Problem& p, const DeviceFacts& d, const ops::Config& c) {
  const ops::Family& f = *c.family();
  if (!f.can_implement(p, c).empty()) return std::nullopt;
  std::optional<ops::Estimate> e = f.estimate(p, c, d);
  return ops::Ranked{c, e ? std::move(*e) : ops::Estimate{}};
}

}  // namespace

std::vector<ops::Ranked> tuning_candidates(const ops::Problem& p, const DeviceFacts& d, bool run_time_configs,
                                           size_t* compiled_count) {
  const ops::Ranking ranking = ops::rank(p, d);
  std::vector<ops::Ranked> out = ranking.estimated;
  *compiled_count = out.size();
  auto seen = [&out](const ops::Config& c) {
    for (const ops::Ranked& o : out)
      if (o.config == c) return true;
    return false;
  };
  std::vector<ops::Ranked> unestimated;  // legal configs without a model: measured after the rest
  for (const ops::Config& c : ranking.measure_only) unestimated.push_back({c, ops::Estimate{}});
  if (run_time_configs) {
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
        if (seen(v)) continue;
        std::optional<ops::Ranked> r = legal_candidate(p, d, v);
        if (!r) continue;
        if (r->estimate.us > 0) out.push_back(std::move(*r));
        else if (std::none_of(unestimated.begin(), unestimated.end(), [&v](const ops::Ranked& u) { return u.config == v; }))
          unestimated.push_back(std::move(*r));
      }
      if (static_cast<int>(groups.size()) == kBases) break;
    }
  }
  for (ops::Ranked& u : unestimated)
    if (!seen(u.config)) out.push_back(std::move(u));
  return out;
}

namespace {

// Candidates whose corrected prediction is this much slower than the best measured time are not
// worth measuring (the model's errors on one shape stay within ~10 % once corrected).
constexpr double kHopelessFactor = 1.15;
// Measured before stopping early on that rule: the model's pick and a few more.
constexpr int kMinMeasured = 4;
// Rounds of the local search at most.
constexpr int kMaxRounds = 4;

// Geometric means of measured / predicted, per error group and over all.
class ModelCorrection {
 public:
  void add(const std::string& group, double predicted, double measured) {
    const double r = std::log(measured / predicted);
    auto& g = groups_[group];
    g.first += r;
    g.second += 1;
    all_.first += r;
    all_.second += 1;
  }
  double corrected(const std::string& group, double predicted) const {
    const auto it = groups_.find(group);
    const std::pair<double, int>& g = it != groups_.end() ? it->second : all_;
    return g.second > 0 ? predicted * std::exp(g.first / g.second) : predicted;
  }

 private:
  std::map<std::string, std::pair<double, int>> groups_;
  std::pair<double, int> all_{0.0, 0};
};

}  // namespace

void search(const ops::Problem& p, const DeviceFacts& facts, const DeviceContext& ctx, const TuneOptions& options,
            const Stopwatch& clock, const std::function<bool(TuneCandidate&)>& measure, TuneResult& result,
            std::vector<bool>& tried) {
  size_t compiled_count = 0;
  std::vector<ops::Ranked> ranked = tuning_candidates(p, facts, options.run_time_configs, &compiled_count);
  if (compiled_count == 0)
    throw Error(ErrorCode::InvalidArgument, "shape: no config with a model can run this product (" +
                                                ops::no_family_reason(p, ops::rank(p, facts)) + ")");
  std::vector<std::string> groups;
  // Appends candidates and compiles (or reads from the disk cache) the run-time kernels among them all
  // at once, in parallel, before anything is timed; one that fails to compile is reported and skipped.
  auto add = [&](std::vector<ops::Ranked> more) {
    std::vector<JitRequest> requests;
    std::vector<size_t> which;
    for (ops::Ranked& r : more) {
      const size_t index = result.candidates.size();
      for (JitRequest& j : r.config.family()->run_time_kernels(p, r.config, facts)) {
        requests.push_back(std::move(j));
        which.push_back(index);
      }
      result.candidates.push_back({r.config.text(), r.estimate.us, 0.0, "not measured"});
      groups.push_back(r.config.family()->error_group(r.config));
      tried.push_back(false);
    }
    prefetch_run_time_kernels(ctx, requests, which, result, tried);
  };
  add(std::move(ranked));
  result.auto_config = result.candidates[0].config;

  ModelCorrection correction;
  const int limit = options.max_measured > 0 ? options.max_measured : INT_MAX;
  int attempts = 0;
  // Measures untried candidates from `from` on until the limit, budget or cancel, or the hopeless rule.
  auto measure_from = [&](size_t from) {
    while (attempts < limit) {
      // The untried estimated candidate the corrected model ranks first (the model's own pick first of
      // all), else the first untried one without an estimate.
      int next = -1;
      double next_us = 0;
      for (size_t i = from; i < result.candidates.size(); ++i) {
        if (tried[i] || result.candidates[i].predicted_us <= 0) continue;
        const double us = correction.corrected(groups[i], result.candidates[i].predicted_us);
        if (next < 0 || us < next_us) next = static_cast<int>(i), next_us = us;
      }
      for (size_t i = from; next < 0 && i < result.candidates.size(); ++i)
        if (!tried[i]) next = static_cast<int>(i);
      if (next < 0) return;
      if (attempts > 0) {
        if (clock.seconds() > options.budget_s || (options.cancelled && options.cancelled())) {
          result.stopped = true;
          return;
        }
        if (options.max_measured > 0 && result.measured >= kMinMeasured && next_us > kHopelessFactor * result.best_us)
          return;  // the corrected model sees nothing left that could win
      }
      tried[next] = true;
      ++attempts;
      TuneCandidate& cand = result.candidates[next];
      if (measure(cand)) {
        record_measurement(result, next);
        if (cand.predicted_us > 0) correction.add(groups[next], cand.predicted_us, cand.measured_us);
      }
      report_progress(options, result, attempts, cand);
    }
  };
  measure_from(0);
  // The local search (the AutoTVM step: measurements choose where to look next).
  for (int round = 0; round < kMaxRounds && options.run_time_configs && options.max_measured == 0 && !result.stopped &&
                      !result.best_config.empty();
       ++round) {
    const std::string best = result.best_config;
    const ops::Config base = ops::registry().parse(best, "config", p.kind);
    std::vector<ops::Ranked> fresh;
    for (const ops::Config& c : base.family()->neighbours(p, base)) {
      const std::string text = c.text();
      if (std::any_of(result.candidates.begin(), result.candidates.end(),
                      [&text](const TuneCandidate& t) { return t.config == text; }))
        continue;
      if (std::optional<ops::Ranked> r = legal_candidate(p, facts, c)) fresh.push_back(std::move(*r));
    }
    if (fresh.empty()) break;
    const size_t from = result.candidates.size();
    add(std::move(fresh));
    measure_from(from);
    if (result.best_config == best) break;
  }
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

TuneRun::TuneRun(const TuneOptions& options)
    : options_(options), store_(options), ctx_(current_device_context()), facts_(device_facts(ctx_)) {}

void TuneRun::reset_output(float* dst, const float* start, size_t count) const {
  if (start == nullptr)
    fill_value(dst, count, std::numeric_limits<float>::quiet_NaN(), stream_.s);
  else
    TILEGEMM_CUDA_CHECK(cudaMemcpyAsync(dst, start, count * sizeof(float), cudaMemcpyDeviceToDevice, stream_.s));
}

void TuneRun::reset_output(void* dst, DType t, const void* start, size_t count) const {
  if (t == DType::F32) return reset_output(static_cast<float*>(dst), static_cast<const float*>(start), count);
  const size_t bytes = count * static_cast<size_t>(dtype_bytes(t));
  if (start == nullptr) TILEGEMM_CUDA_CHECK(cudaMemsetAsync(dst, 0xFF, bytes, stream_.s));
  else TILEGEMM_CUDA_CHECK(cudaMemcpyAsync(dst, start, bytes, cudaMemcpyDeviceToDevice, stream_.s));
}

TuneResult TuneRun::measure(const ops::Problem& p, const std::function<void()>& reset,
                            const std::function<void(const std::string& config)>& run,
                            const std::function<Diff()>& compare, double tolerance) {
  TuneResult result;
  result.problem = ops::problem_key(p);
  const size_t flush_bytes = 2 * ctx_.l2_bytes;
  auto measure_one = [&](TuneCandidate& cand) {
    return verify_and_time(cand, reset, [&] { run(cand.config); }, compare, tolerance, options_.min_time_s, flush_bytes,
                           stream_.s);
  };
  std::vector<bool> tried;
  search(p, facts_, ctx_, options_, clock_, measure_one, result, tried);
  finish_run(ctx_, tried, stream_.s, store_, clock_, result);
  return result;
}

}  // namespace detail
}  // namespace tilegemm
