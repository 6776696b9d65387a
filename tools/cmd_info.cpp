// tilegemm info: the device, its peaks, and what this build contains.
#include <cstdio>

#include "commands.hpp"
#include "tilegemm/device.hpp"

namespace tilegemm {
namespace tools {

void add_info_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("info", "Show the device, its peak rates and this build's architectures");
  cmd->callback([] {
    std::string archs;
    for (const auto& a : compiled_archs()) archs += (archs.empty() ? "sm_" : ", sm_") + a;
    std::printf("build architectures : %s\n", archs.c_str());
    const DeviceInfo d = current_device_info();  // throws NoDevice with a clear message
    std::printf("device %d            : %s\n", d.ordinal, d.name.c_str());
    std::printf("compute capability  : %d.%d\n", d.cc_major, d.cc_minor);
    std::printf("SMs                 : %d\n", d.sm_count);
    std::printf("max SM clock        : %.0f MHz\n", d.sm_clock_khz / 1e3);
    std::printf("memory              : %.1f GiB, %.0f MHz, %d-bit, ~%.0f GB/s\n",
                d.global_mem_bytes / 1073741824.0, d.mem_clock_khz / 1e3, d.mem_bus_width_bits,
                d.mem_bandwidth_gbs());
    std::printf("L2                  : %.1f MiB\n", d.l2_bytes / 1048576.0);
    std::printf("smem per block (opt-in): %zu KiB\n", d.smem_per_block_optin / 1024);
    std::printf("FP32 peak (CUDA cores): %.1f TFLOP/s\n", d.fp32_peak_tflops());
    std::printf("driver / runtime    : %d / %d\n", d.driver_version, d.runtime_version);
    require_supported_device();
  });
}

}  // namespace tools
}  // namespace tilegemm
