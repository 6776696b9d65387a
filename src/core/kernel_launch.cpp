#include "core/kernel_launch.hpp"

#include "core/cuda_check.hpp"

namespace tilegemm {
namespace detail {

void launch_kernel(const void* kernel, dim3 grid, dim3 block, size_t smem_bytes, cudaStream_t stream,
                   bool after_prologue, void** args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem_bytes;
  config.stream = stream;
  config.attrs = after_prologue ? &attribute : nullptr;
  config.numAttrs = after_prologue ? 1 : 0;
  TILEGEMM_CUDA_CHECK(cudaLaunchKernelExC(&config, kernel, args));
}

void launch_kernel_in_clusters(const void* kernel, dim3 grid, dim3 block, size_t smem_bytes, cudaStream_t stream,
                               int cluster, void** args) {
  cudaLaunchAttribute attribute = cluster_dimension(cluster);
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem_bytes;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  TILEGEMM_CUDA_CHECK(cudaLaunchKernelExC(&config, kernel, args));
}

}  // namespace detail
}  // namespace tilegemm
