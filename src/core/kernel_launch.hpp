// One launch path for the dense kernels, compiled ahead of time or at run time: cudaLaunchKernelExC,
// with programmatic dependent launch when the kernel follows the call's own prologue
// (kernels/common/griddep.cuh has the rule such a kernel keeps). Host code only.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>

namespace tilegemm {
namespace detail {

// Blocks of a grid-stride kernel over `items`, `items_per_block` per block and pass: enough for one
// pass, at most `blocks_per_sm` on each of `sm_count` SMs.
inline unsigned grid_stride_blocks(int64_t items, int64_t items_per_block, int blocks_per_sm, int sm_count) {
  const int64_t want = (items + items_per_block - 1) / items_per_block;
  const int64_t most = int64_t(blocks_per_sm) * (sm_count > 0 ? sm_count : 1);
  return static_cast<unsigned>(want < most ? want : most);
}

// Launches `kernel` (a __global__ function's address, or a run-time compiled function) with `args`
// (pointers to each argument). overlap_previous: the previous launch on `stream` is this call's own
// (its prologue, or the product whose split-K sums this kernel reduces), which the kernel may
// overlap. Launch errors throw tilegemm::Error.
void launch_kernel(const void* kernel, dim3 grid, dim3 block, size_t smem_bytes, cudaStream_t stream,
                   bool overlap_previous, void** args);

// The same for a compiled kernel, its arguments by value, each converted to its parameter's type
// first (the launch copies the bytes the pointers show: an int where a long long is expected would
// pass garbage).
template <class... Params, class... Args>
void launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem_bytes, cudaStream_t stream,
                   bool overlap_previous, Args... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "one argument per kernel parameter");
  std::tuple<std::decay_t<Params>...> values{args...};
  std::apply(
      [&](auto&... v) {
        void* pointers[] = {static_cast<void*>(&v)...};
        launch_kernel(reinterpret_cast<const void*>(kernel), grid, block, smem_bytes, stream, overlap_previous,
                      pointers);
      },
      values);
}

// The launch attribute of thread-block clusters of `blocks` blocks along x.
inline cudaLaunchAttribute cluster_dimension(int blocks) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = static_cast<unsigned>(blocks);
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  return attribute;
}

// A launch in thread-block clusters of `cluster` blocks along x: the one configuration that the launch
// and the occupancy query take. `config.attrs` points at `attribute`, so the object is not copied.
struct ClusterLaunch {
  cudaLaunchAttribute attribute;
  cudaLaunchConfig_t config{};
  ClusterLaunch(dim3 grid, dim3 block, size_t smem_bytes, cudaStream_t stream, int cluster);
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};
// Clusters of `cluster` blocks of `kernel` (`threads` a block, `smem_bytes` of dynamic shared memory)
// that the device runs at once (cudaOccupancyMaxActiveClusters; 0 when none fits).
int max_active_clusters(const void* kernel, int threads, size_t smem_bytes, int cluster);

// Launches `kernel` in thread-block clusters of `cluster` blocks along x (grid.x a multiple of it).
void launch_kernel_in_clusters(const void* kernel, dim3 grid, dim3 block, size_t smem_bytes, cudaStream_t stream,
                               int cluster, void** args);
template <class... Params, class... Args>
void launch_kernel_in_clusters(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem_bytes,
                               cudaStream_t stream, int cluster, Args... args) {
  void* pointers[] = {static_cast<void*>(&args)...};
  launch_kernel_in_clusters(reinterpret_cast<const void*>(kernel), grid, block, smem_bytes, stream, cluster, pointers);
}

}  // namespace detail
}  // namespace tilegemm
