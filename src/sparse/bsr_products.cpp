// tilegemm::bsr_xwt / bsr_wx: validation, the orientation-free problem (kernels/params.hpp),
// kernel choice, launch.
#include <cstdint>
#include <optional>
#include <string>

#include "core/device_checks.hpp"
#include "core/device_context.hpp"
#include "ops/context_state.hpp"
#include "dense/launch.hpp"  // launch_scale: Y = beta * Y for the quick-return cases
#include "sparse/bsr_checks.hpp"
#include "sparse/config.hpp"
#include "sparse/launch.hpp"
#include "tilegemm/bsr_gpu.hpp"
#include "tilegemm/error.hpp"
#include "tune/tuned_table.hpp"

namespace tilegemm {

namespace {
bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }
}  // namespace

namespace detail {

// Stored columns per block row, on average.
static double stored_row_cols(const BsrProblem& prob) {
  return static_cast<double>(prob.nnzb) * prob.p.block_c / prob.p.block_row_count;
}

// The family Kernel::Auto picks when the tuning database has no entry. Kernel 02 when the dense
// batch is small (J <= 16: it reads W once, the tiled kernel would leave most of its 128-256 columns
// empty) or the blocks are tiny (R * C < 16, e.g. 1 x 1: tiles would be mostly padding); kernel 03
// otherwise. (Until 2026-11-22 xwt with 4-16 batch columns
// and short W rows went to kernel 01, measured faster with per-launch event timing; graph-batched
// timing shows kernel 02 faster on 17 of those 18 seed cells, e.g. 2.6 us against 4.0 us at
// m = 8, k = n = 1024, sparsity 0.95: perf note B8.)
//
// Among the tiled kernels, 04 (tensor cores, 3xTF32 at FP32 accuracy) where it measured faster than
// 03 on the 144 transformer cells (perf note B10, by block height R and the stored columns per block
// row): xwt with R >= 64 (1.03-1.19x), or R >= 16 and rows of >= 64 columns (1.0-1.18x; 0.91-1.05x
// below); wx with R >= 64 and rows of >= 64 columns, or R >= 32 and >= 128 (1.01-1.13x; shorter rows
// 0.82-0.99x). wx with 16 x 16 blocks stays on 03: L2-bound either way, 04 at 0.83-1.09x. R < 16
// would leave most of 04's 16-row MMA tiles empty.
BsrFamily choose_bsr_family(const BsrProblem& prob) {
  const kernels::BsrParams& p = prob.p;
  if (p.cols_j <= 16 || p.block_r * p.block_c < 16) return BsrFamily::SmallM;
  const double row_cols = stored_row_cols(prob);
  const int r = p.block_r;
  const bool tensor = prob.xwt ? r >= 64 || (r >= 16 && row_cols >= 64)
                               : (r >= 64 && row_cols >= 64) || (r >= 32 && row_cols >= 128);
  return tensor ? BsrFamily::TiledTf32x3 : BsrFamily::Tiled;
}

// The config an explicit kernel (or Auto without a tuned entry) runs: a tiled family's default
// schedule for the block shape (sparse/config.hpp).
BsrConfig bsr_kernel_config(const BsrProblem& prob, BsrKernel kernel) {
  BsrConfig c;
  switch (kernel) {
    case BsrKernel::Reduction: c.family = BsrFamily::Reduction; break;
    case BsrKernel::SmallM: c.family = BsrFamily::SmallM; break;
    case BsrKernel::Tiled: c.family = BsrFamily::Tiled; break;
    case BsrKernel::TiledTf32x3: c.family = BsrFamily::TiledTf32x3; break;
    default: c.family = choose_bsr_family(prob); break;
  }
  if (c.is_tiled())
    c.tile = kBsrSchedules[default_bsr_schedule(c.family, prob.p.block_r, prob.p.block_c, stored_row_cols(prob))].tile;
  return c;
}

BsrProblem describe_bsr(bool xwt, int64_t rows_i, int64_t cols_j, int64_t k, float alpha, const float* x, int64_t ldx,
                        const DeviceBsrMatrix& w, float beta, float* y, int64_t ldy) {
  const BsrView v = w.view();
  BsrProblem prob;
  prob.xwt = xwt;
  prob.row_lengths = &w.row_lengths_longest_first();
  prob.nnzb = w.nnzb();
  kernels::BsrParams& p = prob.p;
  p.rows_i = static_cast<int>(rows_i);
  p.cols_j = static_cast<int>(cols_j);
  p.depth_k = static_cast<int>(k);
  p.block_r = v.block_rows;
  p.block_c = v.block_cols;
  p.block_row_count = static_cast<int>(v.block_row_count());
  p.w = v.block_data;
  p.w_cols = v.block_indices;
  p.w_rowptr = v.index_pointer;
  p.row_order = w.row_order();
  p.x = x;
  p.ldx = static_cast<int>(ldx);  // <= the extent, checked to fit in int
  p.y = y;
  p.ldy = static_cast<int>(ldy);
  p.alpha = alpha;
  p.beta = beta;
  p.x_vec4 = aligned16(x) && ldx % 4 == 0;
  p.w_vec4 = aligned16(v.block_data) && p.block_c % 4 == 0;
  // Vector stores along i (xwt) need every 4-row group inside one block row: R % 4 == 0.
  p.y_vec4 = aligned16(y) && ldy % 4 == 0 && (!xwt || p.block_r % 4 == 0);
  return prob;
}

}  // namespace detail

