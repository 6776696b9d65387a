#include "contenders.hpp"

#include <sstream>

#include "dense/warp_tiled_candidates.hpp"
#include "tilegemm/gemm.hpp"

namespace tilegemm {
namespace tools {

namespace {

Contender library_contender(Kernel kernel, const std::string& raster_name) {
  GemmOptions opt;
  opt.kernel = kernel;
  std::string label = to_string(kernel);
  if (!raster_name.empty()) {
    opt.raster = parse_raster(raster_name, "--rasters");
    label += "@" + to_string(opt.raster);
  }
  Contender c;
  c.label = label;
  c.run = [opt](const Problem& p, const float* a, const float* b, float* cc) {
    sgemm(p.layout, p.op_a, p.op_b, p.m, p.n, p.k, 1.0f, a, p.lda(), b, p.ldb(), 0.0f, cc, p.ldc(), nullptr, opt);
  };
  return c;
}

Contender candidate_contender(const detail::WarpTiledCandidate& cand, Raster raster) {
  Contender c;
  c.label = (cand.name.rfind("05:", 0) == 0 ? cand.name : "06:" + cand.name) + "@" + to_string(raster);
  auto launch = cand.launch;
  c.run = [launch, raster](const Problem& p, const float* a, const float* b, float* cc) {
    detail::CanonicalGemm g;
    g.p.m = static_cast<int>(p.m); g.p.n = static_cast<int>(p.n); g.p.k = static_cast<int>(p.k);
    g.p.alpha = 1.0f; g.p.beta = 0.0f;
    g.p.a = a; g.p.lda = static_cast<int>(p.lda());
    g.p.b = b; g.p.ldb = static_cast<int>(p.ldb());
    g.p.c = cc; g.p.ldc = static_cast<int>(p.ldc());
    g.p.raster = static_cast<int>(raster);
    g.p.c_vec4 = p.ldc() % 4 == 0;  // bench buffers come straight from cudaMalloc
    g.vec_a = p.lda() % 4 == 0;  // cudaMalloc'd, so 16-byte aligned
    g.vec_b = p.ldb() % 4 == 0;
    launch(g, nullptr);
  };
  c.unsupported = [](const Problem& p) {
    const bool ok = p.layout == Layout::RowMajor && p.op_a == Op::N && p.op_b == Op::N && p.k > 0;
    return ok ? std::string() : std::string("candidates run row-major NN with K > 0 only");
  };
  return c;
}

}  // namespace

std::vector<Contender> make_contenders(const std::string& kernels, const std::vector<std::string>& rasters,
                                       bool schedules, Cublas& cublas) {
  std::vector<Contender> out;
  Contender base;
  base.label = "cublas";
  base.is_baseline = true;
  base.run = [&cublas](const Problem& p, const float* a, const float* b, float* c) {
    cublas.sgemm(p, 1.0f, a, b, 0.0f, c);
  };
  out.push_back(base);

  std::vector<Kernel> list;
  std::stringstream ss(kernels);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item == "all") {
      for (int level = 1; level <= kNumLadderLevels; ++level) list.push_back(static_cast<Kernel>(level));
    } else if (!item.empty()) {
      list.push_back(parse_kernel(item, "--kernels"));
    }
  }
  for (Kernel k : list) {
    const bool rasterized = k == Kernel::RegisterTiled || k == Kernel::Vectorized || k == Kernel::WarpTiled;
    if (rasters.empty() || !rasterized) {
      out.push_back(library_contender(k, ""));
    } else {
      for (const std::string& r : rasters) out.push_back(library_contender(k, r));
    }
  }
  if (schedules) {
    const std::vector<std::string> names = rasters.empty() ? std::vector<std::string>{"hilbert"} : rasters;
    for (const auto& cand : detail::warp_tiled_candidates())
      for (const std::string& r : names) out.push_back(candidate_contender(cand, parse_raster(r, "--rasters")));
  }
  return out;
}

}  // namespace tools
}  // namespace tilegemm
