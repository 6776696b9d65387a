// Auto for every operation: the tuning database's entry for the problem when there is one that can run
// it, else the legal config with the lowest estimate over every registered family of the problem's
// kind, else (no family estimates) the first legal measure-only config. Remembered per problem in the
// device context's ChoiceCache. Pure host code: the CPU tests rank problems without a device.
#pragma once
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "ops/config.hpp"
#include "ops/family.hpp"
#include "ops/problem.hpp"

namespace tilegemm {
namespace ops {

struct Ranked {
  Config config;
  Estimate estimate;
};

struct Ranking {
  std::vector<Ranked> estimated;     // legal configs with an estimate, lowest rank_us first; ties keep
                                     // the registry's and each family's candidate order
  std::vector<Config> measure_only;  // legal configs without an estimate, in that order
  std::vector<std::string> refusals; // "<family>: <reason>" of each family with no legal candidate
  bool empty() const { return estimated.empty() && measure_only.empty(); }
  // What Auto runs without a tuned entry (empty when nothing can run the problem).
  Config best() const;
};

// Family f's estimate of `c` on the whole call `p`: of one launch where f runs batches, else of one
// product times p.batch launches (each family is asked about launch_problem(f, p)); with a bias or
// activation that f does not fuse, plus its elementwise pass over each product's C (epilogue_pass_us).
std::optional<Estimate> call_estimate(const Family& f, const Problem& p, const Config& c, const DeviceFacts& d);
// The elementwise pass that applies the bias and activation after a family that does not fuse them
// (Family::fuses_epilogue) to one of p's products' C (p.batch aside): C read and written once more at
// 3/4 of the memory bandwidth, and one launch after the product.
double epilogue_pass_us(const Problem& p, const DeviceFacts& d);

// Every registered family's legal candidates for `p`, ranked; a family that runs one product per
// launch is judged on one product (launch_problem) and ranked by call_estimate.
Ranking rank(const Problem& p, const DeviceFacts& d);
// One family's alone (`tilegemm bench --kernels <family>`).
Ranking rank(const Problem& p, const DeviceFacts& d, const Family& only);

// The reason no family can run `p`, from a ranking without candidates: every family's refusal.
std::string no_family_reason(const Problem& p, const Ranking& r);

// Auto's choices remembered per problem (bounded: a long-running process may see ever new shapes).
class ChoiceCache {
 public:
  bool find(const Problem& p, Config* out) const;
  void insert(const Problem& p, const Config& c);
  void clear();

 private:
  static constexpr size_t kMaxEntries = 4096;
  mutable std::mutex mutex_;
  std::unordered_map<Problem, Config, ProblemHash> choices_;
};

// The tuning database's config for a problem, or an empty config.
using TunedLookup = std::function<Config(const Problem&)>;
// Auto's decision for `p` without the cache: the tuned entry if its family can run `p`, else the
// ranking's best (config empty when nothing can run `p`; ranking empty when the tuned entry won).
struct Decision {
  Config config;
  bool tuned = false;
  Ranking ranking;
};
Decision decide(const Problem& p, const DeviceFacts& d, const TunedLookup& tuned);
// Auto's config for `p`: from `cache`, else decide()'s (the tuning database asked only on a miss),
// then remembered.
Config choose(const Problem& p, const DeviceFacts& d, ChoiceCache& cache, const TunedLookup& tuned = {});

}  // namespace ops
}  // namespace tilegemm
