// The operations of bench, check and tune: one line each (profiler/operation_profiler.hpp). The first
// is the default operation.
#include "bsr/bsr_profiler.hpp"
#include "gemm/gemm_profiler.hpp"
#include "profiler/operation_profiler.hpp"

namespace tilegemm {
namespace tools {

const std::vector<std::unique_ptr<OperationProfiler>>& profilers() {
  static const std::vector<std::unique_ptr<OperationProfiler>> list = [] {
    std::vector<std::unique_ptr<OperationProfiler>> l;
    l.push_back(make_gemm_profiler());
    l.push_back(make_bsr_profiler());
    return l;
  }();
  return list;
}

}  // namespace tools
}  // namespace tilegemm
