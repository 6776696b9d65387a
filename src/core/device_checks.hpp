// The pointer check every public entry point that launches work makes before launching (the device
// itself is checked by current_device_context(), core/device_context.hpp).
#pragma once

namespace tilegemm {
namespace detail {

// Throws InvalidArgument naming `name` unless `ptr` is device (or managed) memory on the current
// device: "x is a host pointer; tilegemm needs device memory".
void require_device_pointer(const char* name, const void* ptr);

}  // namespace detail
}  // namespace tilegemm
