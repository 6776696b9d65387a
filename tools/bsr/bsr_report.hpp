// How `tilegemm bench bsr` reports its rows (profiler/report.hpp): a Row's problem is a SparseCase,
// and each problem has two baselines, dense cuBLAS on W expanded (the reference every other
// contender is verified against) and cuSPARSE (the vendor's sparse product, `ratio`).
#pragma once
#include <cstdint>

#include "bsr_options.hpp"
#include "profiler/report.hpp"

namespace tilegemm {
namespace tools {

// Contender labels of the two baselines of a BSR run.
inline constexpr const char* kDenseBaselineLabel = "cublas-dense";  // cuBLAS FP32 on W expanded to dense
inline constexpr const char* kSparseBaselineLabel = "cusparse-bsr";  // cusparseSpMM, CUSPARSE_SPMM_BSR_ALG1

// A BSR product as measured: the problem and the W generated for it.
struct SparseCase {
  SparseProblem problem;
  int64_t nnzb = 0;              // stored blocks of the generated W
  double achieved_sparsity = 0;  // 1 - nnzb / total blocks
  int64_t max_row_blocks = 0;    // the longest block row (skew)
};

const ReportFormat& bsr_report();
// The row's problem; the row must be a BSR row (bsr_report().describes(r)).
const SparseCase& bsr_case(const Row& r);

}  // namespace tools
}  // namespace tilegemm
