// The BSR operation of bench, check and tune (profiler/operation_profiler.hpp): block-sparse
// products Y = X W^T and Y = W X against cuSPARSE BSR_ALG1 and dense cuBLAS on W expanded.
#pragma once
#include <memory>

#include "profiler/operation_profiler.hpp"

namespace tilegemm {
namespace tools {

std::unique_ptr<OperationProfiler> make_bsr_profiler();

}  // namespace tools
}  // namespace tilegemm
