#include "tune/keys.hpp"

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

}  // namespace detail
}  // namespace tilegemm
