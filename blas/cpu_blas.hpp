// The CPU BLAS the shim hands small problems (and everything, when there is no usable GPU) to: the
// sgemm_ it shadows. Found once per process, in this order:
//   1. TILEGEMM_BLAS_CPU_LIB: a library path to dlopen, or "builtin" for the loops below;
//   2. the next sgemm_ after the shim in the process's lookup order (dlsym(RTLD_NEXT)): the system
//      BLAS when the shim is LD_PRELOADed in front of it or linked before it;
//   3. dlopen("libblas.so.3"), the system BLAS by its soname;
//   4. the reference loops built in here (slow; only when no BLAS can be found at all).
#pragma once
#include <string>

#include "sgemm_args.hpp"

namespace tilegemm {
namespace blas {

// Where cpu_sgemm goes: "builtin" or the path of the library that holds the sgemm_ it calls.
const std::string& cpu_blas_name();

// A problem message from the lookup (e.g. TILEGEMM_BLAS_CPU_LIB could not be loaded), or empty.
const std::string& cpu_blas_warning();

// Runs `call` (valid, host memory, sizes within 32-bit int) on the CPU BLAS.
void cpu_sgemm(const ColMajorCall& call);

// The reference SGEMM's loops, for the builtin fallback and its test.
void builtin_sgemm(const ColMajorCall& call);

}  // namespace blas
}  // namespace tilegemm
