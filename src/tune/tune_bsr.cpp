// tilegemm::tune for a BSR product: measure the configs of bsr_search_space() in order (verified
// against a dense level-5 product of W expanded to dense, then timed with a cold L2), keep the fastest
// and store it in the tuning database, which bsr_xwt / bsr_wx's Auto consults first.
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/device_context.hpp"
#include "jit/jit.hpp"
#include "ref/reference.hpp"
#include "sparse/config.hpp"
#include "sparse/launch.hpp"
#include "tilegemm/bsr.hpp"
#include "tilegemm/error.hpp"
#include "tilegemm/gemm.hpp"
#include "tilegemm/tune.hpp"
#include "tune/bsr_space.hpp"
#include "tune/keys.hpp"
#include "tune/measure.hpp"
#include "tune/search.hpp"

namespace tilegemm {

namespace {

[[noreturn]] void invalid(const std::string& msg) { throw Error(ErrorCode::InvalidArgument, msg); }

void check_shape(const BsrShape& s, const DeviceBsrMatrix& w) {
  if (s.product != BsrProduct::Xwt && s.product != BsrProduct::Wx) invalid("shape.product is not a BsrProduct value");
  const std::pair<const char*, int64_t> dims[] = {{"shape.m", s.m}, {"shape.n", s.n}, {"shape.k", s.k}};
  for (const auto& [name, v] : dims)
    if (v < 1 || v > INT_MAX) invalid(std::string(name) + " = " + std::to_string(v) + " is not in [1, 2^31-1]");
  const bool xwt = s.product == BsrProduct::Xwt;
  const int64_t rows = xwt ? s.n : s.m;
  if (w.rows() != rows || w.cols() != s.k)
    invalid(std::string("w: ") + std::to_string(w.rows()) + " x " + std::to_string(w.cols()) + " does not match shape (" +
            (xwt ? "xwt needs W n x k = " : "wx needs W m x k = ") + std::to_string(rows) + " x " + std::to_string(s.k) +
            ")");
  if (w.nnzb() == 0) invalid("w: no stored blocks, nothing to tune (every product is Y = beta * Y)");
}

}  // namespace

TuneResult tune(const BsrShape& shape, const DeviceBsrMatrix& w, const TuneOptions& options) {
  check_shape(shape, w);
  detail::check_tune_options(options);
  const detail::Stopwatch clock;
  detail::TuneStore store(options);
  const detail::DeviceContext& ctx = detail::current_device_context();
  detail::OwnedStream stream;
  const cudaStream_t s = stream.s;
  const Stream user_stream = reinterpret_cast<Stream>(s);

  const bool xwt = shape.product == BsrProduct::Xwt;
  const int64_t m = shape.m, n = shape.n, k = shape.k;
  const int64_t ldx = xwt ? k : n, ldy = n, size_x = xwt ? m * k : k * n, size_y = m * n;
  const float alpha = 1.0f, beta = shape.beta_zero ? 0.0f : 1.0f;

  // W expanded to dense (row-major, w.rows() x k) for the reference: level 5, a dense kernel family
  // no BSR config shares. The tolerance scales with max |W| (X is in [-1, 1]).
  const BsrMatrix host_w = w.to_host();
  std::vector<float> dense(static_cast<size_t>(host_w.rows * host_w.cols));
  bsr_to_dense(host_w, dense.data(), host_w.cols);
  float w_max = 0;
  for (float v : host_w.block_data) w_max = std::max(w_max, std::fabs(v));
  DeviceBuffer<float> x(size_x), y(size_y), ref(size_y), y0(shape.beta_zero ? 0 : size_y), wd(dense.size());
  TILEGEMM_CUDA_CHECK(cudaMemcpyAsync(wd.get(), dense.data(), dense.size() * sizeof(float), cudaMemcpyHostToDevice, s));
  detail::fill_uniform(x.get(), size_x, 0x7B11, s);
  if (!shape.beta_zero) detail::fill_uniform(y0.get(), size_y, 0x7B12, s);
  auto reset_y = [&](float* dst) {
    if (shape.beta_zero)
      detail::fill_value(dst, size_y, std::numeric_limits<float>::quiet_NaN(), s);  // must all be written
    else
      TILEGEMM_CUDA_CHECK(cudaMemcpyAsync(dst, y0.get(), size_y * sizeof(float), cudaMemcpyDeviceToDevice, s));
  };
  reset_y(ref.get());
  GemmOptions level5;
  level5.kernel = Kernel::Vectorized;
  if (xwt)
    sgemm(Layout::RowMajor, Op::N, Op::T, m, n, k, alpha, x.get(), ldx, wd.get(), k, beta, ref.get(), ldy, user_stream,
          level5);
  else
    sgemm(Layout::RowMajor, Op::N, Op::N, m, n, k, alpha, wd.get(), k, x.get(), ldx, beta, ref.get(), ldy, user_stream,
          level5);
  auto product = [&](const BsrOptions& opt) {
    if (xwt) bsr_xwt(m, n, k, alpha, x.get(), ldx, w, beta, y.get(), ldy, user_stream, opt);
    else bsr_wx(m, n, k, alpha, w, x.get(), ldx, beta, y.get(), ldy, user_stream, opt);
  };

  const detail::BsrProblem problem =
      detail::describe_bsr(xwt, xwt ? n : m, xwt ? m : n, k, alpha, x.get(), ldx, w, beta, y.get(), ldy);
  std::vector<detail::BsrConfig> configs;  // the candidates' configs: the space, then the refinement's
  std::vector<bool> tried;
  TuneResult result;
  result.problem = detail::bsr_problem_key(problem);
  // Appends candidates and compiles (or reads from the disk cache) the run-time ones among them all at
  // once, in parallel, before anything is timed; one that fails to compile is reported and skipped.
  auto add_candidates = [&](const std::vector<detail::BsrConfig>& more) {
    std::vector<detail::JitRequest> requests;
    std::vector<size_t> which;
    for (const detail::BsrConfig& c : more) {
      if (detail::bsr_needs_jit(problem, c)) {
        requests.push_back(detail::bsr_tiled_jit_request(c.family, c.tile, xwt, problem.vec()));
        which.push_back(configs.size());
      }
      configs.push_back(c);
      tried.push_back(false);
      result.candidates.push_back({detail::to_string(c), 0.0, 0.0, "not measured"});
    }
    detail::prefetch_run_time_kernels(ctx, requests, which, result, tried);
  };
  add_candidates(detail::bsr_search_space(problem, options.run_time_configs));
  result.auto_config = result.candidates[0].config;

  const double tolerance = 2.0 * ref::fp32_gemm_error_bound(k) * std::max(1.0f, w_max);
  const size_t flush_bytes = 2 * ctx.l2_bytes;
  auto measure = [&](TuneCandidate& cand) {
    BsrOptions opt;
    opt.config = cand.config;
    return detail::verify_and_time(
        cand, [&] { reset_y(y.get()); }, [&] { product(opt); },
        [&] { return detail::compare_matrix(y.get(), ref.get(), m, n, ldy, s); }, tolerance, options.min_time_s,
        flush_bytes, s);
  };

  // Measures the untried candidates from `from` on, in order, within the limit, budget and cancel.
  const int limit = options.max_measured > 0 ? options.max_measured : INT_MAX;
  int attempts = 0;
  auto measure_from = [&](size_t from) {
    for (size_t i = from; i < configs.size() && attempts < limit; ++i) {
      if (tried[i]) continue;
      if (attempts > 0 && (clock.seconds() > options.budget_s || (options.cancelled && options.cancelled()))) {
        result.stopped = true;
        return;
      }
      tried[i] = true;
      ++attempts;
      if (measure(result.candidates[i])) detail::record_measurement(result, static_cast<int>(i));
      detail::report_progress(options, result, attempts, result.candidates[i]);
    }
  };
  measure_from(0);
  // With run-time configs and no measuring limit, a local search from the best (the AutoTVM step:
  // measurements choose where to look next): every schedule one move away from it, until a round
  // finds nothing faster.
  constexpr int kMaxRounds = 4;
  for (int round = 0; round < kMaxRounds && options.run_time_configs && options.max_measured == 0 && !result.stopped &&
                      !result.best_config.empty();
       ++round) {
    const std::string best = result.best_config;
    std::vector<detail::BsrConfig> fresh;
    for (const detail::BsrConfig& c : detail::bsr_neighbours(problem, detail::parse_bsr_config(best, "config")))
      if (std::find(configs.begin(), configs.end(), c) == configs.end()) fresh.push_back(c);
    if (fresh.empty()) break;
    const size_t from = configs.size();
    add_candidates(fresh);
    measure_from(from);
    if (result.best_config == best) break;
  }
  detail::finish_run(ctx, tried, s, store, clock, result);
  return result;
}

}  // namespace tilegemm
