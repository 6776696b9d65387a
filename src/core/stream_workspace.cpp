#include "core/stream_workspace.hpp"

#include <map>
#include <mutex>
#include <utility>

#include "core/cuda_check.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

namespace {

struct Buffer {
  void* ptr = nullptr;
  size_t bytes = 0;
  size_t clean = 0;  // leading bytes known to be zero (the last caller's counters, reset by its kernel)
};

// Never freed: like the CUDA runtime's own caches, the buffers live until the process exits (freeing
// from a static destructor could run after the CUDA context is gone).
std::mutex g_mutex;
std::map<std::pair<int, cudaStream_t>, Buffer>& buffers() {
  static auto* m = new std::map<std::pair<int, cudaStream_t>, Buffer>();
  return *m;
}

}  // namespace

void* stream_workspace(cudaStream_t stream, size_t bytes, size_t zeroed_bytes) {
  int device = 0;
  TILEGEMM_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(g_mutex);
  Buffer& b = buffers()[{device, stream}];
  if (b.bytes < bytes || zeroed_bytes > b.clean) {
    // Inside a capture the allocation (or memset) would become a graph node that the graph owns,
    // and this cache would keep a pointer it does not own.
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    TILEGEMM_CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
    if (capture != cudaStreamCaptureStatusNone)
      throw Error(ErrorCode::InvalidArgument,
                  "stream is being captured into a CUDA graph and this product needs a larger "
                  "workspace on it (split long block rows): make one call of the same size on the "
                  "stream before capturing");
  }
  if (b.bytes < bytes) {
    if (b.ptr != nullptr) {
      TILEGEMM_CUDA_CHECK(cudaFreeAsync(b.ptr, stream));
      b = Buffer{};
    }
    const size_t want = bytes + bytes / 4;  // some headroom for the next, slightly larger call
    TILEGEMM_CUDA_CHECK(cudaMallocAsync(&b.ptr, want, stream));
    b.bytes = want;
  }
  if (zeroed_bytes > b.clean)
    TILEGEMM_CUDA_CHECK(cudaMemsetAsync(static_cast<char*>(b.ptr) + b.clean, 0, zeroed_bytes - b.clean, stream));
  b.clean = zeroed_bytes;  // the caller may dirty everything after its counters
  return b.ptr;
}

}  // namespace detail
}  // namespace tilegemm
