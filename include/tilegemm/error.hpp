// The one exception type the library throws. It never prints, exits or aborts.
#pragma once
#include <stdexcept>
#include <string>

namespace tilegemm {

enum class ErrorCode {
  InvalidArgument,   // a bad argument: the message names it and its value
  NoDevice,          // no CUDA device is visible
  UnsupportedArch,   // the device's architecture was not compiled into this build
  CudaError,         // a CUDA runtime call failed (message has file:line)
  CublasError,
  CusparseError,
  NvrtcError,
  OutOfMemory,
  Internal,
};

const char* to_string(ErrorCode c);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace tilegemm
