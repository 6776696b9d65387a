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

std::string bsr_problem_key(const BsrProblem& prob) {
  const kernels::BsrParams& p = prob.p;
  const long long m = prob.xwt ? p.cols_j : p.rows_i, n = prob.xwt ? p.rows_i : p.cols_j;
  const long long longest = prob.row_lengths && !prob.row_lengths->empty() ? prob.row_lengths->front() : 0;
  char buf[200];
  std::snprintf(buf, sizeof buf, "bsr %s f32 %lldx%lldx%d b%dx%d nnzb%lld long%lld x%d y%d beta%d",
                prob.xwt ? "xwt" : "wx", m, n, p.depth_k, p.block_r, p.block_c, prob.nnzb, longest,
                prob.vec() ? 16 : 4, p.y_vec4 ? 16 : 4, p.beta == 0.0f ? 0 : 1);
  return buf;
}

}  // namespace detail
}  // namespace tilegemm
