// The GPU side of the shim: what kind of memory the caller's pointers are, and running one
// column-major product on the device, directly (device pointers) or staged through device buffers
// with the copies of one chunk overlapping the product of the next (host pointers).
#pragma once
#include <optional>
#include <string>

#include "sgemm_args.hpp"

namespace tilegemm {
namespace blas {

// True when the process has loaded the CUDA driver (someone uses CUDA), so pointers may be device
// pointers; false means every pointer is host memory, known without initializing CUDA.
bool cuda_driver_loaded();

// Where the operands live: device (or managed) memory, which the GPU reads in place, or host memory,
// page-locked (copied by DMA directly) or pageable (copied through bounce buffers).
struct OnDevice {
  bool a = false, b = false, c = false;
  bool locked_a = false, locked_b = false, locked_c = false;
  bool any() const { return a || b || c; }
  bool all() const { return a && b && c; }
};

// Asks CUDA about each pointer of `call` (one query per pointer).
OnDevice classify(const ColMajorCall& call);

enum class GpuPath { Direct, Staged };

struct GpuFailure {
  std::string message;
  // The part of the product whose C is not final yet, for the CPU to compute; empty when that part
  // cannot run on the CPU (an operand lives in device memory).
  std::optional<ColMajorCall> cpu_rest;
  bool device_unusable = true;  // false for an allocation failure: the next call may fit
};

// Runs `call` (valid, not a quick return) on the current device. Returns the failure, if any; on a
// failure the chunks of C already copied back are final and `cpu_rest` covers the others.
std::optional<GpuFailure> gpu_sgemm(const ColMajorCall& call, const OnDevice& on_device,
                                    GpuPath* path);

}  // namespace blas
}  // namespace tilegemm
