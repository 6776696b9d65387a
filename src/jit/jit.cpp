#include "jit/jit.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/cache_dir.hpp"
#include "core/cuda_check.hpp"
#include "core/device_context.hpp"
#include "core/log.hpp"
#include "jit/nvrtc_api.hpp"
#include "jit/sources.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

namespace {

constexpr const char* kCacheMagic = "tilegemm run-time compiled kernel 1";
// The options every program is compiled with (part of the cache key), as the ahead-of-time build.
const std::vector<std::string>& compile_options() {
  static const std::vector<std::string> options = {"-std=c++17", "-DNDEBUG"};
  return options;
}

uint64_t fnv1a(const std::string& s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}
std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

struct Program {
  const NvrtcApi& api;
  nvrtcProgram prog = nullptr;
  ~Program() {
    if (prog) api.destroy_program(&prog);
  }
};

[[noreturn]] void nvrtc_fail(const NvrtcApi& api, nvrtcResult rc, const std::string& what) {
  throw Error(ErrorCode::NvrtcError, what + ": " + api.error_string(rc));
}

std::string cache_file(const std::string& key) { return cache_dir() + "/kernels/" + hex(fnv1a(key)) + ".cubin"; }

// The cached binary for `key`, if its file holds exactly that key.
bool read_cached(const std::string& path, const std::string& key, JitBinary& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string magic, stored_key;
  if (!std::getline(in, magic) || magic != kCacheMagic || !std::getline(in, stored_key) || stored_key != key ||
      !std::getline(in, out.lowered_name) || out.lowered_name.empty())
    return false;
  out.cubin.assign(std::istreambuf_iterator<char>(in), {});
  return !out.cubin.empty();
}

// Written to a temporary file renamed into place: a reader never sees half a file.
void write_cached(const std::string& path, const std::string& key, const JitBinary& b) {
  if (!make_folders(path.substr(0, path.rfind('/')))) return;  // no cache folder: compile every process
  std::ostringstream tmp_name;
  tmp_name << path << ".tmp." << getpid() << "." << std::this_thread::get_id();
  {
    std::ofstream out(tmp_name.str(), std::ios::binary);
    out << kCacheMagic << '\n' << key << '\n' << b.lowered_name << '\n';
    out.write(b.cubin.data(), static_cast<std::streamsize>(b.cubin.size()));
    if (!out) {
      std::remove(tmp_name.str().c_str());
      return;
    }
  }
  if (std::rename(tmp_name.str().c_str(), path.c_str()) != 0) std::remove(tmp_name.str().c_str());
}

// Loads a CUBIN; nullptr when the runtime refuses it (the error is cleared).
const void* load_kernel(const JitBinary& b, std::string* why) {
  cudaLibrary_t lib = nullptr;
  cudaError_t e = cudaLibraryLoadData(&lib, b.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (e != cudaSuccess) {
    cudaGetLastError();
    *why = std::string("cudaLibraryLoadData: ") + cudaGetErrorString(e);
    return nullptr;
  }
  cudaKernel_t kernel = nullptr;
  e = cudaLibraryGetKernel(&kernel, lib, b.lowered_name.c_str());
  if (e != cudaSuccess) {
    cudaGetLastError();
    cudaLibraryUnload(lib);
    *why = std::string("cudaLibraryGetKernel(") + b.lowered_name + "): " + cudaGetErrorString(e);
    return nullptr;
  }
  return reinterpret_cast<const void*>(kernel);  // the library stays loaded for the life of the process
}

}  // namespace

std::string jit_arch(int cc_major, int cc_minor) {
  return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor) + (cc_major == 9 && cc_minor == 0 ? "a" : "");
}

std::string jit_sources_hash(const EmbeddedSource* sources, int count) {
  uint64_t h = fnv1a("");
  for (int i = 0; i < count; ++i) h = fnv1a(std::string(sources[i].text), fnv1a(sources[i].path, h));
  return hex(h);
}

std::string jit_sources_hash() {
  static const std::string hash = jit_sources_hash(kJitSources, kNumJitSources);
  return hash;
}

std::string jit_cache_key(const std::string& sources_hash, const std::string& arch, int nvrtc_major,
                          int nvrtc_minor, const JitRequest& r) {
  std::string key = "sources " + sources_hash + " arch " + arch + " nvrtc " + std::to_string(nvrtc_major) + "." +
                    std::to_string(nvrtc_minor) + " options";
  for (const std::string& o : compile_options()) key += " " + o;
  return key + " header " + r.header + " kernel " + r.name_expression;
}

