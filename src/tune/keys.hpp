// What a tuning database entry is keyed by: the device (tune/database.hpp, DeviceKey) and the
// problem, in a stable text form.
#pragma once
#include <string>

#include "sparse/launch.hpp"
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

// A BSR product with what a config's legality and speed depend on, the matrix by its block shape,
// stored blocks and longest block row: "bsr xwt f32 4096x4096x4096 b32x32 nnzb1638 long13 x16 y16
// beta0" (m x n x k of the public product; x16/x4: 16-byte copies of X and W rows or not; y16/y4:
// 16-byte stores of Y).
std::string bsr_problem_key(const BsrProblem& prob);

}  // namespace detail
}  // namespace tilegemm
