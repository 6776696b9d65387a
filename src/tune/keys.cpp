#include "tune/keys.hpp"

#include <cstdio>

#include "core/device_context.hpp"
#include "tilegemm_source_hash.hpp"

namespace tilegemm {
namespace detail {

const char* kernel_source_hash() { return TILEGEMM_KERNEL_SOURCE_HASH; }
const char* library_version() { return TILEGEMM_LIBRARY_VERSION; }

DeviceKey device_key(const DeviceContext& ctx) {
  DeviceKey k;
  k.device_name = ctx.name;
  k.compute_capability = std::to_string(ctx.cc_major) + "." + std::to_string(ctx.cc_minor);
  k.sm_count = ctx.sm_count;
  k.driver_version = ctx.driver_version;
  k.library_version = library_version();
  k.source_hash = kernel_source_hash();
  return k;
}

std::string gemm_problem_key(const GemmProblem& p) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "gemm f32 %lldx%lldx%lld %c%c a%d b%d beta%d", static_cast<long long>(p.m),
                static_cast<long long>(p.n), static_cast<long long>(p.k), p.trans_a ? 'T' : 'N',
                p.trans_b ? 'T' : 'N', p.vec_a ? 16 : 4, p.vec_b ? 16 : 4, p.beta_zero ? 0 : 1);
  return buf;
}

}  // namespace detail
}  // namespace tilegemm
