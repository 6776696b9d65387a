// Launchers for ladder levels 1-5 and the C = beta*C quick return.
#include "core/cuda_check.hpp"
#include "kernels/gemm/00_scale.cuh"
#include "kernels/gemm/01_naive.cuh"
#include "kernels/gemm/02_coalesced.cuh"
#include "kernels/gemm/03_shared_tiled.cuh"
#include "kernels/gemm/04_register_tiled.cuh"
#include "kernels/gemm/05_vectorized.cuh"
#include "kernels/gemm/epilogue_pass.cuh"
#include "core/kernel_launch.hpp"
#include "dense/launch.hpp"
#include "ops/fused_epilogue.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

namespace {
unsigned blocks_for(int m, int n, int tile_m, int tile_n) {
  return static_cast<unsigned>(static_cast<long long>((m + tile_m - 1) / tile_m) *
                               ((n + tile_n - 1) / tile_n));
}
}  // namespace

void launch_scale(void* c, DType type, int m, int n, int ldc, float beta, cudaStream_t stream) {
  const unsigned blocks = blocks_for(m, n, 1, 256);
  if (type == DType::BF16) kernels::scale_c<kernels::kScaleBf16><<<blocks, 256, 0, stream>>>(c, m, n, ldc, beta);
  else if (type == DType::F16) kernels::scale_c<kernels::kScaleF16><<<blocks, 256, 0, stream>>>(c, m, n, ldc, beta);
  else kernels::scale_c<kernels::kScaleF32><<<blocks, 256, 0, stream>>>(c, m, n, ldc, beta);
  TILEGEMM_CHECK_LAUNCH();
}

void launch_epilogue_pass(void* c, DType type, int m, int n, int64_t ldc, const void* bias, BiasKind bias_kind,
                          DType bias_type, Activation activation, int sm_count, cudaStream_t stream) {
  const kernels::FusedEpilogue e = ops::fused_epilogue(bias_kind, bias, bias_type, activation);
  const unsigned blocks = grid_stride_blocks(int64_t(m) * n, 256, 8, sm_count);
  if (type == DType::BF16)
    kernels::epilogue_pass<kernels::bf16_t><<<blocks, 256, 0, stream>>>(static_cast<kernels::bf16_t*>(c), m, n, ldc, e);
  else if (type == DType::F16)
    kernels::epilogue_pass<kernels::f16_t><<<blocks, 256, 0, stream>>>(static_cast<kernels::f16_t*>(c), m, n, ldc, e);
  else
    kernels::epilogue_pass<float><<<blocks, 256, 0, stream>>>(static_cast<float*>(c), m, n, ldc, e);
  TILEGEMM_CHECK_LAUNCH();
}

void launch_ladder(Kernel level, const CanonicalGemm& g, cudaStream_t stream) {
  const kernels::GemmParams& p = g.p;
  with_bool(g.trans_a, [&](auto ta) {
    with_bool(g.trans_b, [&](auto tb) {
      constexpr bool kTA = decltype(ta)::value, kTB = decltype(tb)::value;
      switch (level) {
        case Kernel::Naive: {
          constexpr int T = kernels::kNaiveTile;
          kernels::gemm_naive<kTA, kTB><<<blocks_for(p.m, p.n, T, T), dim3(T, T), 0, stream>>>(p);
          break;
        }
        case Kernel::Coalesced: {
          constexpr int R = kernels::kCoalescedRows, C = kernels::kCoalescedCols;
          kernels::gemm_coalesced<kTA, kTB><<<blocks_for(p.m, p.n, R, C), R * C, 0, stream>>>(p);
          break;
        }
        case Kernel::SharedTiled: {
          constexpr int T = kernels::kSharedTile;
          kernels::gemm_shared_tiled<kTA, kTB>
              <<<blocks_for(p.m, p.n, T, T), dim3(T, T), 0, stream>>>(p);
          break;
        }
        case Kernel::RegisterTiled: {
          using S = kernels::RegisterTiledDefault;
          kernels::gemm_register_tiled<S, kTA, kTB>
              <<<blocks_for(p.m, p.n, S::kBlockM, S::kBlockN), S::kThreads, 0, stream>>>(p);
          break;
        }
        case Kernel::Vectorized: {
          using S = kernels::VectorizedDefault;
          const unsigned blocks = blocks_for(p.m, p.n, S::kBlockM, S::kBlockN);
          with_bool(g.vec_a, [&](auto va) {
            with_bool(g.vec_b, [&](auto vb) {
              constexpr bool kVA = decltype(va)::value, kVB = decltype(vb)::value;
              kernels::gemm_vectorized<S, kTA, kTB, kVA, kVB><<<blocks, S::kThreads, 0, stream>>>(p);
            });
          });
          break;
        }
        default:
          throw Error(ErrorCode::Internal, "launch_ladder: level " +
                                               std::to_string(static_cast<int>(level)) +
                                               " is not a level 1-5 kernel");
      }
    });
  });
  TILEGEMM_CHECK_LAUNCH();
}

}  // namespace detail
}  // namespace tilegemm
