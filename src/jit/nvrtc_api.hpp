// NVRTC, loaded with dlopen on the first run-time compilation: the library and its commands run
// without libnvrtc wherever nothing is compiled at run time, and say what is missing where it is.
#pragma once
#include <nvrtc.h>

namespace tilegemm {
namespace detail {

struct NvrtcApi {
  decltype(&::nvrtcVersion) version;
  decltype(&::nvrtcGetErrorString) error_string;
  decltype(&::nvrtcCreateProgram) create_program;
  decltype(&::nvrtcDestroyProgram) destroy_program;
  decltype(&::nvrtcAddNameExpression) add_name_expression;
  decltype(&::nvrtcCompileProgram) compile_program;
  decltype(&::nvrtcGetProgramLogSize) log_size;
  decltype(&::nvrtcGetProgramLog) log;
  decltype(&::nvrtcGetLoweredName) lowered_name;
  decltype(&::nvrtcGetCUBINSize) cubin_size;
  decltype(&::nvrtcGetCUBIN) cubin;
  int major = 0, minor = 0;  // nvrtcVersion
};

// The loaded API (libnvrtc.so.<CUDA major>, else libnvrtc.so), loaded once per process. Throws
// Error(NvrtcError) naming the library when it cannot be loaded or lacks a function.
const NvrtcApi& nvrtc();

}  // namespace detail
}  // namespace tilegemm
