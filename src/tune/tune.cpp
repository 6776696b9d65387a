// tilegemm::tune: measure the legal configs of one product in the order the analytic model ranks
// them, correcting the model with every measurement (the AutoTVM idea: measured times re-rank the
// rest), and store the fastest in the tuning database.
#include "tilegemm/tune.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/device_context.hpp"
#include "dense/check_args.hpp"
#include "dense/matrix_extent.hpp"
#include "jit/jit.hpp"
#include "ops/choose.hpp"
#include "ops/gemm_call.hpp"
#include "ops/keys.hpp"
#include "ref/reference.hpp"
#include "tilegemm/error.hpp"
#include "tilegemm/gemm.hpp"
#include "tune/database.hpp"
#include "tune/measure.hpp"
#include "tune/search.hpp"
#include "tune/tuned_table.hpp"

namespace tilegemm {

namespace {

[[noreturn]] void invalid(const std::string& msg) { throw Error(ErrorCode::InvalidArgument, msg); }

// Candidates whose corrected prediction is this much slower than the best measured time are not
// worth measuring (the model's errors on one shape stay within ~10 % once corrected).
constexpr double kHopelessFactor = 1.15;
// Measured before stopping early on that rule: the model's pick and a few more.
constexpr int kMinMeasured = 4;

struct Operands {
  int64_t lda = 0, ldb = 0, ldc = 0;
  StoredOperands stored;
  int64_t size_a = 0, size_b = 0, size_c = 0;  // elements to allocate, offset included
};

int64_t tight_or(int64_t ld, const StoredMatrix& s, Layout layout) { return ld > 0 ? ld : s.min_ld(layout); }

Operands check_shape(const GemmShape& s, const TuneOptions& o) {
  if (s.layout != Layout::RowMajor && s.layout != Layout::ColMajor)
    invalid("shape.layout = " + std::to_string(static_cast<int>(s.layout)) + " is not a Layout value");
  if (s.op_a != Op::N && s.op_a != Op::T) invalid("shape.op_a is not an Op value");
  if (s.op_b != Op::N && s.op_b != Op::T) invalid("shape.op_b is not an Op value");
  const std::pair<const char*, int64_t> dims[] = {{"shape.m", s.m}, {"shape.n", s.n}, {"shape.k", s.k}};
  for (const auto& [name, v] : dims)
    if (v < 1 || v > INT_MAX) invalid(std::string(name) + " = " + std::to_string(v) + " is not in [1, 2^31-1]");
  if (s.offset < 0 || s.offset > (1 << 20)) invalid("shape.offset = " + std::to_string(s.offset) + " is not in [0, 2^20]");
  detail::check_tune_options(o);
  Operands ops;
  ops.stored = stored_shapes(s.op_a, s.op_b, s.m, s.n, s.k);
  ops.lda = tight_or(s.lda, ops.stored.a, s.layout);
  ops.ldb = tight_or(s.ldb, ops.stored.b, s.layout);
  ops.ldc = tight_or(s.ldc, ops.stored.c, s.layout);
  const std::pair<const char*, std::pair<int64_t, const StoredMatrix*>> lds[] = {
      {"shape.lda", {ops.lda, &ops.stored.a}}, {"shape.ldb", {ops.ldb, &ops.stored.b}}, {"shape.ldc", {ops.ldc, &ops.stored.c}}};
  for (const auto& [name, v] : lds)
    if (v.first < v.second->min_ld(s.layout) || v.first > INT_MAX)
      invalid(std::string(name) + " = " + std::to_string(v.first) + " is not in [" +
              std::to_string(v.second->min_ld(s.layout)) + ", 2^31-1]");
  ops.size_a = s.offset + ops.stored.a.extent(s.layout, ops.lda);
  ops.size_b = s.offset + ops.stored.b.extent(s.layout, ops.ldb);
  ops.size_c = s.offset + ops.stored.c.extent(s.layout, ops.ldc);
  return ops;
}

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

std::string tuning_database_path() { return detail::default_tuning_db_path(); }

void reload_tuning_database() { detail::forget_tuned_tables(); }

TuneResult tune(const GemmShape& shape, const TuneOptions& options) {
  const Operands ops = check_shape(shape, options);
  const detail::Stopwatch clock;
  detail::TuneStore store(options);

  const detail::DeviceContext& ctx = detail::current_device_context();
  const detail::DeviceFacts facts = detail::device_facts(ctx);
  detail::OwnedStream stream;
  const cudaStream_t s = stream.s;
  const Stream user_stream = reinterpret_cast<Stream>(s);

  // Operands uniform in [-1, 1]; C0 is C's starting value when beta != 0.
  DeviceBuffer<float> a(ops.size_a), b(ops.size_b), c(ops.size_c), ref(ops.size_c), c0(shape.beta_zero ? 0 : ops.size_c);
  detail::fill_uniform(a.get(), ops.size_a, 0x7A11, s);
  detail::fill_uniform(b.get(), ops.size_b, 0x7A12, s);
  if (!shape.beta_zero) detail::fill_uniform(c0.get(), ops.size_c, 0x7A13, s);
  const float alpha = 1.0f, beta = shape.beta_zero ? 0.0f : 1.0f;
  const int64_t off = shape.offset;
  auto reset_c = [&](float* dst) {
    if (shape.beta_zero)
      detail::fill_value(dst, ops.size_c, std::numeric_limits<float>::quiet_NaN(), s);  // must all be written
    else
      TILEGEMM_CUDA_CHECK(cudaMemcpyAsync(dst, c0.get(), ops.size_c * sizeof(float), cudaMemcpyDeviceToDevice, s));
  };
  auto product = [&](float* dst, const GemmOptions& opt) {
    sgemm(shape.layout, shape.op_a, shape.op_b, shape.m, shape.n, shape.k, alpha, a.get() + off, ops.lda,
          b.get() + off, ops.ldb, beta, dst + off, ops.ldc, user_stream, opt);
  };
  // The reference: level 5, a kernel family none of the candidates shares, with 64-bit offsets.
  reset_c(ref.get());
  GemmOptions level5;
  level5.kernel = Kernel::Vectorized;
  product(ref.get(), level5);

  const ops::Problem problem =
      ops::gemm_call(detail::sgemm_args(shape.layout, shape.op_a, shape.op_b, shape.m, shape.n, shape.k, alpha,
                                        a.get() + off, ops.lda, b.get() + off, ops.ldb, beta, c.get() + off, ops.ldc),
                     GemmOptions{})
          .problem;
  size_t compiled_count = 0;
  const std::vector<ops::Ranked> ranked = detail::tuning_candidates(problem, facts, options.run_time_configs, &compiled_count);
  if (ranked.empty())
    invalid("shape: no config with a model can run this product (A or B spans more than 2147483647 elements and no "
            "dimension is <= 16); Auto runs level 5");

  TuneResult result;
  result.problem = ops::problem_key(problem);
  for (const ops::Ranked& r : ranked)
    result.candidates.push_back({r.config.text(), r.estimate.us, 0.0, "not measured"});
  result.auto_config = result.candidates[0].config;

  const double tolerance = 2.0 * ref::fp32_gemm_error_bound(shape.k);  // ours and level 5's rounding, |A|, |B| <= 1
  const size_t flush_bytes = 2 * ctx.l2_bytes;
  const int64_t outer = ops.stored.c.rows, inner = ops.stored.c.cols;
  const int64_t c_outer = shape.layout == Layout::RowMajor ? outer : inner;
  const int64_t c_inner = shape.layout == Layout::RowMajor ? inner : outer;

  auto measure = [&](TuneCandidate& cand) {
    GemmOptions opt;
    opt.config = cand.config;
    return detail::verify_and_time(
        cand, [&] { reset_c(c.get()); }, [&] { product(c.get(), opt); },
        [&] { return detail::compare_matrix(c.get() + off, ref.get() + off, c_outer, c_inner, ops.ldc, s); }, tolerance,
        options.min_time_s, flush_bytes, s);
  };

  ModelCorrection correction;
  std::vector<bool> tried(result.candidates.size(), false);
  std::vector<std::string> groups;
  for (const ops::Ranked& r : ranked) groups.push_back(r.config.family()->error_group(r.config));

  // The run-time compiled variants are compiled (or read from the disk cache) all at once, in
  // parallel, before anything is timed; one that fails to compile is reported and skipped.
  {
    std::vector<detail::JitRequest> requests;
    std::vector<size_t> which;
    for (size_t i = compiled_count; i < ranked.size(); ++i)
      for (detail::JitRequest& r : ranked[i].config.family()->run_time_kernels(problem, ranked[i].config, facts)) {
        requests.push_back(std::move(r));
        which.push_back(i);
      }
    detail::prefetch_run_time_kernels(ctx, requests, which, result, tried);
  }
  const int limit = options.max_measured > 0 ? options.max_measured : static_cast<int>(result.candidates.size());
  int attempts = 0;
  while (attempts < limit) {
    // The untried candidate the corrected model ranks first (the model's own pick first of all).
    int next = -1;
    double next_us = 0;
    for (size_t i = 0; i < result.candidates.size(); ++i) {
      if (tried[i]) continue;
      const double us = correction.corrected(groups[i], result.candidates[i].predicted_us);
      if (next < 0 || us < next_us) next = static_cast<int>(i), next_us = us;
    }
    if (next < 0) break;
    if (attempts > 0) {
      if (clock.seconds() > options.budget_s || (options.cancelled && options.cancelled())) {
        result.stopped = true;
        break;
      }
      if (options.max_measured > 0 && result.measured >= kMinMeasured && next_us > kHopelessFactor * result.best_us)
        break;  // the corrected model sees nothing left that could win
    }
    tried[next] = true;
    ++attempts;
    TuneCandidate& cand = result.candidates[next];
    if (measure(cand)) {
      detail::record_measurement(result, next);
      correction.add(groups[next], cand.predicted_us, cand.measured_us);
    }
    detail::report_progress(options, result, attempts, cand);
  }
  detail::finish_run(ctx, tried, s, store, clock, result);
  return result;
}

}  // namespace tilegemm
