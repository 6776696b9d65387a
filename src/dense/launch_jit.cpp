// Dense kernels compiled at run time: level 6's kernel and the split-K / stream-K kernel for a tiled
// schedule, and the GEMV kernels: the same templates launch_split_tiled.cuh and launch_gemv.cu
// instantiate ahead of time, named as NVRTC name expressions.
#include <cuda_runtime_api.h>

#include <string>

#include "core/cuda_check.hpp"
#include "core/device_context.hpp"
#include "core/kernel_launch.hpp"
#include "dense/launch.hpp"
#include "jit/jit.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

namespace {
const char* b(bool v) { return v ? "true" : "false"; }
}  // namespace

JitRequest tiled_jit_request(const TileShape& t, const CanonicalGemm& g, bool split) {
  const bool ta = g.trans_a, tb = g.trans_b;
  const bool mma = t.tensor_cores();
  // Level 6 copies only the operands it takes as-is (A^T, B) 16 bytes at a time; level 7 both.
  const bool va = mma ? g.vec_a : ta && g.vec_a, vb = mma ? g.vec_b : !tb && g.vec_b;
  const std::string ns = "tilegemm::kernels::";
  auto n = [](int v) { return std::to_string(v); };
  const std::string schedule =
      mma ? ns + "MmaTf32x3Schedule<" + n(t.bm) + ", " + n(t.bn) + ", " + n(t.bk) + ", " + n(t.wm) + ", " + n(t.wn) + ", " +
                n(t.stages) + ", " + n(t.blocks) + ", " + n(t.mma_steps) + ">"
          : ns + "WarpTiledSchedule<" + n(t.bm) + ", " + n(t.bn) + ", " + n(t.bk) + ", " + n(t.wm) + ", " + n(t.wn) + ", " +
                n(t.tm) + ", " + n(t.tn) + ", " + n(t.stages) + ", " + n(t.blocks) + ", 3, true>";
  const char* whole_kernel = mma ? "gemm_mma_tf32x3<" : "gemm_warp_tiled<";
  JitRequest r;
  r.header = "kernels/gemm/split_tiled.cuh";
  r.name_expression = "&" + ns + (split ? "gemm_split_tiled<" : whole_kernel) + schedule + ", " + b(ta) + ", " +
                      b(tb) + ", " + b(va) + ", " + b(vb) + ">";
  return r;
}

void launch_split_tiled_jit(const TileShape& t, const CanonicalGemm& g, const kernels::SplitTileParams& sp,
                            long long units, cudaStream_t stream, bool after_prologue) {
  const std::string why = tile_shape_problem(t);
  if (!why.empty()) throw Error(ErrorCode::Internal, "launch_split_tiled_jit: " + why);
  const bool split = sp.dp_tiles != units;  // nothing split: level 6's kernel, as launch_split_tiled_ops
  const void* kernel = jit_kernel(current_device_context(), tiled_jit_request(t, g, split));
  ensure_smem_opt_in(kernel, t.smem_bytes());
  kernels::GemmParams p = g.p;
  kernels::SplitTileParams s = sp;
  void* args[] = {&p, &s};  // gemm_warp_tiled takes p alone
  launch_kernel(kernel, dim3(static_cast<unsigned>(units)), dim3(t.threads()), t.smem_bytes(), stream, after_prologue,
                args);
}

JitRequest gemv_jit_request(const GemmConfig& c, const GemvForm& f) {
  const bool vec_w = f.vec_w;
  if (f.staging != GemvStaging::Registers) {
    JitRequest r;
    r.header = "kernels/gemm/gemv_rows_staged.cuh";
    r.name_expression = std::string("&tilegemm::kernels::gemv_rows_staged<16, tilegemm::kernels::GemvXStage::") +
                        (f.staging == GemvStaging::XRowsAlongK ? "KRows" : "SRows") + ", " + b(vec_w) + ", " +
                        b(f.vec_x) + ">";
    return r;
  }
  const bool one_row = gemv_one_row(c), rows = c.family == GemmFamily::GemvRows;
  const std::string kernel = rows ? "gemv_rows" : one_row ? "gemv_cols_one" : "gemv_cols";
  // The columns kernels take how they read W's rows (gemv_common.cuh, GemvColsW), the rows kernel
  // whether W's rows are aligned.
  const std::string w = rows     ? b(vec_w)
                        : vec_w  ? "tilegemm::kernels::GemvColsW::Aligned"
                        : f.shift_w ? "tilegemm::kernels::GemvColsW::Shifted"
                                    : "tilegemm::kernels::GemvColsW::Scalar";
  JitRequest r;
  r.header = "kernels/gemm/" + kernel + ".cuh";
  r.name_expression =
      "&tilegemm::kernels::" + kernel + "<" + std::to_string(one_row ? c.gemv_lanes : c.gemv_s) + ", " + w + ">";
  return r;
}

void launch_gemv_jit(const GemmConfig& c, const GemvForm& f, const kernels::GemvParams& p, long long units,
                     cudaStream_t stream, bool after_prologue) {
  const void* kernel = jit_kernel(current_device_context(), gemv_jit_request(c, f));
  const int smem = f.staging != GemvStaging::Registers ? kGemvStagedSmemBytes : 0;
  if (smem > 0) ensure_smem_opt_in(kernel, smem);
  kernels::GemvParams q = p;
  void* args[] = {&q};
  launch_kernel(kernel, dim3(static_cast<unsigned>(units)), dim3(gemv_threads(c)), smem, stream, after_prologue, args);
}

}  // namespace detail
}  // namespace tilegemm
