// What `tilegemm bench --sparse` reports: one SparseRow per (problem, contender), printed as a table
// and written as CSV and JSON (the dense bench's header, with the sparse method). Pure host code.
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report.hpp"
#include "sparse_options.hpp"

namespace tilegemm {
namespace tools {

// Contender labels of the two baselines.
inline constexpr const char* kDenseBaselineLabel = "cublas-dense";  // cuBLAS FP32 on W expanded to dense
inline constexpr const char* kSparseBaselineLabel = "cusparse-bsr";  // cusparseSpMM, CUSPARSE_SPMM_BSR_ALG1

struct SparseRow {
  SparseProblem problem;
  int64_t nnzb = 0;               // stored blocks of the generated W
  double achieved_sparsity = 0;   // 1 - nnzb / total blocks
  int64_t max_row_blocks = 0;     // the longest block row (skew)
  std::string dtype = "fp32";
  std::string kernel;
  std::string status;  // "ok", "FAILED: ...", "skipped: ..."
  std::string note;    // how the contender ran the product (cuSPARSE: its formulation), may be empty
  bool dense_baseline = false, sparse_baseline = false;
  Timing t;                // meaningful when ok()
  double tflops = 0;       // useful TFLOP/s: 2 * M * nnzb * R * C / median
  double peak_pct = 0;     // tflops as % of the FP32 peak
  std::optional<double> vs_cusparse, vs_cublas;  // baseline median / this median, same run
  std::optional<double> max_err;  // max |Y - Y_cuBLAS|; none for the reference itself and skipped rows
  double tol = 0;
  bool ok() const { return status == "ok"; }
};

// Fills vs_cusparse / vs_cublas of every ok row of one problem from the baselines' medians there.
void set_speedups(std::vector<SparseRow>& rows_of_one_problem);

// The table of one problem, as printed after it is measured.
std::string sparse_table(const std::vector<SparseRow>& rows_of_one_problem);

std::string sparse_csv_header();
// Rewrites `path` with the header and every row. `what` names the option in errors.
void write_sparse_csv(const std::string& path, const std::vector<SparseRow>& rows, const std::string& device_name,
                      const char* what = "--csv");

nlohmann::json sparse_bench_json(const RunInfo& run, const std::vector<SparseRow>& rows);
void write_sparse_json(const std::string& path, const RunInfo& run, const std::vector<SparseRow>& rows,
                       const char* what = "--json");

}  // namespace tools
}  // namespace tilegemm
