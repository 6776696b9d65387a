#include "gemm_report.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tilegemm {
namespace tools {

using nlohmann::json;

const Problem& gemm_problem(const Row& r) { return std::any_cast<const Problem&>(r.what); }

namespace {

std::string trans_of(const Problem& p) { return to_string(p.op_a) + to_string(p.op_b); }
// The --ld choice: "+P" (padding, "+0" when tight) or the absolute leading dimension.
std::string ld_of(const Problem& p) {
  return p.ld_abs > 0 ? std::to_string(p.ld_abs) : "+" + std::to_string(p.ld_pad);
}

class GemmReport final : public ReportFormat {
 public:
  bool describes(const Row& r) const override { return std::any_cast<Problem>(&r.what) != nullptr; }

  std::string table(const std::vector<Row>& rows) const override {
    const Problem& p = gemm_problem(rows.front());
    std::ostringstream out;
    char line[512];
    std::snprintf(line, sizeof line, "\n%s %s\n", p.str().c_str(), rows.front().dtype.c_str());
    out << line;
    std::snprintf(line, sizeof line, "  %-48s %10s %10s %10s %8s %8s %7s\n", "kernel", "median ms", "min ms",
                  "max ms", "TFLOP/s", "vs cuBLAS", "% peak");
    out << line;
    for (const Row& r : rows) {
      if (!r.ok()) {
        std::snprintf(line, sizeof line, "  %-48s %s\n", r.kernel.c_str(), r.status.c_str());
        out << line;
        continue;
      }
      std::snprintf(line, sizeof line, "  %-48s %10.4f %10.4f %10.4f %8.2f %8.3fx %6.1f%%\n", r.kernel.c_str(),
                    r.t.median_ms, r.t.min_ms, r.t.max_ms, r.tflops, r.ratio.value_or(0), r.peak_pct);
      out << line;
      if (r.kernel == "auto" && !r.config.empty()) {
        std::snprintf(line, sizeof line, "  %-48s %s\n", "  (auto ran)", r.config.c_str());
        out << line;
      }
    }
    return out.str();
  }

  std::vector<CsvColumn<Row>> csv_columns() const override {
    auto g = [](const Row& r) -> const Problem& { return gemm_problem(r); };
    std::vector<CsvColumn<Row>> c = {
        {"m", [g](const Row& r) { return std::to_string(g(r).m); }},
        {"n", [g](const Row& r) { return std::to_string(g(r).n); }},
        {"k", [g](const Row& r) { return std::to_string(g(r).k); }},
        {"batch", [g](const Row& r) { return std::to_string(g(r).batch); }},
        {"layout", [g](const Row& r) { return to_string(g(r).layout); }},
        {"trans", [g](const Row& r) { return trans_of(g(r)); }},
        {"ld", [g](const Row& r) { return csv_quoted(ld_of(g(r))); }},
        {"offset", [g](const Row& r) { return std::to_string(g(r).offset); }},
        {"epilogue", [g](const Row& r) { return g(r).epilogue_name(); }},
        {"dtype", [](const Row& r) { return r.dtype; }},
        {"kernel", [](const Row& r) { return csv_quoted(r.kernel); }},
        {"config", [](const Row& r) { return csv_quoted(r.config); }},
        {"status", [](const Row& r) { return csv_quoted(r.status); }}};
    for (CsvColumn<Row>& col : measurement_columns()) c.push_back(std::move(col));
    c.push_back({"tflops", [](const Row& r) { return number_if(r.ok(), r.tflops); }});
    c.push_back({"ratio_vs_cublas",
                 [](const Row& r) { return number_if(r.ok() && r.ratio.has_value(), r.ratio.value_or(0)); }});
    for (CsvColumn<Row>& col : error_columns()) c.push_back(std::move(col));
    return c;
  }

  json row_json(const Row& r) const override {
    const Problem& p = gemm_problem(r);
    json out = {{"m", p.m}, {"n", p.n}, {"k", p.k}, {"batch", p.batch}, {"layout", to_string(p.layout)}, {"trans", trans_of(p)},
                {"ld", ld_of(p)}, {"offset", p.offset}, {"epilogue", p.epilogue_name()}, {"config", r.config},
                {"baseline", r.baseline}};
    add_measurement_json(out, r);
    out["tflops"] = number_or_null(r.ok(), r.tflops);
    out["ratio_vs_cublas"] = number_or_null(r.ok() && r.ratio.has_value(), r.ratio.value_or(0));
    return out;
  }

  void describe_method(json& header) const override {
    header["method"]["baseline"] = "cuBLAS cublasGemmEx, CUBLAS_COMPUTE_32F_PEDANTIC";
    header["method"]["verification"] = "max |C - cuBLAS| <= tolerance before timing";
  }
};

}  // namespace

const ReportFormat& gemm_report() {
  static const GemmReport format;
  return format;
}

}  // namespace tools
}  // namespace tilegemm
