// Host-side launch of the warp-tiled kernels: levels 6 and 7 (06_warp_tiled.cuh, 07_mma_tf32x3.cuh)
// and the split-K / stream-K kernel built on their blocks (split_tiled.cuh).
#pragma once
#include "core/cuda_check.hpp"
#include "core/device_context.hpp"
#include "core/kernel_launch.hpp"
#include "core/with_bool.hpp"
#include "kernels/gemm/06_warp_tiled.cuh"
#include "kernels/gemm/07_mma_tf32x3.cuh"
#include "dense/launch.hpp"

namespace tilegemm {
namespace detail {

// Thread blocks (one per output tile) a schedule launches for the problem.
template <class S>
long long warp_tiled_grid(const kernels::GemmParams& p) {
  return static_cast<long long>((p.m + S::kBlockM - 1) / S::kBlockM) * ((p.n + S::kBlockN - 1) / S::kBlockN);
}

// Calls launch.template run<kTransA, kTransB, kVecA, kVecB>() with the problem's transposes and the
// copy widths of the operands copied as-is (A^T, B): 16-byte copies when aligned. Operands
// contiguous along k go through the transposing 4-byte copy (the schedules' kTransposeK), whose width
// flag is unused and fixed to false, so each schedule has 9 instantiations, not 16.
// with_warp_tiled_copies: the copy-width part for one transpose pair (the split-K launchers
// instantiate each pair in a file of its own: launch_split_tiled.cuh).
template <bool kTA, bool kTB, class Launch>
void with_warp_tiled_copies(const CanonicalGemm& g, const Launch& launch) {
  constexpr bool kAsIsA = kTA, kAsIsB = !kTB;
  with_bool(kAsIsA && g.vec_a, [&](auto va) {
    with_bool(kAsIsB && g.vec_b, [&](auto vb) {
      constexpr bool kVA = decltype(va)::value, kVB = decltype(vb)::value;
      if constexpr ((kAsIsA || !kVA) && (kAsIsB || !kVB)) launch.template run<kTA, kTB, kVA, kVB>();
    });
  });
}
template <class Launch>
void with_warp_tiled_variant(const CanonicalGemm& g, const Launch& launch) {
  with_bool(g.trans_a, [&](auto ta) {
    with_bool(g.trans_b, [&](auto tb) {
      with_warp_tiled_copies<decltype(ta)::value, decltype(tb)::value>(g, launch);
    });
  });
}

// The whole-tile kernel of schedule S on the problem: level 6's (kTransposeK), or level 7's for a
// tensor-core schedule. after_prologue: launched to overlap the call's prologue (kernels/common/griddep.cuh).
template <class S>
struct WarpTiledLaunch {
  const CanonicalGemm& g;
  cudaStream_t stream;
  bool after_prologue = false;
  template <bool kTA, bool kTB, bool kVA, bool kVB>
  void run() const {
    void (*kernel)(kernels::GemmParams) = nullptr;
    if constexpr (S::kMma) {
      kernel = kernels::gemm_mma_tf32x3<S, kTA, kTB, kVA, kVB>;
    } else {
      static_assert(S::kTransposeK, "operands contiguous along k are transposed by the copies (copy width unused)");
      kernel = kernels::gemm_warp_tiled<S, kTA, kTB, kVA, kVB>;
    }
    ensure_smem_opt_in(kernel, S::kSmemBytes);
    launch_kernel(kernel, dim3(static_cast<unsigned>(warp_tiled_grid<S>(g.p))), dim3(S::kThreads), S::kSmemBytes,
                  stream, after_prologue, g.p);
  }
};
template <class S>
void launch_warp_tiled_schedule(const CanonicalGemm& g, cudaStream_t stream) {
  with_warp_tiled_variant(g, WarpTiledLaunch<S>{g, stream});
}

}  // namespace detail
}  // namespace tilegemm
