// What a tuning database entry is keyed by: the device (tune/database.hpp, DeviceKey) and the
// problem, in a stable text form.
#pragma once
#include <string>

#include "tune/database.hpp"

namespace tilegemm {
namespace detail {

struct DeviceContext;

// SHA-256 prefix of the kernel headers and launch code this library was built from
// (cmake/source_hash.cmake).
const char* kernel_source_hash();
// This library's version ("0.1.0").
const char* library_version();
DeviceKey device_key(const DeviceContext& ctx);

}  // namespace detail
}  // namespace tilegemm
