// Public vocabulary types: layouts, transposes, dtypes and kernel choices.
#pragma once
#include <cstdint>
#include <string>

namespace tilegemm {

// Storage order of every matrix in one call (BLAS-style: one layout for A, B and C).
enum class Layout { RowMajor, ColMajor };

// op(X) = X (N) or X transposed (T).
enum class Op { N, T };

// Element type of a matrix in memory. F32 is implemented; the others are refused by every kernel
// family's can_implement with the reason, until the tensor-core families arrive (docs/api.md). TF32 is
// a compute type (FP32 storage, 10-bit mantissa products), listed so that a math descriptor can name it.
enum class DType : int { F32 = 0, TF32 = 1, F16 = 2, BF16 = 3 };
inline constexpr int kNumDTypes = 4;
// Bytes of one element in memory (TF32 is stored as FP32: 4).
constexpr int dtype_bytes(DType t) { return t == DType::F16 || t == DType::BF16 ? 2 : 4; }

// Dense kernels, numbered by ladder level (docs/ladder.md). Auto lets dispatch choose.
enum class Kernel : int {
  Auto = 0,
  Naive = 1,           // 01: one thread per C element
  Coalesced = 2,       // 02: 1-D blocks, consecutive threads along a row of C
  SharedTiled = 3,     // 03: 16x16 shared-memory tiles
  RegisterTiled = 4,   // 04: 128x64 block tile, 8x4 outputs per thread
  Vectorized = 5,      // 05: 128-bit loads, transposed A in shared memory, double buffering
  WarpTiled = 6,       // 06: warp tiles, multi-stage cp.async pipeline, Hilbert rasterization
  MmaTf32x3 = 7,       // 07: level 6's tiles on tensor cores, FP32 accuracy by 3xTF32 split operands
};
inline constexpr int kNumLadderLevels = 7;

// How Kernel::Auto may compute an FP32 product (GemmOptions::math).
enum class Math : int {
  // CUDA-core FFMA or tensor-core 3xTF32 (level 7, and on Hopper level 8's wgmma-3xtf32), whichever
  // the chooser predicts faster. Both are FP32-class: 3xTF32 leaves ~2^-22 relative per product
  // against FFMA's 2^-24, and its error over K measured within 2x of level 6's (docs/ladder.md,
  // docs/api.md); where an operand is Inf, NaN or nonzero below
  // 2^-112, or a sum is not finite, the tensor-core kernels recompute those outputs with FFMA, so
  // results keep FP32's classes and accuracy over the whole exponent range (docs/api.md).
  Fp32 = 0,
  // CUDA-core FFMA only (IEEE FP32 fused multiply-adds, the math of cuBLAS's default mode).
  FfmaOnly = 1,
  // TF32 tensor cores allowed (cuBLAS's CUBLAS_COMPUTE_32F_FAST_TF32, torch's "high" precision): one
  // product of operands cut to TF32's 10-bit mantissa (truncated, ~2^-10 relative per product),
  // FP32 accumulation; Auto picks level 8's wgmma-tf32 on Hopper or any of Fp32's families where
  // they are faster. Never the default: only a caller that names it gets it.
  Tf32 = 2,
};

// Order in which thread blocks visit output tiles (levels 4-6).
enum class Raster : int { RowMajor = 0, Grouped = 1, Hilbert = 2 };

std::string to_string(Layout v);
std::string to_string(Op v);
std::string to_string(Kernel v);
std::string to_string(Raster v);
std::string to_string(Math v);
std::string to_string(DType v);  // "f32", "tf32", "f16", "bf16"
// Parsers accept the names printed by to_string (case-insensitive) and, for kernels, the level number.
// They throw tilegemm::Error(InvalidArgument) naming `what` on an unknown value.
Layout parse_layout(const std::string& s, const char* what = "layout");
Op parse_op(const std::string& s, const char* what = "op");
Kernel parse_kernel(const std::string& s, const char* what = "kernel");
Raster parse_raster(const std::string& s, const char* what = "raster");
Math parse_math(const std::string& s, const char* what = "math");
DType parse_dtype(const std::string& s, const char* what = "dtype");  // also "fp32", "fp16", "half", "float"

}  // namespace tilegemm
