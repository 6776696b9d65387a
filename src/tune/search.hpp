// The tuner's search over the operation model, for every operation (tune.cpp sets up a GEMM or a BSR
// product and its reference, then calls search()), and what a run needs around it: option checks, the
// tuner's own stream, progress reports and storing the winner.
#pragma once
#include <cuda_runtime_api.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "jit/jit.hpp"
#include "ops/choose.hpp"
#include "tilegemm/tune.hpp"
#include "tune/database.hpp"
#include "tune/measure.hpp"

namespace tilegemm {
namespace detail {

struct DeviceContext;

// What a tuning run of `p` measures, in the estimates' order: every registered family's legal
// candidates that have an estimate (ops::rank), then with `run_time_configs` the run-time compiled
// neighbours (Family::neighbours) of the two leading error groups that have any (tile shapes, with
// their packing), each at the split of that group's best-ranked config; then the legal candidates
// and neighbours without an estimate (estimate.us == 0), in their families' order.
// *compiled_count: how many come before the neighbours. Pure host code (the CPU tests call it).
std::vector<ops::Ranked> tuning_candidates(const ops::Problem& p, const DeviceFacts& d, bool run_time_configs,
                                           size_t* compiled_count);
class Stopwatch;

// One tuning run's measurements of `p`: the candidates of tuning_candidates() (their run-time kernels
// compiled first, in parallel), each measured by `measure`, estimated ones in the order of the
// estimates corrected by every measurement so far (per error group: the AutoTVM idea, measured times
// re-rank the rest), then those without an estimate in order; until options.max_measured, the budget or
// `cancelled` stops it, or (with a measuring limit) the corrected estimates see nothing left that could
// win. With run_time_configs and max_measured == 0 a local search follows: every config one move away
// from the best (Family::neighbours), until a round finds nothing faster. Fills result.candidates,
// auto_config (the first candidate: Auto's untuned pick), the measurements and `tried`. Throws
// Error(InvalidArgument) when no family estimates `p`.
void search(const ops::Problem& p, const DeviceFacts& facts, const DeviceContext& ctx, const TuneOptions& options,
            const Stopwatch& clock, const std::function<bool(TuneCandidate&)>& measure, TuneResult& result,
            std::vector<bool>& tried);

// Throws Error(InvalidArgument) naming the option (budget_s, max_measured, min_time_s).
void check_tune_options(const TuneOptions& o);

// The stream a tuning run works on, destroyed whatever path leaves it.
struct OwnedStream {
  cudaStream_t s = nullptr;
  OwnedStream();
  ~OwnedStream();
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
};

// The database a run stores into, opened before anything is measured (a path that cannot hold it
// fails in seconds); empty when options.store is false.
struct TuneStore {
  std::string path;
  std::optional<TuningDatabase> db;
  explicit TuneStore(const TuneOptions& o);
  // Stores the result's winner (if any) and, when the database is the one Auto reads, makes it
  // visible to Auto in this process; sets result.stored.
  void store(const DeviceContext& ctx, TuneResult& result);
};

// Calls options.progress (if set) after the attempts-th measured config `cand`.
void report_progress(const TuneOptions& options, const TuneResult& result, int attempts, const TuneCandidate& cand);

// Records a successful measurement of candidate `index` in the result (count, best so far, and
// auto_us when it is the untuned pick, index 0).
void record_measurement(TuneResult& result, int index);

// Verifies, then times one candidate: reset() poisons (or restores) the output, product() runs the
// candidate's config, compare() measures it against the reference; then product() is timed (cold L2,
// median). Sets cand.measured_us and cand.status ("measured", "wrong result: ...", "failed: ...");
// returns whether it was measured. An InvalidArgument error is a library bug and propagates.
bool verify_and_time(TuneCandidate& cand, const std::function<void()>& reset, const std::function<void()>& product,
                     const std::function<Diff()>& compare, double tolerance, double min_time_s, size_t flush_bytes,
                     cudaStream_t s);

// Compiles (or reads from the disk cache) the run-time kernels of candidates `which` (one request each)
// all at once, in parallel, before anything is timed; a candidate whose kernel fails to compile is
// marked "failed: ..." and tried. Adds the seconds spent to result.compile_seconds.
void prefetch_run_time_kernels(const DeviceContext& ctx, const std::vector<JitRequest>& requests,
                               const std::vector<size_t>& which, TuneResult& result, std::vector<bool>& tried);

class Stopwatch {
 public:
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }

 private:
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

// The end of a run: whether every candidate was tried, the stream drained, the winner stored, the
// run's seconds.
void finish_run(const DeviceContext& ctx, const std::vector<bool>& tried, cudaStream_t s, TuneStore& store,
                const Stopwatch& clock, TuneResult& result);

// One tuning run of a product (tune.cpp makes one per GEMM or BSR product): its clock starts first
// (the budget counts everything), its database is opened before anything is allocated (a path that
// cannot hold it fails in seconds), on the current device with a stream of its own.
class TuneRun {
 public:
  explicit TuneRun(const TuneOptions& options);
  cudaStream_t stream() const { return stream_.s; }
  Stream user_stream() const { return reinterpret_cast<Stream>(stream_.s); }
  // An output before a product writes it: NaN where the product does not read it (start == nullptr:
  // every element must be written), else a copy of its starting values.
  void reset_output(float* dst, const float* start, size_t count) const;
  // The same for `count` elements of type `t` (a 16-bit NaN is 0xFFFF in bf16 and f16 alike).
  void reset_output(void* dst, DType t, const void* start, size_t count) const;
  // Searches `p`'s candidates (search() above), each verified by reset(), run(config), compare()
  // against `tolerance` and then timed; stores the winner. Returns the run's result.
  TuneResult measure(const ops::Problem& p, const std::function<void()>& reset,
                     const std::function<void(const std::string& config)>& run, const std::function<Diff()>& compare,
                     double tolerance);

 private:
  const TuneOptions& options_;
  Stopwatch clock_;
  TuneStore store_;
  const DeviceContext& ctx_;
  DeviceFacts facts_;
  OwnedStream stream_;
};

}  // namespace detail
}  // namespace tilegemm
