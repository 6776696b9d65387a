// Scratch device memory for one product call (split-K partial tiles and their counters), taken from
// the device's workspace pool in stream order and given back in stream order. Host code only.
//
// Why stream-ordered per call instead of a buffer cached per stream: nothing is kept per stream, so a
// destroyed stream leaves nothing behind and a new stream that receives a recycled handle cannot
// inherit memory the old stream's work still uses; the pool reuses freed memory only once the work
// that used it has finished (or the stream order guarantees it), keeps at most
// kWorkspacePoolKeepBytes of unused memory reserved, and inside a CUDA graph capture the allocation
// and the free become graph nodes that the graph owns, so capturing needs no warm-up call.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

namespace tilegemm {
namespace detail {

// Unused memory the pool keeps reserved between calls (beyond it, memory goes back to the device at
// the next synchronization).
inline constexpr size_t kWorkspacePoolKeepBytes = size_t(256) << 20;

class Workspace {
 public:
  // `bytes` of device memory usable by work enqueued on `stream` after this call; the first
  // `zeroed_bytes` (counters) are zero when that work runs (a cudaMemsetAsync on the stream).
  // bytes == 0 allocates nothing.
  Workspace(cudaStream_t stream, size_t bytes, size_t zeroed_bytes);
  // Frees the memory in stream order: after everything enqueued on the stream so far.
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  char* get() const { return ptr_; }

 private:
  cudaStream_t stream_;
  char* ptr_ = nullptr;
};

// Memory the current device's workspace pool holds from the device (in use or kept), for tests.
size_t workspace_pool_reserved_bytes();

}  // namespace detail
}  // namespace tilegemm
