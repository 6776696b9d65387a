// What bench and check run on one problem: cuBLAS, ladder levels (optionally per rasterization), Auto,
// explicit configs (--config) and, with --schedules, every compiled tiled schedule at the split the
// model likes best for it, plus the GEMV kernel where it applies.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "cublas.hpp"
#include "tilegemm/gemm.hpp"

namespace tilegemm {
namespace tools {

struct Contender {
  std::string label;
  bool is_baseline = false;
  // Runs C = A*B (alpha 1, beta 0) in p.dtype on bench_stream(), asynchronously: launches only (no
  // allocation outside the stream order, copy or synchronization), so --graph-batch can capture it.
  // a, b, c point at the matrices (the problem's offset already applied).
  std::function<void(const Problem&, const void* a, const void* b, void* c)> run;
  // Empty when the contender supports the problem (laid out at a, b, c), else why not (shown instead
  // of a time).
  std::function<std::string(const Problem&, const void* a, const void* b, const void* c)> unsupported =
      [](const Problem&, const void*, const void*, const void*) { return std::string(); };
  // The config it runs on the problem (for the CSV/JSON "config" column and TILEGEMM_LOG_CHOICE);
  // empty for cuBLAS.
  std::function<std::string(const Problem&, const void* a, const void* b, const void* c)> config;
  // A contender computing below FP32 accuracy (cuBLAS on TF32): its check's tolerance grows by this
  // much per k (|A|, |B| <= 1).
  double extra_tol_per_k = 0;
};

// cuBLAS first (the baseline), then each kernel (levels 4-6 once per raster order; empty: the
// library's default order; with `ffma_auto` Auto again under Math::FfmaOnly, as "auto-ffma"; with
// `cublas_tf32` on FP32 problems cuBLAS on TF32 tensor cores, as "cublas-tf32", after the baseline), each
// kernel family named in --kernels (its best config per problem), each --config, then with `schedules`
// the ranking's best config of each error group (a tile shape, a GEMV kernel) over every family.
// The typed entry's arguments of C = A*B (alpha 1, beta 0) for `p` laid out at a, b, c.
GemmArgs gemm_args(const Problem& p, const void* a, const void* b, const void* c);

std::vector<Contender> make_contenders(const Problem& p, const std::vector<Kernel>& kernels,
                                       const std::vector<std::string>& families,
                                       const std::vector<std::string>& configs, const std::vector<Raster>& rasters,
                                       bool schedules, bool ffma_auto, Cublas& cublas, bool cublas_tf32 = false);

}  // namespace tools
}  // namespace tilegemm
