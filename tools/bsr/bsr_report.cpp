#include "bsr_report.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tilegemm {
namespace tools {

using nlohmann::json;

const SparseCase& bsr_case(const Row& r) { return std::any_cast<const SparseCase&>(r.what); }

namespace {

std::string block_text(const SparseProblem& p) {
  return std::to_string(p.block_rows) + "x" + std::to_string(p.block_cols);
}

class BsrReport final : public ReportFormat {
 public:
  bool describes(const Row& r) const override { return std::any_cast<SparseCase>(&r.what) != nullptr; }

  std::string table(const std::vector<Row>& rows) const override {
    const SparseCase& f = bsr_case(rows.front());
    const SparseProblem& p = f.problem;
    std::ostringstream out;
    char line[512];
    std::snprintf(line, sizeof line,
                  "\n%s m=%lld k=%lld n=%lld, block %s, sparsity %.4g (achieved %.4f: nnzb %lld of %lld, longest "
                  "block row %lld), rows %s, %s\n",
                  op_name(p.op).c_str(), static_cast<long long>(p.m), static_cast<long long>(p.k),
                  static_cast<long long>(p.n), block_text(p).c_str(), p.sparsity, f.achieved_sparsity,
                  static_cast<long long>(f.nnzb), static_cast<long long>(p.total_blocks()),
                  static_cast<long long>(f.max_row_blocks), rows_name(p.rows).c_str(), rows.front().dtype.c_str());
    out << line;
    std::snprintf(line, sizeof line, "  %-14s %10s %10s %10s %8s %11s %9s %10s\n", "kernel", "median ms", "min ms",
                  "max ms", "TFLOP/s", "vs cuSPARSE", "vs cuBLAS", "max |err|");
    out << line;
    for (const Row& r : rows) {
      if (!r.ok()) {
        std::snprintf(line, sizeof line, "  %-14s %s\n", r.kernel.c_str(), r.status.c_str());
        out << line;
        continue;
      }
      char err[32];
      if (r.max_err) std::snprintf(err, sizeof err, "%.2g", *r.max_err);
      else std::snprintf(err, sizeof err, "ref");
      std::snprintf(line, sizeof line, "  %-14s %10.4f %10.4f %10.4f %8.3f %11s %9s %10s\n", r.kernel.c_str(),
                    r.t.median_ms, r.t.min_ms, r.t.max_ms, r.tflops, ratio_text(r.ratio).c_str(),
                    ratio_text(r.vs_reference).c_str(), err);
      out << line;
    }
    return out.str();
  }

  std::vector<CsvColumn<Row>> csv_columns() const override {
    auto p = [](const Row& r) -> const SparseProblem& { return bsr_case(r).problem; };
    std::vector<CsvColumn<Row>> c = {
        {"op", [p](const Row& r) { return op_name(p(r).op); }},
        {"m", [p](const Row& r) { return std::to_string(p(r).m); }},
        {"n", [p](const Row& r) { return std::to_string(p(r).n); }},
        {"k", [p](const Row& r) { return std::to_string(p(r).k); }},
        {"block_rows", [p](const Row& r) { return std::to_string(p(r).block_rows); }},
        {"block_cols", [p](const Row& r) { return std::to_string(p(r).block_cols); }},
        {"sparsity", [p](const Row& r) { return csv_number(p(r).sparsity); }},
        {"achieved_sparsity", [](const Row& r) { return csv_number(bsr_case(r).achieved_sparsity); }},
        {"nnzb", [](const Row& r) { return std::to_string(bsr_case(r).nnzb); }},
        {"max_row_blocks", [](const Row& r) { return std::to_string(bsr_case(r).max_row_blocks); }},
        {"rows", [p](const Row& r) { return rows_name(p(r).rows); }},
        {"dtype", [](const Row& r) { return r.dtype; }},
        {"kernel", [](const Row& r) { return csv_quoted(r.kernel); }},
        {"status", [](const Row& r) { return csv_quoted(r.status); }}};
    for (CsvColumn<Row>& col : measurement_columns()) c.push_back(std::move(col));
    c.push_back({"useful_tflops", [](const Row& r) { return number_if(r.ok(), r.tflops); }});
    c.push_back({"speedup_vs_cusparse",
                 [](const Row& r) { return number_if(r.ok() && r.ratio.has_value(), r.ratio.value_or(0)); }});
    c.push_back({"speedup_vs_cublas", [](const Row& r) {
                   return number_if(r.ok() && r.vs_reference.has_value(), r.vs_reference.value_or(0));
                 }});
    for (CsvColumn<Row>& col : error_columns()) c.push_back(std::move(col));
    c.push_back({"note", [](const Row& r) { return csv_quoted(r.note); }});
    return c;
  }

  json row_json(const Row& r) const override {
    const SparseCase& c = bsr_case(r);
    const SparseProblem& p = c.problem;
    json out = {{"op", op_name(p.op)},
                {"m", p.m},
                {"n", p.n},
                {"k", p.k},
                {"block_rows", p.block_rows},
                {"block_cols", p.block_cols},
                {"sparsity", p.sparsity},
                {"achieved_sparsity", c.achieved_sparsity},
                {"nnzb", c.nnzb},
                {"total_blocks", p.total_blocks()},
                {"max_row_blocks", c.max_row_blocks},
                {"rows", rows_name(p.rows)},
                {"config", r.config},
                {"baseline", r.reference ? json("dense") : r.baseline ? json("sparse") : json(nullptr)},
                {"note", r.note}};
    add_measurement_json(out, r);
    out["useful_tflops"] = number_or_null(r.ok(), r.tflops);
    out["speedup_vs_cusparse"] = number_or_null(r.ok() && r.ratio.has_value(), r.ratio.value_or(0));
    out["speedup_vs_cublas"] = number_or_null(r.ok() && r.vs_reference.has_value(), r.vs_reference.value_or(0));
    return out;
  }

  // Two baselines, useful FLOPs, the generated data.
  void describe_method(json& header) const override {
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
  }
};

}  // namespace

const ReportFormat& bsr_report() {
  static const BsrReport format;
  return format;
}

}  // namespace tools
}  // namespace tilegemm
