#include "jit/nvrtc_api.hpp"

#include <cuda.h>
#include <dlfcn.h>

#include <mutex>
#include <string>

#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

namespace {

NvrtcApi load() {
  const std::string versioned = "libnvrtc.so." + std::to_string(CUDA_VERSION / 1000);
  void* lib = dlopen(versioned.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libnvrtc.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    throw Error(ErrorCode::NvrtcError, "run-time compilation needs NVRTC: neither " + versioned +
                                           " nor libnvrtc.so could be loaded (" + dlerror() +
                                           "); install the CUDA toolkit's NVRTC or use a compiled config");
  NvrtcApi api{};
  auto get = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
    if (!fn) throw Error(ErrorCode::NvrtcError, std::string("NVRTC (") + versioned + ") has no " + name);
  };
  get(api.version, "nvrtcVersion");
  get(api.error_string, "nvrtcGetErrorString");
  get(api.create_program, "nvrtcCreateProgram");
  get(api.destroy_program, "nvrtcDestroyProgram");
  get(api.add_name_expression, "nvrtcAddNameExpression");
  get(api.compile_program, "nvrtcCompileProgram");
  get(api.log_size, "nvrtcGetProgramLogSize");
  get(api.log, "nvrtcGetProgramLog");
  get(api.lowered_name, "nvrtcGetLoweredName");
  get(api.cubin_size, "nvrtcGetCUBINSize");
  get(api.cubin, "nvrtcGetCUBIN");
  api.version(&api.major, &api.minor);
  return api;  // the library stays loaded for the life of the process
}

}  // namespace

const NvrtcApi& nvrtc() {
  static std::mutex mutex;
  static NvrtcApi* api = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (!api) api = new NvrtcApi(load());  // a failed load is retried by the next call
  return *api;
}

}  // namespace detail
}  // namespace tilegemm
