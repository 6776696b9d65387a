// The fused epilogue's launch parameters (tilegemm::Epilogue's bias and activation on a kernel's C),
// plain data that host code fills and kernels read (fused_epilogue.cuh applies them). Compiles with
// NVRTC and with a host compiler.
#pragma once
#include "kernels/common/host_device.hpp"

namespace tilegemm {
namespace kernels {

// tilegemm::Activation's and tilegemm::BiasKind's values.
enum EpilogueActivation : int { kActNone = 0, kActRelu, kActGeluTanh, kActGeluErf, kActSilu };
enum EpilogueBias : int { kBiasNone = 0, kBiasRow, kBiasColumn };

struct FusedEpilogue {
  const void* bias;  // bias_kind kBiasRow: one value per row of the kernel's C; kBiasColumn: per column
  int bias_kind, activation;
  bool bias_f32;  // F32 values, else the kernel's output type
  TILEGEMM_HOST_DEVICE bool plain() const { return bias_kind == kBiasNone && activation == kActNone; }
};

}  // namespace kernels
}  // namespace tilegemm
