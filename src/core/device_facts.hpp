// What the plans and cost models need to know about a device (filled from its DeviceContext, or by
// hand in the CPU tests). Pure host code.
#pragma once

namespace tilegemm {
namespace detail {

struct DeviceFacts {
  int ordinal = 0;  // which device
  int sm_count = 132;
  int cc_major = 9, cc_minor = 0;  // compute capability
  double mem_bandwidth_gbs = 3352;
};

struct DeviceContext;
DeviceFacts device_facts(const DeviceContext& ctx);  // core/device_context.cpp
DeviceFacts current_device_facts();

}  // namespace detail
}  // namespace tilegemm
