// tilegemm tune <operation>: measures the legal configs of each problem (tilegemm::tune), stores the
// winner in the tuning database that Kernel::Auto consults, and prints best vs untuned Auto vs the
// operation's vendor baseline, timed the same way in the same run. --list / --export / --import / --clear maintain the database (no GPU needed).
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
#include "ops/keys.hpp"
#include "ops/registry.hpp"
#include "profiler/operation_profiler.hpp"
#include "tilegemm/device.hpp"
#include "tilegemm/error.hpp"
#include "tilegemm/tune.hpp"
#include "tune/database.hpp"

namespace tilegemm {
namespace tools {

namespace {

volatile std::sig_atomic_t g_tune_interrupted = 0;

[[noreturn]] void invalid(const std::string& message) { throw Error(ErrorCode::InvalidArgument, message); }

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

void run_tuning(OperationProfiler& op, const TunePlan& plan, size_t count) {
  const DeviceInfo dev = current_device_info();
  const size_t flush_bytes = 2 * dev.l2_bytes;
  const std::string baseline = op.tune_baseline();
  std::printf("device: %s, %d SMs; tune %s; tuning database %s; %s per problem, cold L2, min %.2f s per config\n",
              dev.name.c_str(), dev.sm_count, op.name().c_str(),
              plan.options.store ? plan.db.c_str() : "(not written: --no-store)",
              plan.options.max_measured > 0 ? ("at most " + std::to_string(plan.options.max_measured) + " configs").c_str()
                                    : "every legal config",
              plan.options.min_time_s);
  const int shape_width = op.tune_name_width();
  std::printf("%-*s %9s %-32s %10s %-32s %10s %10s %7s %7s %7s\n", shape_width, "shape", "measured", "best config",
              "best us", "untuned auto", "auto us", (baseline + " us").c_str(), "best x", "auto x", "seconds");
  std::fflush(stdout);
  g_tune_interrupted = 0;
  std::signal(SIGINT, [](int) { g_tune_interrupted = 1; });
  std::vector<TuneRow> rows;
  for (size_t i = 0; i < count && !g_tune_interrupted; ++i) {
    TuneOptions o = plan.options;
    o.cancelled = [] { return g_tune_interrupted != 0; };
    const std::string shape = op.tune_problem_name(i);
    const std::string label = "[" + std::to_string(i + 1) + "/" + std::to_string(count) + "] " + shape;
    o.progress = [&label](const TuneProgress& pr) {
      std::fprintf(stderr, "tune %s: %d/%d %s %s; best %s %.1f us\n", label.c_str(), pr.measured, pr.candidates,
                   pr.config.c_str(), pr.us > 0 ? (std::to_string(pr.us) + " us").c_str() : "failed",
                   pr.best_config.c_str(), pr.best_us);
    };
    TuneRow row = op.tune_problem(i, o, flush_bytes);
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
    std::printf("geomean x %s over %d shapes: tuned %.3f, untuned auto %.3f\n", baseline.c_str(), n, std::exp(log_best / n),
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
  CLI::App* cmd = app.add_subcommand(
      "tune", "Measure the legal configs of each problem, store the fastest for Kernel::Auto (docs/tuning.md); "
              "gemm unless an operation is named");
  cmd->require_subcommand(1);
  for (const auto& p : profilers()) {
    CLI::App* sub = cmd->add_subcommand(p->name(), p->summary());
    auto a = std::make_shared<TuneArgs>();
    sub->add_option("--shape", a->shapes, "MxNxK (repeatable)");
    sub->add_option("--preset", a->preset, "named problem set (as bench " + p->name() + ")");
    sub->add_option("--budget-s", a->budget_s, "wall-clock seconds per problem (default 30)");
    sub->add_option("--top", a->top, "configs to measure at most per problem (default 12; 0 = all)");
    sub->add_flag("--exhaustive", a->exhaustive, "measure every legal config");
    sub->add_flag("--jit", a->jit, "also measure run-time compiled variants of the leading tile shapes (NVRTC)");
    sub->add_option("--min-time", a->min_time, "seconds of timed runs per config (default 0.05)");
    sub->add_flag("--no-store", a->no_store, "measure only; leave the database alone");
    sub->add_option("--db", a->db, "the tuning database (default: $TILEGEMM_TUNING_DB or the cache folder)");
    sub->add_flag("--list", a->list, "print the database's entries");
    sub->add_option("--export", a->export_path, "write the database's entries to a JSON file");
    sub->add_option("--import", a->import_path, "add a JSON export's entries (a faster stored entry is kept)");
    sub->add_flag("--clear", a->clear, "remove every entry");
    sub->add_option("--csv", a->csv, "write one row per problem");
    sub->add_option("--json", a->json, "write every problem with all its candidates");
    p->add_tune_options(sub);
    OperationProfiler* op = p.get();
    sub->callback([a, op] {
      const TunePlan plan = plan_tune(*a, tuning_database_path());
      if (plan.action != TunePlan::Action::Tune) return run_database_action(plan);
      const size_t count = op->plan_tune(*a);
      run_tuning(*op, plan, count);
    });
  }
}

}  // namespace tools
}  // namespace tilegemm
