// The shim's environment variables, read once per process (docs/blas.md):
//   TILEGEMM_BLAS_MIN_FLOPS  products below this many flops (2*M*N*K) on host memory run on the CPU
//                            BLAS (default kDefaultMinFlops, measured: docs/blas.md)
//   TILEGEMM_BLAS_QUIET=1    no warning when the GPU cannot be used and the CPU BLAS takes over
//   TILEGEMM_BLAS_LOG=1      one line per call on stderr: the product and where it ran
//   TILEGEMM_BLAS_CPU_LIB    the CPU BLAS to use (cpu_blas.hpp)
//   TILEGEMM_BLAS_CHUNK_BYTES  bytes copied per pipeline chunk on the staged path (default
//                            kDefaultChunkBytes); small values make small products pipeline (tests)
//   TILEGEMM_BLAS_MATH       fp32 (default: CUDA-core FFMA or 3xTF32 tensor cores, FP32 accuracy),
//                            ffma (CUDA cores only) or tf32 (also TF32 tensor cores: 10-bit
//                            mantissas, below the reference BLAS's accuracy): the products'
//                            GemmOptions::math
#pragma once
#include <string>

namespace tilegemm {
namespace blas {

// 2*M*N*K below which the CPU wins on the reference machine: an H100 host with 16 cores running
// Debian's OpenBLAS 0.3.21 wins at 128^3 (4.2e6 flops) and loses at 192^3 (1.4e7), measured
// 2026-11-23 (docs/blas.md).
inline constexpr double kDefaultMinFlops = 1.0e7;

// Large enough for each chunk's product to run near full speed, small enough that the first chunk's
// copies (which nothing overlaps) stay short: 64 MB is a few ms of PCIe traffic.
inline constexpr double kDefaultChunkBytes = 64.0 * (1 << 20);

struct Settings {
  double min_flops = kDefaultMinFlops;
  double chunk_bytes = kDefaultChunkBytes;
  bool quiet = false;
  bool log = false;
  // TILEGEMM_BLAS_MATH, as tilegemm::Math's values (this library stays free of the device library's
  // headers, for its tests): gpu_sgemm.cpp maps it.
  enum class Math { Fp32, Ffma, Tf32 } math = Math::Fp32;
  std::string problem;  // a malformed variable, reported once at the first call
};

const Settings& settings();

// Parses a count ("1e8", "250000000"); false when malformed or negative.
bool parse_count(const char* text, double* out);

}  // namespace blas
}  // namespace tilegemm
