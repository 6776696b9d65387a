// The extra tiled schedules measured beside the defaults (kBsrSchedules[kFirstBsrCandidate ..],
// perf notes B7, B10), compiled for xwt with 16-byte copies only to keep the build short; the tuner
// and BsrOptions::config run them (and any other schedule) elsewhere through run-time compilation.
#include "sparse/launch_tiled.cuh"

namespace tilegemm {
namespace detail {

BsrTiledKernel candidate_kernel(int index, bool xwt, bool vec) {
  return kernel_in<kFirstBsrCandidate>(index, xwt, vec,
                                       std::make_integer_sequence<int, kNumBsrSchedules - kFirstBsrCandidate>{});
}

}  // namespace detail
}  // namespace tilegemm
