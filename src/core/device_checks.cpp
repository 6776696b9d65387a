#include "core/device_checks.hpp"

#include <cuda_runtime_api.h>

#include <string>

#include "core/cuda_check.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

void require_device_pointer(const char* name, const void* ptr) {
  int device = 0;
  TILEGEMM_CUDA_CHECK(cudaGetDevice(&device));
  require_device_pointer(name, ptr, device);
}

void require_device_pointer(const char* name, const void* ptr, int device) {
  auto invalid = [](const std::string& msg) { throw Error(ErrorCode::InvalidArgument, msg); };
  cudaPointerAttributes attr{};
  const cudaError_t e = cudaPointerGetAttributes(&attr, ptr);
  if (e != cudaSuccess) {
    cudaGetLastError();
    invalid(std::string(name) + " is not a valid pointer (" + cudaGetErrorName(e) + ")");
  }
  if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)
    invalid(std::string(name) + " is a host pointer; tilegemm needs device memory");
  if (attr.type == cudaMemoryTypeDevice && attr.device != device)
    invalid(std::string(name) + " lives on device " + std::to_string(attr.device) +
            " but the current device is " + std::to_string(device));
}

}  // namespace detail
}  // namespace tilegemm
