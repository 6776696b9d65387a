#include <cuda_runtime_api.h>

#include <sstream>

#include "core/cuda_check.hpp"
#include "tilegemm/device.hpp"

#ifndef TILEGEMM_COMPILED_ARCHS
#define TILEGEMM_COMPILED_ARCHS ""
#endif

namespace tilegemm {

double DeviceInfo::fp32_peak_tflops() const {
  // FP32 lanes per SM: 64 on GA100 (8.0), 128 on 8.6/8.9/9.0 and later.
  const int lanes = (cc_major == 8 && cc_minor == 0) ? 64 : 128;
  return 2.0 * lanes * sm_count * (sm_clock_khz * 1e3) / 1e12;
}

double DeviceInfo::mem_bandwidth_gbs() const {
  return 2.0 * (mem_clock_khz * 1e3) * (mem_bus_width_bits / 8.0) / 1e9;
}

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return n;
}

DeviceInfo current_device_info() {
  if (device_count() == 0) throw Error(ErrorCode::NoDevice, "no CUDA device is visible");
  DeviceInfo info;
  TILEGEMM_CUDA_CHECK(cudaGetDevice(&info.ordinal));
  cudaDeviceProp prop{};
  TILEGEMM_CUDA_CHECK(cudaGetDeviceProperties(&prop, info.ordinal));
  info.name = prop.name;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  // CUDA 13 dropped clockRate/memoryClockRate from cudaDeviceProp; ask the attributes instead.
  TILEGEMM_CUDA_CHECK(cudaDeviceGetAttribute(&info.sm_clock_khz, cudaDevAttrClockRate, info.ordinal));
  TILEGEMM_CUDA_CHECK(
      cudaDeviceGetAttribute(&info.mem_clock_khz, cudaDevAttrMemoryClockRate, info.ordinal));
  info.mem_bus_width_bits = prop.memoryBusWidth;
  info.global_mem_bytes = prop.totalGlobalMem;
  info.l2_bytes = prop.l2CacheSize;
  info.smem_per_block_optin = prop.sharedMemPerBlockOptin;
  TILEGEMM_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  TILEGEMM_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  return info;
}

std::vector<std::string> compiled_archs() {
  std::vector<std::string> out;
  std::stringstream ss(TILEGEMM_COMPILED_ARCHS);
  std::string item;
  while (std::getline(ss, item, ',')) {
    // CMake entries look like "90a", "80", "90a-real"; keep the number and the 'a'.
    const auto dash = item.find('-');
    if (dash != std::string::npos) item = item.substr(0, dash);
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

void require_supported_device() {
  const DeviceInfo info = current_device_info();
  const int cc = info.cc_major * 10 + info.cc_minor;
  std::string list;
  for (const std::string& arch : compiled_archs()) {
    list += (list.empty() ? "" : ", ") + arch;
    const bool arch_specific = !arch.empty() && (arch.back() == 'a' || arch.back() == 'f');
    const int code = std::stoi(arch);
    // "90a" machine code runs only on 9.0; plain "80" machine code runs on 8.x with x >= 0.
    if (arch_specific ? cc == code : (cc / 10 == code / 10 && cc >= code)) return;
  }
  throw Error(ErrorCode::UnsupportedArch,
              "device " + std::to_string(info.ordinal) + " (" + info.name + ") has compute capability " +
                  std::to_string(info.cc_major) + "." + std::to_string(info.cc_minor) +
                  ", but this build contains code only for sm_" + list +
                  " (rebuild with -DTILEGEMM_CUDA_ARCHS=...)");
}

}  // namespace tilegemm
