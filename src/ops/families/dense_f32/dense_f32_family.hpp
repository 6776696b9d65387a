// What the FP32 dense families (simt_tiled, tf32x3_tiled, gemv) share: their configs are the dense
// config record (dense/config.hpp, one text grammar for the three), their legality, plans and launch
// are dense/gemm_ops.hpp's and their estimate the dense model's (dense/choose.hpp). Each family says
// which records are its own and what it refuses beyond them (math, shapes).
#pragma once
#include <string>
#include <vector>

#include "dense/config.hpp"
#include "dense/gemm_ops.hpp"
#include "ops/family.hpp"

namespace tilegemm {
namespace ops {

// The dense layer's view of a canonical problem and of one launch of it.
detail::GemmProblem gemm_problem(const Problem& p);
detail::CanonicalGemm canonical_gemm(const Problem& p, const Operands& o);
// "" when A, B and C are F32, else which one is not (the FP32 families compute F32 only).
std::string f32_operands(const Problem& p);

class DenseF32Family : public Family {
 public:
  bool serves(OpKind kind) const override { return kind == OpKind::Gemm; }
  Config parse(const std::string& text, const char* what) const override;
  std::string print(const Config& c) const override;
  std::vector<Config> neighbours(const Problem& p, const Config& c) const override;
  std::string error_group(const Config& c) const override;
  std::string supports(const Problem& p) const override;
  std::string can_implement(const Problem& p, const Config& c) const override;
  size_t workspace_bytes(const Problem& p, const Config& c, const Operands& o, const DeviceFacts& d) const override;
  std::optional<Estimate> estimate(const Problem& p, const Config& c, const DeviceFacts& d) const override;
  std::string config_class(const Problem& p, const Config& c, const DeviceFacts& d) const override;
  std::vector<detail::JitRequest> run_time_kernels(const Problem& p, const Config& c,
                                                   const DeviceFacts& d) const override;
  void run(const Problem& p, const Config& c, const Operands& o, const DeviceFacts& d,
           cudaStream_t stream) const override;

  static const detail::GemmConfig& record(const Config& c) { return c.fields<detail::GemmConfig>(); }
  Config make(const detail::GemmConfig& g) const { return Config(*this, g); }

 protected:
  // Whether a parsed record is this family's (the text grammar is shared).
  virtual bool owns(const detail::GemmConfig& g) const = 0;
  // Why this family declines `p` whatever the config ("" when it does not): math, shapes.
  virtual std::string declines(const Problem& p) const = 0;
  // The configs as records, for candidates().
  std::vector<Config> wrap(const std::vector<detail::GemmConfig>& records) const;
};

}  // namespace ops
}  // namespace tilegemm
