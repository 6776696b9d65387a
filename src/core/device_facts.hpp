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
  // The memory bus in bytes a second (an H100's 3.35 TB/s where the bandwidth is not known).
  double bus_bytes_per_s() const { return mem_bandwidth_gbs > 0 ? mem_bandwidth_gbs * 1e9 : 3.35e12; }
  // Clusters of 1, 2, 4 and 8 blocks that run at once when each block takes a whole SM (a cluster
  // stays in one GPC, so clusters of 4 and 8 leave SMs idle). The defaults: an H200 (132 SMs), measured
  // 2026-11-28 (core/cluster_capacity.cu asks the device).
  int whole_sm_clusters[4] = {132, 66, 30, 15};
  // The entry for `size` blocks (1, 2, 4 or 8; a size in between takes the next larger entry's bound).
  int clusters_at_once(int size) const {
    const int i = size <= 1 ? 0 : size <= 2 ? 1 : size <= 4 ? 2 : 3;
    return whole_sm_clusters[i];
  }
};

struct DeviceContext;
DeviceFacts device_facts(const DeviceContext& ctx);  // core/device_context.cpp
DeviceFacts current_device_facts();

}  // namespace detail
}  // namespace tilegemm
