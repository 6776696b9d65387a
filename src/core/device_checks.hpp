// The pointer check every public entry point that launches work makes before launching (the device
// itself is checked by current_device_context(), core/device_context.hpp).
#pragma once

namespace tilegemm {
namespace detail {

// Throws InvalidArgument naming `name` unless `ptr` is device (or managed) memory on the current
// device: "x is a host pointer; tilegemm needs device memory".
void require_device_pointer(const char* name, const void* ptr);
// The same, with the current device's ordinal already known (saves a cudaGetDevice per pointer on
// the product calls' hot path).
void require_device_pointer(const char* name, const void* ptr, int current_device);

}  // namespace detail
}  // namespace tilegemm
