// The one interface every kernel family implements (docs/architecture.md, "How to add a family").
// A family is a set of configs run by one kernel template (or a small set of kernels) for one kind of
// operation: it parses and prints its configs, lists the ones worth trying on a problem, says why a
// config cannot run a problem, estimates its time, and runs it. Families live in
// src/ops/families/<name>/ and are listed in src/ops/registry.cpp, one line each; Auto, the tuner,
// explain_choice and `tilegemm bench --kernels` see every registered family through this interface.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/device_facts.hpp"
#include "jit/jit.hpp"
#include "ops/config.hpp"
#include "ops/problem.hpp"

namespace tilegemm {
namespace ops {

using detail::DeviceFacts;

// A family's predicted time for a config on a problem.
struct Estimate {
  double us = 0;       // the model's time
  double rank_us = 0;  // what Auto ranks by: us, plus any handicap the family gives a more complex
                       // launch that only ties (the dense tiled families' split margin)
  std::string why;     // the model's terms in words
};

class Family {
 public:
  virtual ~Family() = default;
  // The family's name in logs, explain_choice and `bench --kernels` ("simt-tiled", "gemv").
  virtual std::string_view name() const = 0;
  // Whether the family computes this kind of operation (the BSR families serve both orientations).
  virtual bool serves(OpKind kind) const = 0;

  // Whether `text` (lowered, trimmed) is one of this family's config texts: decided by the prefix
  // before the first ':' and, where families share a prefix, the fields that tell them apart.
  virtual bool claims(std::string_view text) const = 0;
  // Parses a text this family claims. Throws Error(InvalidArgument) starting with `what`, quoting the
  // text and naming the field that is wrong.
  virtual Config parse(const std::string& text, const char* what) const = 0;
  virtual std::string print(const Config& c) const = 0;

  // "" when the family serves `p` at all (its operation kind, dtypes, math), else why not, in words:
  // asked before its candidates, and part of every can_implement.
  virtual std::string supports(const Problem& p) const = 0;
  // "" when the family's kernels run on the device, else why not (the instructions it needs): asked
  // before its candidates and before a named config of it runs.
  virtual std::string runs_on(const DeviceFacts&) const { return ""; }
  // The configs worth trying on `p` (Auto ranks those with an estimate; the tuner measures them in
  // the estimate's order). May hold configs can_implement refuses; the caller filters them.
  virtual std::vector<Config> candidates(const Problem& p, const DeviceFacts& d) const = 0;
  // Configs one move away from `c` for the tuner's local search (other tile sides, stages, ...); they
  // may need run-time compilation.
  virtual std::vector<Config> neighbours(const Problem& p, const Config& c) const = 0;
  // The configs whose estimates share one error (a tile shape's split counts): the tuner corrects the
  // estimates of a group by the measurements of its members.
  virtual std::string error_group(const Config&) const { return std::string(name()); }
  // "" when `c` can run `p`, else why not, in words, naming the field or the operand.
  virtual std::string can_implement(const Problem& p, const Config& c) const = 0;
  // Device memory `c` takes from the workspace pool when it runs `o` (the BSR tiled kernels split W's
  // longest rows, whose lengths travel with the operands).
  virtual size_t workspace_bytes(const Problem& p, const Config& c, const Operands& o, const DeviceFacts& d) const = 0;
  // The model's time, or nullopt: measure only (Auto takes such a config only when no config of any
  // family has an estimate).
  virtual std::optional<Estimate> estimate(const Problem& p, const Config& c, const DeviceFacts& d) const = 0;
  // A short class of the config on the problem for logs and explain_choice ("split-k", "gemv", ...).
  virtual std::string config_class(const Problem& p, const Config& c, const DeviceFacts& d) const = 0;
  // The run-time compiled kernels (NVRTC requests) `c` launches on `p`, empty when all were compiled
  // ahead of time: the tuner compiles them in parallel before timing anything. Ahead of time and at
  // run time, a config's kernel is the same template instantiation of the same header.
  virtual std::vector<detail::JitRequest> run_time_kernels(const Problem& p, const Config& c,
                                                           const DeviceFacts& d) const = 0;
  // Whether run() computes all p.batch products of a batched problem in one launch (the operands'
  // stride_a, stride_b, stride_c step from one batch to the next). A family that does not is only ever
  // asked about one product (launch_problem below): the dispatcher runs it once per batch, and Auto
  // counts batch x its estimate.
  virtual bool runs_batches() const { return false; }
  // Whether run() applies the problem's bias and activation (Problem::bias, activation) in its own
  // stores. A family that does not computes alpha * AB + beta * C, and the dispatcher follows each of
  // its products with one elementwise pass over C (detail::launch_epilogue_pass).
  virtual bool fuses_epilogue() const { return false; }
  // Runs `c` (can_implement accepted it; k > 0 and alpha != 0) on `stream`.
  virtual void run(const Problem& p, const Config& c, const Operands& o, const DeviceFacts& d,
                   cudaStream_t stream) const = 0;
};

// The problem family f's methods see for `p`: p itself where f runs batches in one launch, else one
// of its products (batch 1).
inline Problem launch_problem(const Family& f, const Problem& p) {
  if (p.batch == 1 || f.runs_batches()) return p;
  Problem one = p;
  one.batch = 1;
  return one;
}
// How many launches of launch_problem(f, p) make the call.
inline int64_t launches(const Family& f, const Problem& p) { return f.runs_batches() ? 1 : p.batch; }

// A family built on sm_90a instructions (`what`) runs on compute capability 9.0 only: "" there, else
// why not, naming the device (Family::runs_on).
inline std::string needs_sm90a(const DeviceFacts& d, const char* what) {
  if (d.cc_major == 9 && d.cc_minor == 0) return "";
  return std::string("needs a compute capability 9.0 device (") + what + "); device " + std::to_string(d.ordinal) +
         " has " + std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
}

}  // namespace ops
}  // namespace tilegemm
