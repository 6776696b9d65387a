// The kernel headers run-time compilation needs, embedded into the library at build time
// (cmake/embed_sources.cmake; the list is TILEGEMM_JIT_SOURCES in CMakeLists.txt).
#pragma once

namespace tilegemm {
namespace detail {

struct EmbeddedSource {
  const char* path;  // below src/, as the kernel headers include each other: "kernels/gemm/common.cuh"
  const char* text;
};
extern const EmbeddedSource kJitSources[];
extern const int kNumJitSources;

}  // namespace detail
}  // namespace tilegemm
