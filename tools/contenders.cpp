#include "contenders.hpp"

#include "dense/warp_tiled_candidates.hpp"
#include "tilegemm/gemm.hpp"

namespace tilegemm {
namespace tools {

namespace {

// raster: nullptr = the library's default order (and no "@order" in the label).
Contender library_contender(Kernel kernel, const Raster* raster) {
  GemmOptions opt;
  opt.kernel = kernel;
  std::string label = to_string(kernel);
  if (raster) {
    opt.raster = *raster;
    label += "@" + to_string(opt.raster);
  }
  Contender c;
  c.label = label;
  c.run = [opt](const Problem& p, const float* a, const float* b, float* cc) {
    sgemm(p.layout, p.op_a, p.op_b, p.m, p.n, p.k, 1.0f, a, p.lda(), b, p.ldb(), 0.0f, cc, p.ldc(), bench_stream(),
          opt);
  };
  return c;
}

Contender candidate_contender(const detail::WarpTiledCandidate& cand, Raster raster) {
  Contender c;
  c.label = (cand.name.rfind("05:", 0) == 0 ? cand.name : "06:" + cand.name) + "@" + to_string(raster);
  auto launch = cand.launch;
  c.run = [launch, raster](const Problem& p, const float* a, const float* b, float* cc) {
    const detail::CanonicalGemm g = detail::canonicalize(p.layout, p.op_a, p.op_b, p.m, p.n, p.k, 1.0f, a,
                                                          p.lda(), b, p.ldb(), 0.0f, cc, p.ldc(), raster);
    launch(g, bench_stream());
  };
  c.unsupported = [](const Problem& p) {
    const bool ok = p.layout == Layout::RowMajor && p.op_a == Op::N && p.op_b == Op::N && p.k > 0;
    return ok ? std::string() : std::string("candidates run row-major NN with K > 0 only");
  };
  return c;
}

}  // namespace

std::vector<Contender> make_contenders(const std::vector<Kernel>& kernels, const std::vector<Raster>& rasters,
                                       bool schedules, Cublas& cublas) {
  std::vector<Contender> out;
  Contender base;
  base.label = "cublas";
  base.is_baseline = true;
  base.run = [&cublas](const Problem& p, const float* a, const float* b, float* c) {
    cublas.sgemm(p, 1.0f, a, b, 0.0f, c);
  };
  out.push_back(base);

  for (Kernel k : kernels) {
    const bool rasterized = k == Kernel::RegisterTiled || k == Kernel::Vectorized || k == Kernel::WarpTiled;
    if (rasters.empty() || !rasterized) {
      out.push_back(library_contender(k, nullptr));
    } else {
      for (const Raster& r : rasters) out.push_back(library_contender(k, &r));
    }
  }
  if (schedules) {
    const std::vector<Raster> orders = rasters.empty() ? std::vector<Raster>{Raster::Hilbert} : rasters;
    for (const auto& cand : detail::warp_tiled_candidates())
      for (Raster r : orders) out.push_back(candidate_contender(cand, r));
  }
  return out;
}

}  // namespace tools
}  // namespace tilegemm
