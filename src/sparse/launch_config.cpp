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

BsrLaunchFn compiled_launcher(int index, bool xwt, bool vec) {
  if (index < 0) return nullptr;
  if (index >= kFirstBsrCandidate) return candidate_launcher(index, xwt, vec);
  const BsrLaunchFn f = tiled_default_launcher(index, xwt, vec);
  return f ? f : tf32x3_default_launcher(index, xwt, vec);
}
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
  r.header = mma ? "sparse/kernels/04_tiled_tf32x3.cuh" : "sparse/kernels/03_tiled.cuh";
  r.name_expression = "&" + ns + (mma ? "bsr_tiled_tf32x3<" : "bsr_tiled<") + schedule + ", " + b(xwt) + ", " + b(vec) + ">";
  return r;
}

void launch_bsr_tiled_jit(const BsrProblem& prob, const BsrConfig& c, cudaStream_t stream) {
  const void* kernel = jit_kernel(current_device_context(), bsr_tiled_jit_request(c.family, c.tile, prob.xwt, prob.vec()));
  launch_bsr_tiled_at(prob, kernel, bsr_threads(c.family, c.tile), bsr_smem_bytes(c.family, c.tile, prob.xwt), c.tile.ti,
                      c.tile.tj, stream);
}

void launch_bsr_config(const BsrProblem& prob, const BsrConfig& c, cudaStream_t stream) {
  switch (c.family) {
    case BsrFamily::Reduction: launch_bsr_reduction(prob, stream); return;
    case BsrFamily::SmallM: launch_bsr_small_m(prob, stream); return;
    default: break;
  }
  const std::string why = bsr_can_implement(prob, c);
  if (!why.empty()) throw Error(ErrorCode::Internal, "launch_bsr_config: " + to_string(c) + ": " + why);
  const BsrLaunchFn compiled = c.jit ? nullptr : compiled_launcher(bsr_schedule_index(c.family, c.tile), prob.xwt, prob.vec());
  if (compiled) compiled(prob, stream);
  else launch_bsr_tiled_jit(prob, c, stream);
}

}  // namespace detail
}  // namespace tilegemm
