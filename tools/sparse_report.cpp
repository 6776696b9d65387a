#include "sparse_report.hpp"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tilegemm/error.hpp"

namespace tilegemm {
namespace tools {

using nlohmann::json;

namespace {

template <typename T>
json or_null(bool have, T v) {
  return have ? json(v) : json(nullptr);
}

std::string block_text(const SparseProblem& p) {
  return std::to_string(p.block_rows) + "x" + std::to_string(p.block_cols);
}

}  // namespace

void set_speedups(std::vector<SparseRow>& rows) {
  double dense_ms = 0, sparse_ms = 0;
  for (const SparseRow& r : rows) {
    if (!r.ok()) continue;
    if (r.dense_baseline) dense_ms = r.t.median_ms;
    if (r.sparse_baseline) sparse_ms = r.t.median_ms;
  }
  for (SparseRow& r : rows) {
    r.vs_cublas.reset();
    r.vs_cusparse.reset();
    if (!r.ok() || r.t.median_ms <= 0) continue;
    if (dense_ms > 0) r.vs_cublas = dense_ms / r.t.median_ms;
    if (sparse_ms > 0) r.vs_cusparse = sparse_ms / r.t.median_ms;
  }
}

std::string sparse_table(const std::vector<SparseRow>& rows) {
  if (rows.empty()) return "";
  const SparseRow& f = rows.front();
  const SparseProblem& p = f.problem;
  std::ostringstream out;
  char line[512];
  std::snprintf(line, sizeof line,
                "\n%s m=%lld k=%lld n=%lld, block %s, sparsity %.4g (achieved %.4f: nnzb %lld of %lld, longest "
                "block row %lld), rows %s, %s\n",
                op_name(p.op).c_str(), static_cast<long long>(p.m), static_cast<long long>(p.k),
                static_cast<long long>(p.n), block_text(p).c_str(), p.sparsity, f.achieved_sparsity,
                static_cast<long long>(f.nnzb), static_cast<long long>(p.total_blocks()),
                static_cast<long long>(f.max_row_blocks), rows_name(p.rows).c_str(), f.dtype.c_str());
  out << line;
  std::snprintf(line, sizeof line, "  %-14s %10s %10s %10s %8s %11s %9s %10s\n", "kernel", "median ms", "min ms",
                "max ms", "TFLOP/s", "vs cuSPARSE", "vs cuBLAS", "max |err|");
  out << line;
  auto ratio = [](const std::optional<double>& v) {
    char b[32];
    if (v) std::snprintf(b, sizeof b, "%.3fx", *v);
    else std::snprintf(b, sizeof b, "-");
    return std::string(b);
  };
  for (const SparseRow& r : rows) {
    if (!r.ok()) {
      std::snprintf(line, sizeof line, "  %-14s %s\n", r.kernel.c_str(), r.status.c_str());
      out << line;
      continue;
    }
    char err[32];
    if (r.max_err) std::snprintf(err, sizeof err, "%.2g", *r.max_err);
    else std::snprintf(err, sizeof err, "ref");
    std::snprintf(line, sizeof line, "  %-14s %10.4f %10.4f %10.4f %8.3f %11s %9s %10s\n", r.kernel.c_str(),
                  r.t.median_ms, r.t.min_ms, r.t.max_ms, r.tflops, ratio(r.vs_cusparse).c_str(),
                  ratio(r.vs_cublas).c_str(), err);
    out << line;
  }
  return out.str();
}

std::string sparse_csv_header() {
  return "device,op,m,n,k,block_rows,block_cols,sparsity,achieved_sparsity,nnzb,max_row_blocks,rows,dtype,kernel,"
         "status,median_ms,min_ms,max_ms,reps,useful_tflops,speedup_vs_cusparse,speedup_vs_cublas,pct_fp32_peak,"
         "max_abs_err,tolerance,note,timing";
}

void write_sparse_csv(const std::string& path, const std::vector<SparseRow>& rows, const std::string& device_name,
                      const char* what) {
  std::ostringstream f;
  f.precision(10);
  f << sparse_csv_header() << '\n';
  // Cells without a meaning for the row (a skipped kernel's time, the reference's error) are left empty.
  auto cell = [&f](bool have, double v) {
    f << ',';
    if (have) f << v;
  };
  for (const SparseRow& r : rows) {
    const SparseProblem& p = r.problem;
    f << csv_quoted(device_name) << ',' << op_name(p.op) << ',' << p.m << ',' << p.n << ',' << p.k << ','
      << p.block_rows << ',' << p.block_cols << ',' << p.sparsity << ',' << r.achieved_sparsity << ',' << r.nnzb
      << ',' << r.max_row_blocks << ',' << rows_name(p.rows) << ',' << r.dtype << ',' << csv_quoted(r.kernel) << ','
      << csv_quoted(r.status);
    cell(r.ok(), r.t.median_ms);
    cell(r.ok(), r.t.min_ms);
    cell(r.ok(), r.t.max_ms);
    cell(r.ok(), r.t.reps);
    cell(r.ok(), r.tflops);
    cell(r.ok() && r.vs_cusparse.has_value(), r.vs_cusparse.value_or(0));
    cell(r.ok() && r.vs_cublas.has_value(), r.vs_cublas.value_or(0));
    cell(r.ok(), r.peak_pct);
    cell(r.max_err.has_value(), r.max_err.value_or(0));
    cell(true, r.tol);
    f << ',' << csv_quoted(r.note) << ',' << (r.ok() ? timing_csv_text(r.t.graph_batch) : std::string()) << '\n';
  }
  write_text_file(path, f.str(), what);
}

json sparse_bench_json(const RunInfo& run, const std::vector<SparseRow>& rows) {
  json header = bench_header_json(run);
  header["tool"] = "tilegemm bench --sparse";
  json& method = header["method"];
  method["baseline"] = {
      {"dense", std::string(kDenseBaselineLabel) +
                    ": cuBLAS cublasGemmEx, CUBLAS_COMPUTE_32F_PEDANTIC, on W expanded to dense (bsr_to_dense)"},
      {"sparse", std::string(kSparseBaselineLabel) +
                     ": cusparseSpMM with CUSPARSE_SPMM_BSR_ALG1 on the same BSR arrays (row-major blocks, "
                     "32-bit indices); descriptors, buffer-size query, workspace and preprocess outside the "
                     "timed runs; each row's note names the dense formulation"}};
  method["verification"] = "max |Y - Y_cublas-dense| <= tolerance before timing";
  method["useful_flops"] = "2 * M * nnzb * R * C, M = m for xwt, n for wx";
  method["reduction_max_flops"] = kReductionMaxFlops;
  method["data"] = "W from generate_bsr (values uniform in [-1, 1), never zero), X uniform in [-1, 1); both "
                   "deterministic per (--seed, problem)";
  json out_rows = json::array();
  for (const SparseRow& r : rows) {
    const SparseProblem& p = r.problem;
    out_rows.push_back({
        {"op", op_name(p.op)},
        {"m", p.m},
        {"n", p.n},
        {"k", p.k},
        {"block_rows", p.block_rows},
        {"block_cols", p.block_cols},
        {"sparsity", p.sparsity},
        {"achieved_sparsity", r.achieved_sparsity},
        {"nnzb", r.nnzb},
        {"total_blocks", p.total_blocks()},
        {"max_row_blocks", r.max_row_blocks},
        {"rows", rows_name(p.rows)},
        {"dtype", r.dtype},
        {"kernel", r.kernel},
        {"baseline", r.dense_baseline ? json("dense") : r.sparse_baseline ? json("sparse") : json(nullptr)},
        {"status", r.status},
        {"median_ms", or_null(r.ok(), r.t.median_ms)},
        {"min_ms", or_null(r.ok(), r.t.min_ms)},
        {"max_ms", or_null(r.ok(), r.t.max_ms)},
        {"reps", or_null(r.ok(), r.t.reps)},
        {"useful_tflops", or_null(r.ok(), r.tflops)},
        {"speedup_vs_cusparse", or_null(r.ok() && r.vs_cusparse.has_value(), r.vs_cusparse.value_or(0))},
        {"speedup_vs_cublas", or_null(r.ok() && r.vs_cublas.has_value(), r.vs_cublas.value_or(0))},
        {"pct_fp32_peak", or_null(r.ok(), r.peak_pct)},
        {"max_abs_err", or_null(r.max_err.has_value(), r.max_err.value_or(0))},
        {"tolerance", r.tol},
        {"note", r.note},
    });
  }
  return {{"header", header}, {"rows", out_rows}};
}

void write_sparse_json(const std::string& path, const RunInfo& run, const std::vector<SparseRow>& rows,
                       const char* what) {
  write_text_file(path, sparse_bench_json(run, rows).dump(2) + "\n", what);
}

}  // namespace tools
}  // namespace tilegemm
