// Peak rates of a device from its SM count and maximum SM clock. The FP32 CUDA-core peak lives in the
// library (DeviceInfo::fp32_peak_tflops); the tensor-core peaks are here until they are needed there.
#pragma once
#include "tilegemm/device.hpp"

namespace tilegemm {
namespace tools {

// Dense tensor-core FLOP per clock per SM (one FMA = 2 FLOP); 0 where this table has no entry.
struct TensorRates {
  int tf32 = 0;
  int bf16 = 0;  // also FP16 with FP32 accumulation on data-center parts
};
TensorRates tensor_flop_per_clk_per_sm(int cc_major, int cc_minor);

// SMs x FLOP/clk/SM x maximum SM clock, in TFLOP/s; 0 when the rate is 0 (unknown).
double peak_tflops(const DeviceInfo& d, int flop_per_clk_per_sm);

}  // namespace tools
}  // namespace tilegemm