JitBinary jit_compile(const std::string& arch, const JitRequest& r) {
  const NvrtcApi& api = nvrtc();
  std::vector<const char*> texts, paths;
  for (int i = 0; i < kNumJitSources; ++i) {  // each header under its path below src/, as they include each other
    texts.push_back(kJitSources[i].text);
    paths.push_back(kJitSources[i].path);
  }
  const std::string source = "#include \"" + r.header + "\"\n";
  Program p{api};
  nvrtcResult rc = api.create_program(&p.prog, source.c_str(), "tilegemm_jit.cu", static_cast<int>(texts.size()),
                                      texts.data(), paths.data());
  if (rc != NVRTC_SUCCESS) nvrtc_fail(api, rc, "nvrtcCreateProgram");
  rc = api.add_name_expression(p.prog, r.name_expression.c_str());
  if (rc != NVRTC_SUCCESS) nvrtc_fail(api, rc, "nvrtcAddNameExpression(" + r.name_expression + ")");
  const std::string arch_option = "--gpu-architecture=" + arch;
  std::vector<const char*> options = {arch_option.c_str()};
  for (const std::string& o : compile_options()) options.push_back(o.c_str());
  rc = api.compile_program(p.prog, static_cast<int>(options.size()), options.data());
  std::string log;
  size_t log_size = 0;
  if (api.log_size(p.prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    log.resize(log_size);
    api.log(p.prog, &log[0]);
    log.resize(log_size - 1);
  }
  if (rc != NVRTC_SUCCESS)
    throw Error(ErrorCode::NvrtcError, "run-time compilation of " + r.name_expression + " for " + arch + " failed (" +
                                           api.error_string(rc) + "):\n" + log);
  JitBinary b;
  const char* lowered = nullptr;
  rc = api.lowered_name(p.prog, r.name_expression.c_str(), &lowered);
  if (rc != NVRTC_SUCCESS || !lowered) nvrtc_fail(api, rc, "nvrtcGetLoweredName(" + r.name_expression + ")");
  b.lowered_name = lowered;
  size_t size = 0;
  rc = api.cubin_size(p.prog, &size);
  if (rc != NVRTC_SUCCESS) nvrtc_fail(api, rc, "nvrtcGetCUBINSize");
  b.cubin.resize(size);
  rc = api.cubin(p.prog, b.cubin.data());
  if (rc != NVRTC_SUCCESS) nvrtc_fail(api, rc, "nvrtcGetCUBIN");
  return b;
}

namespace {
// The key of `r` on the context's device with this process's embedded headers and NVRTC.
std::string device_cache_key(const DeviceContext& ctx, const JitRequest& r) {
  const NvrtcApi& api = nvrtc();
  return jit_cache_key(jit_sources_hash(), jit_arch(ctx.cc_major, ctx.cc_minor), api.major, api.minor, r);
}
}  // namespace

std::string jit_cache_path(const DeviceContext& ctx, const JitRequest& r) { return cache_file(device_cache_key(ctx, r)); }

const void* jit_kernel(const DeviceContext& ctx, const JitRequest& r) {
  {
    std::lock_guard<std::mutex> lock(ctx.jit_mutex);
    const auto it = ctx.jit_kernels.find(r.name_expression);
    if (it != ctx.jit_kernels.end()) return it->second;
  }
  const std::string key = device_cache_key(ctx, r);
  const std::string path = cache_file(key);
  JitBinary b;
  const void* kernel = nullptr;
  std::string why;
  if (read_cached(path, key, b)) {
    // Not handed to the runtime unless it is an ELF image: a damaged file costs a compile, not an error.
    if (b.cubin.size() < 4 || std::memcmp(b.cubin.data(), "\x7f" "ELF", 4) != 0) why = "not an ELF image";
    else kernel = load_kernel(b, &why);
    if (!kernel) log_warning("run-time compiled kernel cache '" + path + "' did not load (" + why + "); compiled again");
  }
  if (!kernel) {
    b = jit_compile(jit_arch(ctx.cc_major, ctx.cc_minor), r);
    kernel = load_kernel(b, &why);
    if (!kernel) throw Error(ErrorCode::CudaError, "loading the run-time compiled " + r.name_expression + ": " + why);
    write_cached(path, key, b);
  }
  std::lock_guard<std::mutex> lock(ctx.jit_mutex);
  return ctx.jit_kernels.emplace(r.name_expression, kernel).first->second;  // a concurrent twin keeps the first
}

std::vector<std::string> jit_prefetch(const DeviceContext& ctx, const std::vector<JitRequest>& rs, int threads) {
  std::vector<std::string> errors(rs.size());
  int device = 0;
  TILEGEMM_CUDA_CHECK(cudaGetDevice(&device));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    cudaSetDevice(device);  // the runtime's current device is per thread
    for (size_t i; (i = next.fetch_add(1)) < rs.size();) {
      try {
        jit_kernel(ctx, rs[i]);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < std::max(1, std::min<int>(threads, static_cast<int>(rs.size()))); ++t) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  return errors;
}

}  // namespace detail
}  // namespace tilegemm
