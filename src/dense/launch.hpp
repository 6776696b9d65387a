// Internal launch layer: the canonical row-major problem and the per-level launchers.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/with_bool.hpp"
#include "dense/config.hpp"
#include "kernels/gemm/params.hpp"
#include "jit/jit.hpp"
#include "tilegemm/gemm.hpp"
#include "tilegemm/types.hpp"

namespace tilegemm {
namespace detail {

// The tiled kernels (level 6 and the split-K / stream-K kernel) form the offsets of their copies of
// A and B in 32 bits (06_warp_tiled.cuh): each of A and B may span at most this many elements. The
// other kernels, and every kernel's writes of C, use 64-bit offsets.
inline constexpr int64_t kMaxTiledExtent = 2147483647;

// The problem after the host launcher reduced it to row-major form (see kernels::GemmParams).
struct CanonicalGemm {
  kernels::GemmParams p;
  bool trans_a = false, trans_b = false;
  // 16-byte accesses along the operand's contiguous dimension are allowed: its pointer is 16-byte
  // aligned and its leading dimension a multiple of 4.
  bool vec_a = false, vec_b = false;
  // Not 16-byte aligned, but every stored row at the same offset from a 16-byte boundary (a pointer
  // offset with a leading dimension that is a multiple of 4): the GEMV columns kernels shift their
  // tiles to the boundary (gemv_common.cuh, GemvColsW::Shifted).
  bool shift_a = false, shift_b = false;
  // shift_a and shift_b, A and B at the same offset: X's rows of k then sit where the staged GEMV's
  // stages find W's (gemv_rows_staged.cuh copies them 16 bytes at a time).
  bool shifts_match = false;
  bool tiled_offsets_fit = true;  // A and B span at most kMaxTiledExtent elements
};

// The call after validation, reduced to the canonical row-major problem (column-major swaps the
// operands), with the copy widths its pointers and leading dimensions allow. No checks: the caller
// validated the arguments (tilegemm::check_gemm_args).
CanonicalGemm canonicalize(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                           float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                           float beta, float* c, int64_t ldc, Raster raster);

// Levels 1-5 (tiled levels use p.raster).
void launch_ladder(Kernel level, const CanonicalGemm& g, cudaStream_t stream);
// Level 6's schedule for the problem: Large or Small (src/dense/warp_tiled_default.hpp), by
// alignment and wave efficiency on `sms` SMs (docs/perf-notes.md #17).
struct WarpTiledPlan {
  bool large = true;
};
WarpTiledPlan plan_warp_tiled(const CanonicalGemm& g, int sms);
// Level 6 with the planned schedule.
void launch_warp_tiled(const CanonicalGemm& g, const WarpTiledPlan& plan, cudaStream_t stream);
// C = beta * C (k == 0 or alpha == 0), C m x n of `type` (F32, BF16, F16), ldc elements apart.
void launch_scale(void* c, DType type, int m, int n, int ldc, float beta, cudaStream_t stream);
// C = activation(C + bias) (kernels/gemm/epilogue_pass.cuh): the fused epilogue of a family that does
// not apply it in its stores. bias: m values (PerRow) or n (PerColumn) of bias_type (F32 or `type`).
void launch_epilogue_pass(void* c, DType type, int m, int n, int64_t ldc, const void* bias, BiasKind bias_kind,
                          DType bias_type, Activation activation, int sm_count, cudaStream_t stream);

// The split-K / stream-K kernel (split_tiled.cuh) with compiled schedule kTiledSchedules[index]
// (config.hpp), g.p.raster's tile order and `units` thread blocks.
// after_prologue: launched right after launch_prologue, overlapping it (kernels/common/griddep.cuh).
void launch_split_tiled(int index, const CanonicalGemm& g, const kernels::SplitTileParams& sp, long long units,
                        cudaStream_t stream, bool after_prologue = false);
// The same kernels for any schedule tile_shape_problem() accepts, compiled at run time with NVRTC on
// first use and cached in memory (per device) and on disk (src/jit/jit.hpp).
// Its NVRTC request: the instantiation for schedule `t` (FMA order 3, transposing copies, as
// TiledScheduleAt) and the problem's variant (with_warp_tiled_variant's rule: 16-byte copies only for
// operands copied as-is and aligned); `split`: the split kernel, else level 6's.
JitRequest tiled_jit_request(const TileShape& t, const CanonicalGemm& g, bool split);
void launch_split_tiled_jit(const TileShape& t, const CanonicalGemm& g, const kernels::SplitTileParams& sp,
                            long long units, cudaStream_t stream, bool after_prologue = false);
// The GEMV kernel of config c in form f (gemv_rows.cuh, gemv_cols.cuh, or gemv_cols_one.cuh for
// gemv-cols at s = 1 with c.gemv_lanes; gemv_rows_staged.cuh where f.staging is not Registers),
// `units` thread blocks.
void launch_gemv(const GemmConfig& c, const GemvForm& f, const kernels::GemvParams& p, long long units,
                 cudaStream_t stream, bool after_prologue = false);
// The one-row columns kernel (gemv_cols_one.cuh, `lanes` lanes per W row) and the staged rows kernel
// (gemv_rows_staged.cuh, f.staging) that launch_gemv dispatches to: each in a file of its own.
void launch_gemv_one_row(int lanes, const GemvForm& f, const kernels::GemvParams& p, long long units,
                         cudaStream_t stream, bool after_prologue);
void launch_gemv_staged(const GemvForm& f, const kernels::GemvParams& p, long long units, cudaStream_t stream,
                        bool after_prologue);
// The same GEMV kernel compiled at run time (launch_jit.cpp): its NVRTC request and its launch.
JitRequest gemv_jit_request(const GemmConfig& c, const GemvForm& f);
void launch_gemv_jit(const GemmConfig& c, const GemvForm& f, const kernels::GemvParams& p, long long units,
                     cudaStream_t stream, bool after_prologue = false);

// The call's prologue (prologue.cuh): zeroes the split-K counters and packs operands. The product
// launched next passes after_prologue = true to overlap it (kernels/common/griddep.cuh).
void launch_prologue(const kernels::PrologueParams& p, cudaStream_t stream);

}  // namespace detail
}  // namespace tilegemm
