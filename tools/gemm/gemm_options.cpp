#include "gemm_options.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "dense/matrix_extent.hpp"
#include "ops/registry.hpp"
#include "shapes.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace tools {

namespace fs = std::filesystem;

namespace {

void apply_dtype(std::vector<Problem>& problems, const DTypeChoice& d) {
  for (Problem& p : problems) p.dtype = d.dtype, p.math = d.math;
}
// The ladder's levels compute FP32 only: a 16-bit or TF32 run's default list is Auto alone.
std::string kernels_for(const DTypeChoice& d, const std::string& typed, const std::string& default_list) {
  return (d.dtype != DType::F32 || d.math == Math::Tf32) && typed == default_list ? "auto" : typed;
}

[[noreturn]] void invalid(const std::string& message) { throw Error(ErrorCode::InvalidArgument, message); }

// A count typed as at most 7 digits, within lo..hi; `shown` is the value as typed, for the messages.
int64_t parse_bounded_count(const std::string& digits, const std::string& shown, const char* what, int64_t lo,
                            int64_t hi, const std::string& expected) {
  if (digits.empty() || digits.size() > 7 || digits.find_first_not_of("0123456789") != std::string::npos)
    invalid(std::string(what) + ": malformed value '" + shown + "'" + expected);
  const int64_t v = std::stoll(digits);
  if (v < lo || v > hi) invalid(std::string(what) + ": value '" + shown + "' out of range" + expected);
  return v;
}

}  // namespace

// Shapes get the one layout and transpose pair of the run (but a preset's fixed ops stay), and the
// run's memory layout (--ld, --offset).
void apply_batch(std::vector<Problem>& problems, const std::string& batch, const char* what) {
  if (batch.empty()) return;
  const std::string expected = " (expected a batch count, 1 to " + std::to_string(kMaxBatch) + ")";
  const int64_t v = parse_bounded_count(batch, batch, what, 1, kMaxBatch, expected);
  for (Problem& p : problems) p.batch = v;
}

void apply_epilogues(std::vector<Problem>& problems, const std::string& list, const char* what) {
  if (list.empty()) return;
  const char* expected =
      " (expected none, or parts joined by '+': bias (per column of C), row-bias, and one of relu, gelu-tanh, "
      "gelu-erf, silu; e.g. bias+gelu-tanh; a comma list runs each)";
  std::vector<std::pair<BiasKind, Activation>> epilogues;
  std::stringstream items(list);
  std::string item;
  while (std::getline(items, item, ',')) {
    BiasKind bias = BiasKind::None;
    Activation act = Activation::None;
    if (to_lower(item) != "none") {
      std::stringstream parts(item);
      std::string part;
      int parts_seen = 0;
      while (std::getline(parts, part, '+')) {
        ++parts_seen;
        const std::string name = to_lower(part);
        if (name == "bias" || name == "row-bias") {
          if (bias != BiasKind::None) invalid(std::string(what) + ": two biases in '" + item + "'" + expected);
          bias = name == "bias" ? BiasKind::PerColumn : BiasKind::PerRow;
          continue;
        }
        Activation named = Activation::None;
        try {
          named = parse_activation(name);
        } catch (const Error&) {
        }
        if (named == Activation::None)
          invalid(std::string(what) + ": unknown part '" + part + "' in '" + item + "'" + expected);
        if (act != Activation::None) invalid(std::string(what) + ": two activations in '" + item + "'" + expected);
        act = named;
      }
      if (parts_seen == 0 || item.back() == '+')
        invalid(std::string(what) + ": malformed value '" + item + "'" + expected);
    }
    epilogues.emplace_back(bias, act);
  }
  if (epilogues.empty() || list.back() == ',')
    invalid(std::string(what) + ": malformed value '" + list + "'" + expected);
  std::vector<Problem> out;
  for (const Problem& p : problems)
    for (const auto& [bias, act] : epilogues) {
      Problem q = p;
      q.bias = bias;
      q.activation = act;
      out.push_back(q);
    }
  problems = out;
}

void apply_layout(std::vector<Problem>& problems, const std::string& layout, const std::string& trans,
                  const std::string& ld, const std::string& offset) {
  const Layout l = parse_layout(layout, "--layout");
  const auto [oa, ob] = parse_trans(trans, "--trans");
  const LdChoice lds = parse_ld(ld, "--ld");
  const int64_t off = parse_offset(offset, "--offset");
  for (Problem& p : problems) {
    p.layout = l;
    if (!p.ops_fixed) {
      p.op_a = oa;
      p.op_b = ob;
    }
    p.ld_pad = lds.pad;
    p.ld_abs = lds.absolute;
    p.offset = off;
    if (lds.absolute > 0) {  // an absolute leading dimension must hold every operand's stored rows
      const StoredOperands s = stored_shapes(p.op_a, p.op_b, p.m, p.n, p.k);
      const int64_t need = std::max({s.a.min_ld(l), s.b.min_ld(l), s.c.min_ld(l)});
      if (lds.absolute < need)
        invalid("--ld: " + std::to_string(lds.absolute) + " is too small for " + p.dims() + " " + to_string(l) +
                " " + to_string(p.op_a) + to_string(p.op_b) + " (its operands need >= " + std::to_string(need) +
                "; +N pads every leading dimension instead)");
    }
  }
}



