// tilegemm::bsr_xwt / bsr_wx: validation, then the operation model (src/ops): the product as a
// Problem with W's block facts, the config (forced, an explicit kernel's family default, or Auto over
// the BSR families' estimates and the tuning database) and its family's launch.
#include <cstdint>
#include <optional>
#include <string>

#include "core/device_checks.hpp"
#include "core/device_context.hpp"
#include "dense/launch.hpp"  // launch_scale: Y = beta * Y for the quick-return cases
#include "ops/bsr_call.hpp"
#include "ops/choose.hpp"
#include "ops/context_state.hpp"
#include "ops/families/bsr_common/bsr_family.hpp"
#include "ops/registry.hpp"
#include "sparse/bsr_checks.hpp"
#include "tilegemm/bsr_gpu.hpp"
#include "tilegemm/error.hpp"
#include "tune/tuned_table.hpp"

namespace tilegemm {

namespace {

// options.config parsed, through the device context's cache when there is a device (an application
// that forces a config passes the same text on every call).
std::optional<ops::Config> forced_config(const char* fn, ops::OpKind kind, const BsrOptions& options) {
  if (options.config.empty()) return std::nullopt;
  if (options.kernel != BsrKernel::Auto)
    bsr_detail::invalid(std::string(fn) + "options.config = '" + options.config +
                        "' needs options.kernel = auto (it is " + to_string(options.kernel) + ")");
  auto parse = [fn, kind](const std::string& text) {
    return ops::registry().parse(text, (std::string(fn) + "options.config").c_str(), kind);
  };
  const detail::DeviceContext* ctx = detail::current_device_context_if_any();
  return ctx ? ctx->ops->bsr_configs.get(options.config, parse) : parse(options.config);
}

// The family an explicit BsrOptions::kernel names.
const ops::BsrFamilyBase& explicit_family(BsrKernel kernel) {
  detail::BsrFamily f = detail::BsrFamily::Reduction;
  switch (kernel) {
    case BsrKernel::SmallM: f = detail::BsrFamily::SmallM; break;
    case BsrKernel::Tiled: f = detail::BsrFamily::Tiled; break;
    case BsrKernel::TiledTf32x3: f = detail::BsrFamily::TiledTf32x3; break;
    default: break;
  }
  const ops::Family* family = ops::registry().find(detail::family_name(f));
  if (family == nullptr) throw Error(ErrorCode::Internal, std::string("BSR family ") + detail::family_name(f) + " is not registered");
  return static_cast<const ops::BsrFamilyBase&>(*family);
}

// Everything after the device-free checks, shared by both products (m x n x k of the public product).
void run_product(const char* fn, ops::OpKind kind, int64_t m, int64_t n, int64_t k, float alpha, const float* x,
                 int64_t ldx, const DeviceBsrMatrix& w, float beta, float* y, int64_t ldy, Stream stream,
                 const BsrOptions& options) {
  const int kernel_value = static_cast<int>(options.kernel);
  if (kernel_value < 0 || kernel_value > kNumBsrKernels)
    bsr_detail::invalid(std::string(fn) + "options.kernel = " + std::to_string(kernel_value) +
                        " is not a BsrKernel value (0-" + std::to_string(kNumBsrKernels) + ")");
  const std::optional<ops::Config> forced = forced_config(fn, kind, options);
  if (m == 0 || n == 0) return;  // nothing to write

  const detail::DeviceContext& ctx = detail::current_device_context();  // NoDevice / UnsupportedArch
  const bool reads = k > 0 && alpha != 0.0f && w.nnzb() > 0;  // else Y = beta * Y
  if (reads) {
    detail::require_device_pointer("x", x);
    detail::require_device_pointer("w.block_data", w.view().block_data);
  }
  detail::require_device_pointer("y", y);
  cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);

  if (!reads) {  // Y is m x n in both products
    detail::launch_scale(y, DType::F32, static_cast<int>(m), static_cast<int>(n), static_cast<int>(ldy), beta, s);
    return;
  }

  const ops::BsrCall call = ops::bsr_call(kind, m, n, k, alpha, x, ldx, w, beta, y, ldy);
  const detail::DeviceFacts facts = detail::device_facts(ctx);
  ops::Config config;
  if (forced) {
    config = *forced;
    const std::string why = config.family()->can_implement(call.problem, config);
    if (!why.empty())
      bsr_detail::invalid(std::string(fn) + "options.config = '" + options.config + "' cannot run this product: " + why);
  } else if (options.kernel == BsrKernel::Auto) {
    config = ops::choose(call.problem, facts, ctx.ops->choices,
                         [&ctx](const ops::Problem& q) { return detail::tuned_config(ctx, q); });
  } else {
    config = explicit_family(options.kernel).default_config(call.problem);
  }
  config.family()->run(call.problem, config, call.operands, facts, s);
}

}  // namespace

void bsr_xwt(int64_t m, int64_t n, int64_t k, float alpha, const float* x, int64_t ldx,
             const DeviceBsrMatrix& w, float beta, float* y, int64_t ldy, Stream stream,
             const BsrOptions& options) {
  check_bsr_xwt_args(m, n, k, x, ldx, w.view(), y, ldy);
  run_product("bsr_xwt: ", ops::OpKind::BsrXwt, m, n, k, alpha, x, ldx, w, beta, y, ldy, stream, options);
}

void bsr_wx(int64_t m, int64_t n, int64_t k, float alpha, const DeviceBsrMatrix& w, const float* x,
            int64_t ldx, float beta, float* y, int64_t ldy, Stream stream,
            const BsrOptions& options) {
  check_bsr_wx_args(m, n, k, w.view(), x, ldx, y, ldy);
  run_product("bsr_wx: ", ops::OpKind::BsrWx, m, n, k, alpha, x, ldx, w, beta, y, ldy, stream, options);
}

}  // namespace tilegemm
