// What a tuning database entry is keyed by: the device (tune/database.hpp, DeviceKey) and the
// problem, in a stable text form.
#pragma once
#include <string>

#include "dense/gemm_ops.hpp"
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

// The canonical row-major problem (col-major products map onto it) with what a config's legality
// and speed depend on: "gemm f32 4096x4096x4096 NN a16 b16 beta0". a16/a4: 16-byte copies of A
// allowed or not; a4s: A's rows all at one offset from a 16-byte boundary (GemmProblem::shift_a);
// "same-shift" after b: A's and B's at the same one (shifts_match); beta0/beta1: C not read or read.
std::string gemm_problem_key(const GemmProblem& p);
// A BSR product with what a config's legality and speed depend on, the matrix by its block shape,
// stored blocks and longest block row: "bsr xwt f32 4096x4096x4096 b32x32 nnzb1638 long13 x16 y16
// beta0" (m x n x k of the public product; x16/x4: 16-byte copies of X and W rows or not; y16/y4:
// 16-byte stores of Y).
std::string bsr_problem_key(const BsrProblem& prob);

}  // namespace detail
}  // namespace tilegemm