std::vector<Kernel> parse_kernel_list(const std::string& s, const char* what, std::vector<std::string>* families) {
  std::vector<Kernel> out;
  auto add = [&](Kernel k) {
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  };
  auto add_family = [&](const std::string& name) {
    if (std::find(families->begin(), families->end(), name) == families->end()) families->push_back(name);
  };
  const std::vector<const ops::Family*> known = ops::registry().families(ops::OpKind::Gemm);
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const std::string name = to_lower(item);
    if (name == "all") {
      for (int level = 1; level <= kNumLadderLevels; ++level) add(static_cast<Kernel>(level));
    } else if (families && name == "families") {
      for (const ops::Family* f : known) add_family(std::string(f->name()));
    } else if (families && ops::registry().find(name) && ops::registry().find(name)->serves(ops::OpKind::Gemm)) {
      add_family(name);
    } else if (!item.empty()) {
      try {
        add(parse_kernel(item, what));
      } catch (const Error&) {
        if (!families) throw;
        std::string names;
        for (const ops::Family* f : known) names += ", " + std::string(f->name());
        invalid(std::string(what) + ": unknown value '" + item +
                "' (expected auto, all, a level 1-7 or a name such as 06-warp-tiled, families, or a kernel family" +
                names + ")");
      }
    }
  }
  if (out.empty() && (!families || families->empty()))
    invalid(std::string(what) + ": empty list '" + s + "' (expected all, auto or levels such as 1,5,6)");
  return out;
}

std::vector<std::string> parse_config_list(const std::vector<std::string>& texts, const char* what) {
  std::vector<std::string> out;
  for (const std::string& t : texts) {
    const std::string canonical = ops::registry().parse(t, what, ops::OpKind::Gemm).text();
    if (std::find(out.begin(), out.end(), canonical) == out.end()) out.push_back(canonical);
  }
  return out;
}

std::vector<Raster> parse_raster_list(const std::vector<std::string>& names, const char* what) {
  std::vector<Raster> out;
  for (const std::string& n : names) {
    const Raster r = parse_raster(n, what);
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  }
  return out;
}

LdChoice parse_ld(const std::string& s, const char* what) {
  const char* expected = " (expected +N to pad every leading dimension by N elements, or N for one leading dimension "
                         "for all matrices; N up to 1000000)";
  const bool plus = !s.empty() && s[0] == '+';
  const std::string digits = plus ? s.substr(1) : s;
  const int64_t v = parse_bounded_count(digits, s, what, plus ? 0 : 1, kMaxLdPad, expected);
  LdChoice c;
  if (plus) c.pad = v;
  else c.absolute = v;
  return c;
}

int64_t parse_offset(const std::string& s, const char* what) {
  const std::string expected = " (expected elements to offset every matrix's pointer by, 0 to " +
                               std::to_string(kMaxOffset) + ")";
  return parse_bounded_count(s, s, what, 0, kMaxOffset, expected);
}

void check_plot_path(const std::string& path, const char* what) {
  const std::string ext = to_lower(fs::path(path).extension().string());
  if (ext != ".png" && ext != ".svg")
    invalid(std::string(what) + ": unsupported file type '" + path + "' (expected a .png or .svg file name)");
}

std::string plot_csv_path(const std::string& plot_path) {
  return fs::path(plot_path).replace_extension(".csv").string();
}

