// How many thread-block clusters run on the device at once when every block takes a whole SM: the
// launch bound of kernels whose clusters are the unit of work (level 8's k slices summed in a cluster).
// The GPCs, not the SM count, set it: a cluster's blocks share one GPC, so clusters of 4 or 8 leave
// SMs idle (cudaOccupancyMaxActiveClusters answers for a given kernel; an empty one with all of a
// block's shared memory stands for any kernel that fills an SM).
#include <cuda_runtime_api.h>

#include "core/cluster_capacity.hpp"
#include "core/cuda_check.hpp"
#include "core/kernel_launch.hpp"

namespace tilegemm {
namespace detail {

namespace {
__global__ void whole_sm_block() {}
}  // namespace

int whole_sm_clusters_at_once(int size, int sm_count, int cc_major, size_t smem_per_block_optin) {
  if (size <= 1 || cc_major < 9) return sm_count / (size > 0 ? size : 1);  // no clusters before Hopper
  const void* kernel = reinterpret_cast<const void*>(whole_sm_block);
  const int smem = static_cast<int>(smem_per_block_optin);
  TILEGEMM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  return max_active_clusters(kernel, 128, static_cast<size_t>(smem), size);
}

}  // namespace detail
}  // namespace tilegemm
