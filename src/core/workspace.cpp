#include "core/workspace.hpp"

#include <cstdint>

#include "core/cuda_check.hpp"
#include "core/device_context.hpp"

namespace tilegemm {
namespace detail {

Workspace::Workspace(cudaStream_t stream, size_t bytes, size_t zeroed_bytes) : stream_(stream) {
  if (bytes == 0) return;
  const DeviceContext& ctx = current_device_context();
  void* p = nullptr;
  TILEGEMM_CUDA_CHECK(cudaMallocFromPoolAsync(&p, bytes, ctx.workspace_pool, stream));
  ptr_ = static_cast<char*>(p);
  if (zeroed_bytes > 0) {
    const cudaError_t e = cudaMemsetAsync(ptr_, 0, zeroed_bytes < bytes ? zeroed_bytes : bytes, stream);
    if (e != cudaSuccess) {
      cudaFreeAsync(ptr_, stream);
      ptr_ = nullptr;
      throw_cuda(e, "cudaMemsetAsync(workspace counters)", __FILE__, __LINE__);
    }
  }
}

Workspace::~Workspace() {
  // A destructor must not throw; a failing free leaves the memory to the pool's owner (the process).
  if (ptr_ != nullptr && cudaFreeAsync(ptr_, stream_) != cudaSuccess) cudaGetLastError();
}

size_t workspace_pool_reserved_bytes() {
  uint64_t bytes = 0;
  TILEGEMM_CUDA_CHECK(
      cudaMemPoolGetAttribute(current_device_context().workspace_pool, cudaMemPoolAttrReservedMemCurrent, &bytes));
  return static_cast<size_t>(bytes);
}

}  // namespace detail
}  // namespace tilegemm
