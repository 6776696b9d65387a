// How `tilegemm bench gemm` reports its rows (profiler/report.hpp): a Row's problem is a Problem.
#pragma once
#include "problem.hpp"
#include "profiler/report.hpp"

namespace tilegemm {
namespace tools {

const ReportFormat& gemm_report();
// The row's problem; the row must be a GEMM row (gemm_report().describes(r)).
const Problem& gemm_problem(const Row& r);

}  // namespace tools
}  // namespace tilegemm
