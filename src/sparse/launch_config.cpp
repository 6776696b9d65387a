// A BSR config onto its kernel: the ahead-of-time instantiation where one exists for the product,
// else the same template compiled at run time (NVRTC, src/jit/).
#include <string>

#include "core/device_context.hpp"
#include "sparse/launch.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

namespace {
const char* b(bool v) { return v ? "true" : "false"; }

}  // namespace

std::string bsr_can_implement(const BsrProblem& prob, const BsrConfig& c) {
  if (!c.is_tiled()) return "";
  return bsr_tile_problem(c.family, c.tile, prob.xwt, prob.vec());
}

JitRequest bsr_tiled_jit_request(BsrFamily f, const BsrTile& t, bool xwt, bool vec) {
  const std::string ns = "tilegemm::kernels::";
  const bool mma = f == BsrFamily::TiledTf32x3;
  const std::string schedule = ns + (mma ? "BsrMmaSchedule<" : "BsrTiledSchedule<") + std::to_string(t.ti) + ", " +
                               std::to_string(t.tj) + ", " + std::to_string(t.a) + ", " + std::to_string(t.b) + ", " +
                               std::to_string(t.kc) + ", " + std::to_string(t.stages) + ">";
  JitRequest r;
  r.header = mma ? "kernels/bsr/04_tiled_tf32x3.cuh" : "kernels/bsr/03_tiled.cuh";
  r.name_expression = "&" + ns + (mma ? "bsr_tiled_tf32x3<" : "bsr_tiled<") + schedule + ", " + b(xwt) + ", " + b(vec) + ">";
  return r;
}

BsrTiledKernel bsr_tiled_kernel(const BsrProblem& prob, const BsrConfig& c) {
  if (!c.jit) {
    const BsrTiledKernel k = compiled_bsr_kernel(bsr_schedule_index(c.family, c.tile), prob.xwt, prob.vec());
    if (k.fn) return k;
  }
  BsrTiledKernel k;
  k.fn = jit_kernel(current_device_context(), bsr_tiled_jit_request(c.family, c.tile, prob.xwt, prob.vec()));
  k.threads = bsr_threads(c.family, c.tile);
  k.smem_bytes = bsr_smem_bytes(c.family, c.tile, prob.xwt);
  k.tile_i = c.tile.ti;
  k.tile_j = c.tile.tj;
  return k;
}

void launch_bsr_config(const BsrProblem& prob, const BsrConfig& c, cudaStream_t stream) {
  switch (c.family) {
    case BsrFamily::Reduction: launch_bsr_reduction(prob, stream); return;
    case BsrFamily::SmallM: launch_bsr_small_m(prob, stream); return;
    default: break;
  }
  const std::string why = bsr_can_implement(prob, c);
  if (!why.empty()) throw Error(ErrorCode::Internal, "launch_bsr_config: " + to_string(c) + ": " + why);
  launch_bsr_tiled_at(prob, bsr_tiled_kernel(prob, c), stream);
}

size_t bsr_workspace_bytes(const BsrProblem& prob, const BsrConfig& c) {
  if (!c.is_tiled()) return 0;
  const std::string why = bsr_can_implement(prob, c);
  if (!why.empty()) throw Error(ErrorCode::InvalidArgument, "bsr_workspace_bytes: " + to_string(c) + ": " + why);
  return plan_bsr_tiled(prob, bsr_tiled_kernel(prob, c)).workspace_bytes();
}

}  // namespace detail
}  // namespace tilegemm
