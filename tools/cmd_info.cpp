// tilegemm info: what this build contains, then the device and its peak rates.
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "core/cluster_capacity.hpp"
#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "profiler/peaks.hpp"
#include "profiler/report.hpp"
#include "tilegemm/device.hpp"

namespace tilegemm {
namespace tools {

namespace {

void line(const char* label, const std::string& value) { std::printf("%-24s: %s\n", label, value.c_str()); }

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string tensor_peak(const DeviceInfo& d, int flop_per_clk_per_sm) {
  if (flop_per_clk_per_sm == 0)
    return "n/a (no tensor-core rate known for compute capability " + std::to_string(d.cc_major) + "." +
           std::to_string(d.cc_minor) + ")";
  return fmt("%.1f TFLOP/s", peak_tflops(d, flop_per_clk_per_sm)) + " (tensor cores, dense, at max clock)";
}

// Device-to-device copy bandwidth: the best of 10 copies of 1 GiB, counting bytes read and written
// (the practical ceiling of a streaming kernel; docs/benchmarking.md).
double measured_copy_gbs() {
  const size_t bytes = size_t(1) << 30;
  DeviceBuffer<char> src(bytes), dst(bytes);
  TILEGEMM_CUDA_CHECK(cudaMemset(src.get(), 1, bytes));
  cudaEvent_t start = nullptr, stop = nullptr;
  TILEGEMM_CUDA_CHECK(cudaEventCreate(&start));
  TILEGEMM_CUDA_CHECK(cudaEventCreate(&stop));
  float best_ms = 1e30f;
  for (int i = 0; i < 10; ++i) {
    TILEGEMM_CUDA_CHECK(cudaEventRecord(start));
    TILEGEMM_CUDA_CHECK(cudaMemcpy(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice));
    TILEGEMM_CUDA_CHECK(cudaEventRecord(stop));
    TILEGEMM_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    TILEGEMM_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (i > 0 && ms < best_ms) best_ms = ms;  // the first copy warms up
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return 2.0 * static_cast<double>(bytes) / (best_ms * 1e-3) / 1e9;
}

void run_info() {
  // The build first: it is useful even on a machine without a GPU.
  const BuildInfo b = build_info();
  std::string archs;
  for (const auto& a : b.archs) archs += (archs.empty() ? "sm_" : ", sm_") + a;
  line("tilegemm version", b.version + " (" + b.build_type + ")");
  line("build architectures", archs);
  line("compilers", b.cxx_compiler + ", " + b.cuda_compiler);
  const DeviceInfo d = current_device_info();  // throws NoDevice with a clear message
  line(("device " + std::to_string(d.ordinal)).c_str(), d.name);
  line("compute capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor));
  line("SMs", std::to_string(d.sm_count));
  line("max SM clock", fmt("%.0f MHz", d.sm_clock_khz / 1e3));
  char mem[160];
  std::snprintf(mem, sizeof mem, "%.1f GiB, %.0f MHz, %d-bit, ~%.0f GB/s", d.global_mem_bytes / 1073741824.0,
                d.mem_clock_khz / 1e3, d.mem_bus_width_bits, d.mem_bandwidth_gbs());
  line("memory", mem);
  line("memory copy (measured)", fmt("%.0f GB/s", measured_copy_gbs()) +
                                     " (device-to-device cudaMemcpy of 1 GiB, bytes read + written)");
  line("L2", fmt("%.1f MiB", d.l2_bytes / 1048576.0));
  line("smem per block (opt-in)", std::to_string(d.smem_per_block_optin / 1024) + " KiB");
  std::string clusters;
  for (int size : {2, 4, 8})
    clusters += (size > 2 ? ", of " : "of ") + std::to_string(size) + ": " +
                std::to_string(detail::whole_sm_clusters_at_once(size, d.sm_count, d.cc_major, d.smem_per_block_optin));
  line("clusters at once", clusters + " (each block a whole SM)");
  line("FP32 peak", fmt("%.1f TFLOP/s", d.fp32_peak_tflops()) + " (CUDA cores, at max clock)");
  const TensorRates rates = tensor_flop_per_clk_per_sm(d.cc_major, d.cc_minor);
  line("TF32 peak", tensor_peak(d, rates.tf32));
  line("BF16 peak", tensor_peak(d, rates.bf16));
  line("CUDA driver / runtime", cuda_version_text(d.driver_version) + " / " + cuda_version_text(d.runtime_version));
  require_supported_device();
}

}  // namespace

void add_info_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("info", "Show the device, its peak rates and this build's architectures");
  cmd->callback(run_info);
}

}  // namespace tools
}  // namespace tilegemm
