// Device queries used by the tools and the dispatch.
#pragma once
#include <string>
#include <vector>

namespace tilegemm {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int sm_clock_khz = 0;          // maximum SM clock
  int mem_clock_khz = 0;
  int mem_bus_width_bits = 0;
  size_t global_mem_bytes = 0;
  int l2_bytes = 0;
  size_t smem_per_block_optin = 0;
  int driver_version = 0, runtime_version = 0;
  // FP32 CUDA-core peak: SMs x 128 FMA/clk x 2 x max clock (Hopper/Ampere GA100: 64 FP32 lanes for
  // cc 8.0, 128 for 8.6+/9.0).
  double fp32_peak_tflops() const;
  double mem_bandwidth_gbs() const;  // from bus width and memory clock (DDR)
};

// Number of visible CUDA devices; 0 when there is none (never throws for "no device").
int device_count();
// Properties of the current device. Throws Error(NoDevice) when there is none.
DeviceInfo current_device_info();
// Architectures compiled into this build, e.g. {"90a"}.
std::vector<std::string> compiled_archs();
// Throws Error(NoDevice) or Error(UnsupportedArch) unless the current device can run this build.
void require_supported_device();

}  // namespace tilegemm
