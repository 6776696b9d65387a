// Run-time compiled kernels: one instantiation of a kernel template (a name expression such as
// "&tilegemm::kernels::gemm_split_tiled<...>") compiled with NVRTC from the kernel headers embedded
// in the library (jit/sources.hpp), for the current device's architecture. Each binary is cached in
// memory per device and on disk under cache_dir()/kernels, keyed by everything that makes it stale:
// the headers' text, the name expression, the architecture, NVRTC's version and the options. A
// cached file that does not match its key or does not load is replaced (one warning through the log
// callback). Compilation never happens on a product call unless the call asked for a run-time
// compiled config.
#pragma once
#include <string>
#include <vector>

namespace tilegemm {
namespace detail {

struct DeviceContext;

struct JitRequest {
  std::string header;           // included by the program, below src/: "kernels/gemm/split_tiled.cuh"
  std::string name_expression;  // the instantiation, with a leading '&'
};

struct JitBinary {
  std::vector<char> cubin;
  std::string lowered_name;  // the kernel's mangled name in the CUBIN
};

// "sm_90a" for compute capability 9.0 (the architecture-specific target the library is built for),
// else "sm_<major><minor>".
std::string jit_arch(int cc_major, int cc_minor);
// FNV-1a (64-bit, hex) over headers' paths and text: the embedded ones, or any list (tests).
std::string jit_sources_hash();
struct EmbeddedSource;
std::string jit_sources_hash(const EmbeddedSource* sources, int count);
// The text every cached binary is keyed by (one line).
std::string jit_cache_key(const std::string& sources_hash, const std::string& arch, int nvrtc_major,
                          int nvrtc_minor, const JitRequest& r);
// Compiles `r` for `arch` (no device needed). Throws Error(NvrtcError) with the compiler's log.
JitBinary jit_compile(const std::string& arch, const JitRequest& r);
// The kernel on the current device, as the runtime's handle (a cudaKernel_t, accepted wherever a
// kernel symbol is: cudaLaunchKernel, cudaFuncSetAttribute): from memory, the disk cache, or compiled.
const void* jit_kernel(const DeviceContext& ctx, const JitRequest& r);
// The disk cache file of `r` on the context's device.
std::string jit_cache_path(const DeviceContext& ctx, const JitRequest& r);
// Makes the requests ready on the current device, compiling up to `threads` at once; returns one
// message per request that failed ("" for the others).
std::vector<std::string> jit_prefetch(const DeviceContext& ctx, const std::vector<JitRequest>& rs, int threads);

}  // namespace detail
}  // namespace tilegemm
