#include "peaks.hpp"

namespace tilegemm {
namespace tools {

TensorRates tensor_flop_per_clk_per_sm(int cc_major, int cc_minor) {
  // Per-SM dense rates from the architecture whitepapers (the quoted TFLOP/s divided by SMs x clock).
  // GeForce parts of 8.6/8.9 run TF32 and FP32-accumulate half as fast as these (the pro-card rates).
  if (cc_major == 9) return {2048, 4096};                        // Hopper H100/H200
  if (cc_major == 8 && cc_minor == 0) return {1024, 2048};       // A100
  if (cc_major == 8 && (cc_minor == 6 || cc_minor == 9)) return {512, 1024};  // GA10x, AD10x
  return {};
}

double peak_tflops(const DeviceInfo& d, int flop_per_clk_per_sm) {
  return static_cast<double>(flop_per_clk_per_sm) * d.sm_count * (d.sm_clock_khz * 1e3) / 1e12;
}

}  // namespace tools
}  // namespace tilegemm
