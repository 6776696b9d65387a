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
// --graph-batch N: N launches captured into one CUDA graph, timed per graph launch (0 = one pair of
// events around every launch, the default). The bound keeps a graph's node count and a sample's
// duration sensible.
inline constexpr int kMaxGraphBatch = 10000;

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;  // per launch (in graph mode: graph time / graph_batch)
  int reps = 0;         // timed samples: launches, or in graph mode graph launches of graph_batch each
  int graph_batch = 0;  // 0: events around each launch; N: CUDA graphs of N back-to-back launches
};

// How a run times its contenders, for the header line, the JSON header and the CSV column:
// "events per launch" or "CUDA graph of N launches (per-launch time, warm L2 after the first)".
std::string timing_method_text(int graph_batch);
// The CSV `timing` cell: "events" or "graph:N".
std::string timing_csv_text(int graph_batch);

}  // namespace tools
}  // namespace tilegemm
