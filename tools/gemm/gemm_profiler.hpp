// The GEMM operation of bench, check and tune (profiler/operation_profiler.hpp): dense products
// C = op(A) op(B) against cuBLAS FP32.
#pragma once
#include <memory>

#include "profiler/operation_profiler.hpp"

namespace tilegemm {
namespace tools {

std::unique_ptr<OperationProfiler> make_gemm_profiler();

}  // namespace tools
}  // namespace tilegemm
