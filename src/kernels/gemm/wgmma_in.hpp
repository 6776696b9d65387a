// The operand kinds of ladder level 8 (08_wgmma_tma.cuh), for the kernel, the launch and NVRTC's
// name expressions: 16-bit elements read by wgmma from TMA's tiles, or FP32 elements that the
// consumers round to TF32 (one product) or split into TF32 big and small parts (3xTF32, FP32
// accuracy) on their way to wgmma. Includes nothing else: compiles with nvcc, NVRTC and host compilers.
#pragma once
#include "kernels/common/host_device.hpp"

namespace tilegemm {
namespace kernels {

enum class WgmmaIn : int { BF16 = 0, F16 = 1, TF32 = 2, TF32x3 = 3 };

// FP32 operands in memory (TF32 and 3xTF32), else 16-bit.
TILEGEMM_HOST_DEVICE constexpr bool wgmma_fp32_in(WgmmaIn in) { return in == WgmmaIn::TF32 || in == WgmmaIn::TF32x3; }
// A k step: one 128-byte line of each operand row (64 16-bit or 32 FP32 elements).
TILEGEMM_HOST_DEVICE constexpr int wgmma_bk(WgmmaIn in) { return wgmma_fp32_in(in) ? 32 : 64; }
// B's planes per stage: 3xTF32 loads B's TF32 big and small parts, the rest one tile.
TILEGEMM_HOST_DEVICE constexpr int wgmma_b_planes(WgmmaIn in) { return in == WgmmaIn::TF32x3 ? 2 : 1; }
// A block tile's rows (64, 128 or 192) are one consumer warpgroup's 64 each, beside the producer's.
TILEGEMM_HOST_DEVICE constexpr int wgmma_consumers(int bm) { return bm / 64; }
TILEGEMM_HOST_DEVICE constexpr int wgmma_threads(int bm) { return 128 * (1 + wgmma_consumers(bm)); }
// A 16-bit B tile stored MN-major arrives in TMA boxes of 64 columns, and each block of a cluster
// loads whole boxes of its share: its bn / cluster columns a multiple of 64.
TILEGEMM_HOST_DEVICE constexpr bool wgmma_mn_major_b_fits(int bn, int cluster) { return (bn / cluster) % 64 == 0; }
// TMA stores write boxes of 128-byte lines: a tile's rows of C (bn elements of c_bytes) must fill one
// (32 columns of 16-bit C are half a line). The kernel compiles its TMA-store path only where they do;
// the host asks for it only then (wgmma_tma_stores_c).
TILEGEMM_HOST_DEVICE constexpr bool wgmma_tma_stores_fit(int bn, int c_bytes) { return bn * c_bytes >= 128; }

}  // namespace kernels
}  // namespace tilegemm
