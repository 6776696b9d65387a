#include "core/kernel_launch.hpp"

#include "core/cuda_check.hpp"

namespace tilegemm {
namespace detail {

void launch_kernel(const void* kernel, dim3 grid, dim3 block, size_t smem_bytes, cudaStream_t stream,
                   bool overlap_previous, void** args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem_bytes;
  config.stream = stream;
  config.attrs = overlap_previous ? &attribute : nullptr;
  config.numAttrs = overlap_previous ? 1 : 0;
  TILEGEMM_CUDA_CHECK(cudaLaunchKernelExC(&config, kernel, args));
}

ClusterLaunch::ClusterLaunch(dim3 grid, dim3 block, size_t smem_bytes, cudaStream_t stream, int cluster)
    : attribute(cluster_dimension(cluster)) {
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem_bytes;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
}

int max_active_clusters(const void* kernel, int threads, size_t smem_bytes, int cluster) {
  const ClusterLaunch launch(dim3(static_cast<unsigned>(cluster)), dim3(static_cast<unsigned>(threads)), smem_bytes,
                             nullptr, cluster);
  int n = 0;
  TILEGEMM_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&n, kernel, &launch.config));
  return n;
}

void launch_kernel_in_clusters(const void* kernel, dim3 grid, dim3 block, size_t smem_bytes, cudaStream_t stream,
                               int cluster, void** args) {
  const ClusterLaunch launch(grid, block, smem_bytes, stream, cluster);
  TILEGEMM_CUDA_CHECK(cudaLaunchKernelExC(&launch.config, kernel, args));
}

}  // namespace detail
}  // namespace tilegemm
