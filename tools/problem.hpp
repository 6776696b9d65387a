// The measuring vocabulary of the tilegemm command: one GEMM problem and one timing result. Pure host
// code (no CUDA headers), so the CPU tests can use it.
#pragma once
#include <cstdint>
#include <string>

#include "tilegemm/types.hpp"

namespace tilegemm {
namespace tools {

struct Problem {
  Layout layout = Layout::RowMajor;
  Op op_a = Op::N, op_b = Op::N;
  int64_t m = 0, n = 0, k = 0;
  int64_t lda() const;  // tight leading dimensions for the layout
  int64_t ldb() const;
  int64_t ldc() const;
  int64_t size_a() const;  // elements
  int64_t size_b() const;
  int64_t size_c() const;
  double flops() const { return 2.0 * m * n * k; }
  std::string dims() const;  // "MxNxK"
  std::string str() const;   // "MxNxK row NN"
};

// The timing method (docs/benchmarking.md): kWarmupRuns untimed runs, then at least kMinReps timed runs
// and at least the requested minimum time, at most kMaxReps.
inline constexpr int kWarmupRuns = 1;
inline constexpr int kMinReps = 3;
inline constexpr int kMaxReps = 2000;

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int reps = 0;
};

}  // namespace tools
}  // namespace tilegemm
