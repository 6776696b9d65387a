// The timing method shared by `tilegemm bench` and the tuner (docs/benchmarking.md): kWarmupRuns
// untimed runs, then at least kMinReps timed runs and at least the requested minimum time, at most
// kMaxReps; the median is the number reported. Pure host code.
#pragma once

namespace tilegemm {
namespace detail {

inline constexpr int kWarmupRuns = 1;
inline constexpr int kMinReps = 3;
inline constexpr int kMaxReps = 2000;
// Graph mode: N launches captured into one CUDA graph, timed per graph launch. The bound keeps a
// graph's node count and a sample's duration sensible.
inline constexpr int kMaxGraphBatch = 10000;

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;  // per launch (in graph mode: graph time / graph_batch)
  int reps = 0;         // timed samples: launches, or in graph mode graph launches of graph_batch each
  int graph_batch = 0;  // 0: events around each launch; N: CUDA graphs of N back-to-back launches
};

}  // namespace detail
}  // namespace tilegemm