namespace {

// options.config parsed, through the device context's cache when there is a device (an application
// that forces a config passes the same text on every call).
std::optional<detail::BsrConfig> forced_config(const char* fn, const BsrOptions& options) {
  if (options.config.empty()) return std::nullopt;
  if (options.kernel != BsrKernel::Auto)
    bsr_detail::invalid(std::string(fn) + "options.config = '" + options.config +
                        "' needs options.kernel = auto (it is " + to_string(options.kernel) + ")");
  auto parse = [fn](const std::string& text) {
    return detail::parse_bsr_config(text, (std::string(fn) + "options.config").c_str());
  };
  const detail::DeviceContext* ctx = detail::current_device_context_if_any();
  return ctx ? ctx->ops->bsr_configs.get(options.config, parse) : parse(options.config);
}

// Everything after the device-free checks, shared by both products. i runs over W's rows, j over
// the dense batch; x_rows x x_cols and y_rows x y_cols are the stored shapes.
void run_product(const char* fn, bool xwt, int64_t rows_i, int64_t cols_j, int64_t k, float alpha,
                 const float* x, int64_t ldx, const DeviceBsrMatrix& w, float beta, float* y,
                 int64_t ldy, Stream stream, const BsrOptions& options) {
  const int kernel_value = static_cast<int>(options.kernel);
  if (kernel_value < 0 || kernel_value > kNumBsrKernels)
    bsr_detail::invalid(std::string(fn) + "options.kernel = " + std::to_string(kernel_value) +
                        " is not a BsrKernel value (0-" + std::to_string(kNumBsrKernels) + ")");
  const std::optional<detail::BsrConfig> forced = forced_config(fn, options);
  if (rows_i == 0 || cols_j == 0) return;  // nothing to write

  detail::current_device_context();  // NoDevice / UnsupportedArch
  const bool reads = k > 0 && alpha != 0.0f && w.nnzb() > 0;  // else Y = beta * Y
  if (reads) {
    detail::require_device_pointer("x", x);
    detail::require_device_pointer("w.block_data", w.view().block_data);
  }
  detail::require_device_pointer("y", y);
  cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);

  // Y's stored shape: xwt writes Y (j rows of i), wx writes Y (i rows of j).
  const int64_t y_rows = xwt ? cols_j : rows_i, y_cols = xwt ? rows_i : cols_j;
  if (!reads) {
    kernels::GemmParams g;
    g.m = static_cast<int>(y_rows);
    g.n = static_cast<int>(y_cols);
    g.c = y;
    g.ldc = static_cast<int>(ldy);
    g.beta = beta;
    detail::launch_scale(g, s);
    return;
  }

  const detail::BsrProblem prob = detail::describe_bsr(xwt, rows_i, cols_j, k, alpha, x, ldx, w, beta, y, ldy);
  detail::BsrConfig config;
  if (forced) {
    config = *forced;
    const std::string why = detail::bsr_can_implement(prob, config);
    if (!why.empty())
      bsr_detail::invalid(std::string(fn) + "options.config = '" + options.config + "' cannot run this product: " + why);
  } else if (options.kernel == BsrKernel::Auto) {
    const std::optional<detail::BsrConfig> tuned = detail::tuned_bsr_config(detail::current_device_context(), prob);
    config = tuned ? *tuned : detail::bsr_kernel_config(prob, BsrKernel::Auto);
  } else {
    config = detail::bsr_kernel_config(prob, options.kernel);
  }
  detail::launch_bsr_config(prob, config, s);
}

}  // namespace

void bsr_xwt(int64_t m, int64_t n, int64_t k, float alpha, const float* x, int64_t ldx,
             const DeviceBsrMatrix& w, float beta, float* y, int64_t ldy, Stream stream,
             const BsrOptions& options) {
  check_bsr_xwt_args(m, n, k, x, ldx, w.view(), y, ldy);
  // Y^T = W X^T: i over W's rows (n), j over X's rows (m).
  run_product("bsr_xwt: ", true, n, m, k, alpha, x, ldx, w, beta, y, ldy, stream, options);
}

void bsr_wx(int64_t m, int64_t n, int64_t k, float alpha, const DeviceBsrMatrix& w, const float* x,
            int64_t ldx, float beta, float* y, int64_t ldy, Stream stream,
            const BsrOptions& options) {
  check_bsr_wx_args(m, n, k, w.view(), x, ldx, y, ldy);
  run_product("bsr_wx: ", false, m, n, k, alpha, x, ldx, w, beta, y, ldy, stream, options);
}

}  // namespace tilegemm
