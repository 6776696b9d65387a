// Checks every public entry point that launches work makes before launching: a supported device is
// current, and the pointers it will dereference are device memory of that device; and the one
// device query the dispatchers need.
#pragma once

namespace tilegemm {
namespace detail {

// Throws NoDevice / UnsupportedArch (tilegemm::require_supported_device); remembers devices that
// passed, since the check costs a property query.
void require_supported_device_cached();

// Throws InvalidArgument naming `name` unless `ptr` is device (or managed) memory on the current
// device: "x is a host pointer; tilegemm needs device memory".
void require_device_pointer(const char* name, const void* ptr);

// Streaming multiprocessors of the current device (dispatch heuristics on the launch path).
int current_sm_count();

}  // namespace detail
}  // namespace tilegemm
