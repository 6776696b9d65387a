// tilegemm tune: measures the legal configs of each shape (tilegemm::tune), stores the winner in the
// tuning database that Kernel::Auto consults, and prints best vs untuned Auto vs cuBLAS, timed the same
// way in the same run. --list / --export / --import / --clear maintain the database (no GPU needed).
#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "dense/config.hpp"
#include "harness.hpp"
#include "ops/keys.hpp"
#include "ops/registry.hpp"
#include "sparse_harness.hpp"
#include "sparse_options.hpp"
#include "tune_options.hpp"
#include "shapes.hpp"
#include "report.hpp"
#include "tilegemm/device.hpp"
#include "tilegemm/error.hpp"
#include "tilegemm/tune.hpp"
#include "tune/database.hpp"

namespace tilegemm {
namespace tools {

namespace {

volatile std::sig_atomic_t g_tune_interrupted = 0;

[[noreturn]] void invalid(const std::string& message) { throw Error(ErrorCode::InvalidArgument, message); }

struct TuneRow {
  std::string shape;     // Problem::str() or SparseProblem::str()
  TuneResult result;
  std::string baseline;  // "cuBLAS" (gemm) or "cuSPARSE" (bsr), timed like the tuner times a config
  double baseline_us = 0;  // 0: not measured (cuSPARSE rejects the problem)
};

double ratio(double baseline_us, double us) { return us > 0 && baseline_us > 0 ? baseline_us / us : 0.0; }

nlohmann::json rows_json(const std::string& device, const std::vector<TuneRow>& rows, bool interrupted) {
  nlohmann::json out = {{"device", device}, {"interrupted", interrupted}, {"shapes", nlohmann::json::array()}};
  for (const TuneRow& r : rows) {
    nlohmann::json candidates = nlohmann::json::array();
    for (const TuneCandidate& c : r.result.candidates)
      candidates.push_back({{"config", c.config}, {"predicted_us", c.predicted_us}, {"measured_us", c.measured_us},
                            {"status", c.status}});
    out["shapes"].push_back({{"shape", r.shape},
                             {"problem", r.result.problem},
                             {"best_config", r.result.best_config},
                             {"best_us", r.result.best_us},
                             {"auto_config", r.result.auto_config},
                             {"auto_us", r.result.auto_us},
                             {"baseline", r.baseline},
                             {"baseline_us", r.baseline_us},
                             {"best_vs_baseline", ratio(r.baseline_us, r.result.best_us)},
                             {"auto_vs_baseline", ratio(r.baseline_us, r.result.auto_us)},
                             {"measured", r.result.measured},
                             {"legal", r.result.candidates.size()},
                             {"exhaustive", r.result.exhaustive},
                             {"stopped", r.result.stopped},
                             {"stored", r.result.stored},
                             {"seconds", r.result.seconds},
                             {"compile_seconds", r.result.compile_seconds},
                             {"candidates", candidates}});
  }
  return out;
}

// The per-shape summary as CSV, in the command's one CSV form (report.hpp).
std::string rows_csv(const std::string& device, const std::vector<TuneRow>& rows) {
  const std::vector<CsvColumn<TuneRow>> columns = {
      {"device", [&](const TuneRow&) { return csv_quoted(device); }},
      {"shape", [](const TuneRow& r) { return csv_quoted(r.shape); }},
      {"problem", [](const TuneRow& r) { return csv_quoted(r.result.problem); }},
      {"best_config", [](const TuneRow& r) { return r.result.best_config; }},
      {"best_us", [](const TuneRow& r) { return csv_number(r.result.best_us); }},
      {"auto_config", [](const TuneRow& r) { return r.result.auto_config; }},
      {"auto_us", [](const TuneRow& r) { return csv_number(r.result.auto_us); }},
      {"baseline", [](const TuneRow& r) { return r.baseline; }},
      {"baseline_us", [](const TuneRow& r) { return csv_number(r.baseline_us); }},
      {"best_vs_baseline", [](const TuneRow& r) { return csv_number(ratio(r.baseline_us, r.result.best_us)); }},
      {"auto_vs_baseline", [](const TuneRow& r) { return csv_number(ratio(r.baseline_us, r.result.auto_us)); }},
      {"measured", [](const TuneRow& r) { return std::to_string(r.result.measured); }},
      {"legal", [](const TuneRow& r) { return std::to_string(r.result.candidates.size()); }},
      {"exhaustive", [](const TuneRow& r) { return std::string(r.result.exhaustive ? "1" : "0"); }},
      {"stored", [](const TuneRow& r) { return std::string(r.result.stored ? "1" : "0"); }},
      {"seconds", [](const TuneRow& r) { return csv_number(r.result.seconds); }},
      {"compile_seconds", [](const TuneRow& r) { return csv_number(r.result.compile_seconds); }},
  };
  return csv_table(columns, rows);
}

void write_outputs(const TunePlan& plan, const std::string& device, const std::vector<TuneRow>& rows,
                   bool interrupted) {
  if (!plan.json.empty()) write_text_file(plan.json, rows_json(device, rows, interrupted).dump(2) + "\n", "--json");
  if (!plan.csv.empty()) write_text_file(plan.csv, rows_csv(device, rows), "--csv");
}

GemmShape gemm_shape(const Problem& p) {
  GemmShape s;
  s.layout = p.layout;
  s.op_a = p.op_a;
  s.op_b = p.op_b;
  s.m = p.m;
  s.n = p.n;
  s.k = p.k;
  s.lda = p.lda();
  s.ldb = p.ldb();
  s.ldc = p.ldc();
  s.offset = p.offset;
  return s;
}

// cuBLAS on the shape, timed like the tuner times a config (cold L2, the same minimum time).
double time_cublas(Cublas& cublas, const Problem& p, double min_time, size_t flush_bytes) {
  DeviceBuffer<float> a(p.size_a()), b(p.size_b()), c(p.size_c());
  fill_uniform(a.get(), p.size_a(), 1);
  fill_uniform(b.get(), p.size_b(), 2);
  const Timing t = time_runs(
      [&] { cublas.sgemm(p, 1.0f, a.get() + p.offset, b.get() + p.offset, 0.0f, c.get() + p.offset); }, min_time,
      flush_bytes);
  return t.median_ms * 1e3;
}

// One BSR problem: W generated as the bench generates it (same seed, so `bench --sparse` then runs
// the tuned entry), tuned, and cuSPARSE timed the same way on the same W and X.
TuneRow tune_sparse(const SparseProblem& p, uint64_t seed, const TuneOptions& o, const Cusparse& cusparse,
                    size_t flush_bytes) {
  const BsrMatrix host = generate_bsr(p.w_rows(), p.w_cols(), p.block_rows, p.block_cols, p.sparsity, p.rows,
                                      sparse_w_seed(seed, p));
  const DeviceBsrMatrix w(host);
  BsrShape shape;
  shape.product = p.op == SparseOp::Xwt ? BsrProduct::Xwt : BsrProduct::Wx;
  shape.m = p.m;
  shape.n = p.n;
  shape.k = p.k;
  TuneRow row;
  row.shape = p.str();
  row.result = tune(shape, w, o);
  row.baseline = "cuSPARSE";
  DeviceBuffer<float> x(static_cast<size_t>(p.size_x())), y(static_cast<size_t>(p.size_y()));
  fill_uniform(x.get(), p.size_x(), sparse_x_seed(seed, p));
  TILEGEMM_CUDA_CHECK(cudaDeviceSynchronize());
  CusparseBsrProduct sp(cusparse, p.op, p.m, p.n, p.k, w.view(), x.get(), y.get());
  if (sp.unsupported().empty())
    row.baseline_us = time_runs([&] { sp.run(); }, o.min_time_s, flush_bytes).median_ms * 1e3;
  return row;
}

void run_tuning(const TunePlan& plan) {
  const DeviceInfo dev = current_device_info();
  const size_t flush_bytes = 2 * dev.l2_bytes;
  const char* baseline = plan.bsr ? "cuSPARSE" : "cuBLAS";
  std::printf("device: %s, %d SMs; tuning database %s; %s per shape, cold L2, min %.2f s per config\n",
              dev.name.c_str(), dev.sm_count, plan.options.store ? plan.db.c_str() : "(not written: --no-store)",
              plan.options.max_measured > 0 ? ("at most " + std::to_string(plan.options.max_measured) + " configs").c_str()
                                    : "every legal config",
              plan.options.min_time_s);
  const int shape_width = plan.bsr ? 66 : 34;
  std::printf("%-*s %9s %-32s %10s %-32s %10s %10s %7s %7s %7s\n", shape_width, "shape", "measured", "best config",
              "best us", "untuned auto", "auto us", (std::string(baseline) + " us").c_str(), "best x", "auto x",
              "seconds");
  std::fflush(stdout);
  g_tune_interrupted = 0;
  std::signal(SIGINT, [](int) { g_tune_interrupted = 1; });
  Cublas cublas;
  std::optional<Cusparse> cusparse;
  if (plan.bsr) cusparse.emplace();
  const size_t count = plan.bsr ? plan.sparse_problems.size() : plan.problems.size();
  std::vector<TuneRow> rows;
  for (size_t i = 0; i < count && !g_tune_interrupted; ++i) {
    TuneOptions o = plan.options;
    o.cancelled = [] { return g_tune_interrupted != 0; };
    const std::string shape = plan.bsr ? plan.sparse_problems[i].str() : plan.problems[i].str();
    const std::string label = "[" + std::to_string(i + 1) + "/" + std::to_string(count) + "] " + shape;
    o.progress = [&label](const TuneProgress& pr) {
      std::fprintf(stderr, "tune %s: %d/%d %s %s; best %s %.1f us\n", label.c_str(), pr.measured, pr.candidates,
                   pr.config.c_str(), pr.us > 0 ? (std::to_string(pr.us) + " us").c_str() : "failed",
                   pr.best_config.c_str(), pr.best_us);
    };
    TuneRow row;
    if (plan.bsr) {
      row = tune_sparse(plan.sparse_problems[i], plan.seed, o, *cusparse, flush_bytes);
    } else {
      const Problem& p = plan.problems[i];
      row.shape = shape;
      row.result = tune(gemm_shape(p), o);
      row.baseline = baseline;
      row.baseline_us = time_cublas(cublas, p, plan.options.min_time_s, flush_bytes);
    }
    const TuneResult& r = row.result;
    char measured[32];
    std::snprintf(measured, sizeof measured, "%d/%zu%s", r.measured, r.candidates.size(), r.stopped ? "+" : "");
    std::printf("%-*s %9s %-32s %10.1f %-32s %10.1f %10.1f %7.3f %7.3f %7.1f\n", shape_width, shape.c_str(), measured,
                r.best_config.c_str(), r.best_us, r.auto_config.c_str(), r.auto_us, row.baseline_us,
                ratio(row.baseline_us, r.best_us), ratio(row.baseline_us, r.auto_us), r.seconds);
    std::fflush(stdout);
    rows.push_back(std::move(row));
    write_outputs(plan, dev.name, rows, false);  // after every shape: an interrupted run keeps its rows
  }
  std::signal(SIGINT, SIG_DFL);
  // Geometric means over the shapes whose winner, untuned pick and baseline were all measured.
  double log_best = 0, log_auto = 0, log_gain = 0;
  int n = 0, n_gain = 0;
  for (const TuneRow& r : rows) {
    if (r.result.best_us > 0 && r.result.auto_us > 0) {
      log_gain += std::log(r.result.auto_us / r.result.best_us);
      ++n_gain;
    }
    if (r.result.best_us > 0 && r.result.auto_us > 0 && r.baseline_us > 0) {
      log_best += std::log(ratio(r.baseline_us, r.result.best_us));
      log_auto += std::log(ratio(r.baseline_us, r.result.auto_us));
      ++n;
    }
  }
  if (n > 0)
    std::printf("geomean x %s over %d shapes: tuned %.3f, untuned auto %.3f\n", baseline, n, std::exp(log_best / n),
                std::exp(log_auto / n));
  if (n_gain > 0)
    std::printf("geomean tuned speedup over untuned auto, %d shapes: %.3f\n", n_gain, std::exp(log_gain / n_gain));
  if (g_tune_interrupted) {
    write_outputs(plan, dev.name, rows, true);
    std::fprintf(stderr, "interrupted: kept the shapes tuned so far (and their database entries)\n");
  }
}

nlohmann::json entry_json(const detail::TunedEntry& e) {
  return {{"device_name", e.device.device_name},
          {"compute_capability", e.device.compute_capability},
          {"sm_count", e.device.sm_count},
          {"driver_version", e.device.driver_version},
          {"library_version", e.device.library_version},
          {"source_hash", e.device.source_hash},
          {"problem", e.problem},
          {"config", e.config},
          {"measured_us", e.measured_us},
          {"auto_us", e.auto_us},
          {"tuned_at", e.tuned_at}};
}

detail::TunedEntry entry_from_json(const nlohmann::json& j) {
  detail::TunedEntry e;
  e.device.device_name = j.at("device_name").get<std::string>();
  e.device.compute_capability = j.at("compute_capability").get<std::string>();
  e.device.sm_count = j.at("sm_count").get<int>();
  e.device.driver_version = j.at("driver_version").get<int>();
  e.device.library_version = j.at("library_version").get<std::string>();
  e.device.source_hash = j.at("source_hash").get<std::string>();
  e.problem = j.at("problem").get<std::string>();
  e.config = j.at("config").get<std::string>();
  e.measured_us = j.at("measured_us").get<double>();
  e.auto_us = j.at("auto_us").get<double>();
  e.tuned_at = j.at("tuned_at").get<std::string>();
  if (!(e.measured_us > 0)) throw std::runtime_error("measured_us must be > 0");
  (void)ops::registry().parse(e.config, "config", ops::key_kind(e.problem));  // throws naming the text
  return e;
}

constexpr const char* kExportFormat = "tilegemm tuning database export 1";

void run_database_action(const TunePlan& plan) {
  using Db = detail::TuningDatabase;
  switch (plan.action) {
    case TunePlan::Action::List: {
      if (!std::ifstream(plan.db)) {
        std::printf("no tuning database at %s\n", plan.db.c_str());
        return;
      }
      const Db db(plan.db, Db::Mode::ReadOnly);
      const auto entries = db.all();
      std::printf("%s: %zu entr%s\n", plan.db.c_str(), entries.size(), entries.size() == 1 ? "y" : "ies");
      std::string device;
      for (const detail::TunedEntry& e : entries) {
        const std::string d = detail::to_string(e.device);
        if (d != device) std::printf("%s\n", (device = d).c_str());
        std::printf("  %-44s %-34s %10.1f us (untuned auto %.1f us) %s\n", e.problem.c_str(), e.config.c_str(),
                    e.measured_us, e.auto_us, e.tuned_at.c_str());
      }
      return;
    }
    case TunePlan::Action::Export: {
      nlohmann::json out = {{"format", kExportFormat}, {"entries", nlohmann::json::array()}};
      if (std::ifstream(plan.db))
        for (const detail::TunedEntry& e : Db(plan.db, Db::Mode::ReadOnly).all()) out["entries"].push_back(entry_json(e));
      std::ofstream f(plan.file);
      f << out.dump(2) << "\n";
      if (!f) invalid("--export: cannot write '" + plan.file + "'");
      std::printf("exported %zu entries of %s to %s\n", out["entries"].size(), plan.db.c_str(), plan.file.c_str());
      return;
    }
    case TunePlan::Action::Import: {
      // Every entry is read and checked before the database is opened: a bad file changes nothing.
      std::vector<detail::TunedEntry> entries;
      try {
        std::ifstream f(plan.file);
        const nlohmann::json in = nlohmann::json::parse(f);
        if (in.at("format").get<std::string>() != kExportFormat) throw std::runtime_error("not a tilegemm export");
        for (const nlohmann::json& j : in.at("entries")) entries.push_back(entry_from_json(j));
      } catch (const std::exception& e) {
        invalid("--import: '" + plan.file + "' is not a tilegemm tuning export (" + e.what() + ")");
      }
      Db db(plan.db, Db::Mode::ReadWrite);
      int stored = 0;
      for (const detail::TunedEntry& e : entries) stored += db.put(e) ? 1 : 0;
      std::printf("imported %d of %zu entries into %s (the others: the database holds a faster config)\n", stored,
                  entries.size(), plan.db.c_str());
      return;
    }
    case TunePlan::Action::Clear: {
      if (!std::ifstream(plan.db)) {
        std::printf("no tuning database at %s\n", plan.db.c_str());
        return;
      }
      Db db(plan.db, Db::Mode::ReadWrite);
      std::printf("removed %d entries from %s\n", db.clear(), plan.db.c_str());
      return;
    }
    case TunePlan::Action::Tune:
      return;
  }
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto a = std::make_shared<TuneArgs>();
  CLI::App* cmd = app.add_subcommand(
      "tune", "Measure the legal configs of each shape, store the fastest for Kernel::Auto (docs/tuning.md)");
  cmd->add_option("operation", a->operation, "gemm (default) or bsr (block-sparse; --shape with --block/--sparsity/"
                                            "--rows/--op, or --preset " + join_alternatives(sparse_preset_names()) + ")");
  cmd->add_option("--shape", a->shapes, "MxNxK (repeatable)");
  cmd->add_option("--preset", a->preset, "named shape set (" + join_alternatives(preset_names()) + ")");
  cmd->add_option("--layout", a->layout, "row or col");
  cmd->add_option("--trans", a->trans, "NN, NT, TN or TT");
  cmd->add_option("--ld", a->ld, "+N pads every leading dimension; N sets it");
  cmd->add_option("--offset", a->offset, "elements every matrix starts into its buffer");
  cmd->add_option("--budget-s", a->budget_s, "wall-clock seconds per shape (default 30)");
  cmd->add_option("--top", a->top, "configs to measure at most per shape (default 12; 0 = all)");
  cmd->add_flag("--exhaustive", a->exhaustive, "measure every legal config");
  cmd->add_flag("--jit", a->jit, "also measure run-time compiled variants of the leading tile shapes (NVRTC)");
  cmd->add_option("--min-time", a->min_time, "seconds of timed runs per config (default 0.05)");
  cmd->add_flag("--no-store", a->no_store, "measure only; leave the database alone");
  cmd->add_option("--db", a->db, "the tuning database (default: $TILEGEMM_TUNING_DB or the cache folder)");
  cmd->add_flag("--list", a->list, "print the database's entries");
  cmd->add_option("--export", a->export_path, "write the database's entries to a JSON file");
  cmd->add_option("--import", a->import_path, "add a JSON export's entries (a faster stored entry is kept)");
  cmd->add_flag("--clear", a->clear, "remove every entry");
  cmd->add_option("--block", a->blocks, "bsr --shape: W's blocks R or RxC, comma list (default 32)")->delimiter(',');
  cmd->add_option("--sparsity", a->sparsities, "bsr --shape: fraction of absent blocks, comma list (default 0.9)")
      ->delimiter(',');
  cmd->add_option("--rows", a->rows, "bsr --shape: uniform and/or skewed block rows (default uniform)")->delimiter(',');
  cmd->add_option("--op", a->op, "bsr: xwt (Y = X W^T) or wx (Y = W X)")->capture_default_str();
  cmd->add_option("--seed", a->seed, "bsr: seed of W and X (the bench's)")->capture_default_str();
  cmd->add_option("--csv", a->csv, "write one row per shape");
  cmd->add_option("--json", a->json, "write every shape with all its candidates");
  cmd->callback([a, cmd] {
    for (const char* name : {"--layout", "--trans", "--ld", "--offset", "--block", "--sparsity", "--rows", "--op", "--seed"})
      if (cmd->count(name) > 0) a->given.push_back(name);
    const TunePlan plan = plan_tune(*a, tuning_database_path());
    if (plan.action == TunePlan::Action::Tune)
      run_tuning(plan);
    else
      run_database_action(plan);
  });
}

}  // namespace tools
}  // namespace tilegemm