BenchPlan plan_bench(const BenchArgs& args) {
  BenchPlan plan;
  // 1. Pure parsing, in the order the options are listed in --help.
  if (!args.preset.empty()) plan.problems = preset_shapes(args.preset);
  for (const std::string& s : args.shapes) plan.problems.push_back(parse_shape(s, "--shape"));
  if (!args.sizes.empty())
    for (int64_t v : parse_sizes(args.sizes, "--sizes")) {
      Problem p;
      p.m = p.n = p.k = v;
      plan.problems.push_back(p);
    }
  if (plan.problems.empty()) plan.problems = preset_shapes("ladder");
  apply_layout(plan.problems, args.layout, args.trans, args.ld, args.offset);
  apply_batch(plan.problems, args.batch);
  apply_epilogues(plan.problems, args.epilogue);
  const TimingChoice timing = parse_timing(args.dtype, args.warm, args.cold, args.min_time, args.graph_batch);
  plan.dtype = timing.dtype;
  apply_dtype(plan.problems, plan.dtype);
  plan.kernels = parse_kernel_list(kernels_for(plan.dtype, args.kernels, BenchArgs{}.kernels), "--kernels",
                                   &plan.families);
  plan.configs = parse_config_list(args.configs, "--config");
  plan.rasters = parse_raster_list(args.rasters, "--rasters");
  plan.schedules = args.schedules;
  plan.ffma_auto = args.ffma_auto;
  plan.cublas_tf32 = args.cublas_tf32;
  plan.warm = timing.warm;
  plan.min_time = timing.min_time;
  plan.graph_batch = timing.graph_batch;
  if (!args.plot.empty()) check_plot_path(args.plot, "--plot");
  plan.plot = args.plot;
  plan.json = args.json;
  plan.csv = !args.csv.empty() || args.plot.empty() ? args.csv : plot_csv_path(args.plot);
  const char* csv_what = args.csv.empty() ? "--plot (its CSV)" : "--csv";
  check_distinct(plan.csv, csv_what, plan.json, "--json");
  check_distinct(plan.csv, csv_what, plan.plot, "--plot");
  check_distinct(plan.json, "--json", plan.plot, "--plot");
  // 2. The file system: every output must be writable before hours of measuring start.
  if (!plan.csv.empty()) probe_writable(plan.csv, csv_what);
  if (!plan.json.empty()) probe_writable(plan.json, "--json");
  if (!plan.plot.empty()) probe_writable(plan.plot, "--plot");
  return plan;
}

CheckPlan plan_check(const CheckArgs& args) {
  CheckPlan plan;
  if (!args.preset.empty()) plan.problems = preset_shapes(args.preset);
  for (const std::string& s : args.shapes) plan.problems.push_back(parse_shape(s, "--shape"));
  if (plan.problems.empty()) invalid("--preset: no shapes to check (give a preset or --shape)");
  apply_layout(plan.problems, args.layout, args.trans, args.ld, args.offset);
  apply_batch(plan.problems, args.batch);
  apply_epilogues(plan.problems, args.epilogue);
  plan.dtype = parse_dtype(args.dtype, "--dtype");
  apply_dtype(plan.problems, plan.dtype);
  plan.kernels = parse_kernel_list(kernels_for(plan.dtype, args.kernels, CheckArgs{}.kernels), "--kernels",
                                   &plan.families);
  plan.configs = parse_config_list(args.configs, "--config");
  return plan;
}

std::vector<Problem> plan_gemm_tune(const std::vector<std::string>& shapes, const std::string& preset,
                                    const GemmTuneArgs& args) {
  std::vector<Problem> problems;
  if (!preset.empty()) problems = preset_shapes(preset);
  for (const std::string& s : shapes) problems.push_back(parse_shape(s, "--shape"));
  if (problems.empty()) invalid("--shape: no shapes to tune (give --shape or --preset)");
  for (const Problem& p : problems)
    if (p.m < 1 || p.n < 1 || p.k < 1) invalid("--shape: " + p.dims() + " has an empty dimension: nothing to tune");
  apply_layout(problems, args.layout, args.trans, args.ld, args.offset);
  apply_batch(problems, args.batch);
  apply_epilogues(problems, args.epilogue);
  apply_dtype(problems, parse_dtype(args.dtype, "--dtype"));
  return problems;
}

double problem_bytes(const Problem& p, int c_buffers) {
  // In double: sizes reach 2^62 elements, so 4 bytes each would overflow int64.
  const double a = static_cast<double>(p.size_a()), b = static_cast<double>(p.size_b()),
               c = static_cast<double>(p.size_c());
  const double bytes = dtype_bytes(p.dtype) * (a + b + c_buffers * c);
  // 16-bit and tf32 runs: the FP64 reference C, and A and B widened while it is computed.
  return p.fp64_reference() ? bytes + 8.0 * (a + b + c) : bytes;
}

void check_fits(const std::vector<Problem>& problems, int c_buffers, double extra_bytes, double device_bytes,
                const std::string& device_name) {
  for (const Problem& p : problems) {
    const double need = problem_bytes(p, c_buffers) + extra_bytes;
    if (need > device_bytes) {
      char msg[256];
      std::snprintf(msg, sizeof msg, "shape %s needs %.1f GiB of device memory; %s has %.1f GiB",
                    p.str().c_str(), need / 1073741824.0, device_name.c_str(), device_bytes / 1073741824.0);
      invalid(msg);
    }
  }
}

}  // namespace tools
}  // namespace tilegemm
