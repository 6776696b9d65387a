// Turns failed CUDA / cuBLAS calls into tilegemm::Error with file:line. Host code only.
#pragma once
#include <cuda_runtime_api.h>

#include <string>

#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* expr, const char* file, int line) {
  const ErrorCode code = (e == cudaErrorMemoryAllocation) ? ErrorCode::OutOfMemory
                         : (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
                             ? ErrorCode::NoDevice
                             : ErrorCode::CudaError;
  throw Error(code, std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " +
                        cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

}  // namespace detail
}  // namespace tilegemm

#define TILEGEMM_CUDA_CHECK(expr)                                                  \
  do {                                                                             \
    const cudaError_t tilegemm_err_ = (expr);                                      \
    if (tilegemm_err_ != cudaSuccess)                                              \
      ::tilegemm::detail::throw_cuda(tilegemm_err_, #expr, __FILE__, __LINE__);    \
  } while (0)

// After a kernel launch: launch-configuration errors surface here.
#define TILEGEMM_CHECK_LAUNCH() TILEGEMM_CUDA_CHECK(cudaGetLastError())
