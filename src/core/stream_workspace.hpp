// Scratch memory that a kernel launch on a stream may use, kept between calls (like a cuBLAS
// handle's workspace, but keyed by device and stream since tilegemm has no handle). Host code only.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

namespace tilegemm {
namespace detail {

// A buffer of at least `bytes` usable by work enqueued on `stream` of the current device. Its
// first `zeroed_bytes` (<= bytes) are zero when the work runs: the kernels that use them as counters
// must leave them zero when they finish (then no memset is needed on the next call); the rest is
// scratch. Growing frees the old buffer and allocates the
// new one stream-ordered (cudaFreeAsync / cudaMallocAsync / cudaMemsetAsync on `stream`), so work
// already queued on the stream keeps its buffer; growth is not allowed inside a graph capture (the
// first call of a size must come before capturing). Buffers of one stream are used by one product
// at a time in stream order; different streams never share one. Thread-safe.
void* stream_workspace(cudaStream_t stream, size_t bytes, size_t zeroed_bytes);

}  // namespace detail
}  // namespace tilegemm
