// K-major TF32 operands for ladder level 8 on FP32 data (08_wgmma_tma.cuh, wgmma_tf32.cuh), made
// once before the product: wgmma reads TF32 only K-major and does not round, and splitting B in each
// block's shared memory (a pass over every stage) took the shared-memory bandwidth the wgmmas need
// (68 TFLOP/s at 4096^3 on an H200, 2026-11-28).
//
// An operand as stored (K-major: n lines of k; kMn: k lines of n; ld elements apart, any alignment;
// B, or for TF32 also A with m for n) becomes `out`, n lines of ld_out = kPlanes * 32 * ceil(k / 32)
// floats, zeros past k: for 3xTF32 (kPlanes 2) per k step of 32 two runs of 32 values, big = tf32(v)
// and small = tf32(v - big) (both rounded to nearest), each in tf32_k_position's order (the A
// fragments' order, wgmma_tf32.cuh); for TF32 (kPlanes 1) the values as they are, in k order (wgmma
// reads both operands' tiles alike).
// With keys (3xTF32), keys[j / 128] folds the guard's nonzero_magnitude_key of column block j / 128
// (atomicMin; the launch sets them to ~0 first). Tiles of 32 k x 32 columns go through shared memory
// so that reads and writes are both along rows. `batches` operands, b_stride elements apart, become
// one `out` after the other (n * ld_out floats each; keys key_stride apart). Device code only.
#pragma once
#include "kernels/common/mma_tf32x3.cuh"
#include "kernels/common/wgmma_tf32.cuh"

namespace tilegemm {
namespace kernels {

template <bool kMn, int kPlanes>
__global__ void __launch_bounds__(256) split_b_tf32(const float* b_all, long long ldb, int n, int k, float* out_all,
                                                    unsigned* keys_all, int batches, long long b_stride,
                                                    int key_stride) {
  // [k step][k][column], one padding column: both passes conflict-free. A block takes 32 columns x
  // kSteps k steps at a time: 16 loads in flight per thread (4 steps measured 1.17 TB/s of an
  // H200's 4.8 with one, 2026-11-28), and each line's kSteps x planes x 128 bytes written together.
  constexpr int kSteps = 4;
  __shared__ float tile[kSteps][32][33];
  const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
  const int col_tiles = (n + 31) / 32, k_steps = (k + 31) / 32, k_groups = (k_steps + kSteps - 1) / kSteps;
  const long long ld_out = static_cast<long long>(kPlanes) * 32 * k_steps;
  const long long per_batch = static_cast<long long>(col_tiles) * k_groups;
  for (long long t_all = blockIdx.x; t_all < per_batch * batches; t_all += gridDim.x) {
    const long long batch = t_all / per_batch, t = t_all - batch * per_batch;
    const float* b = b_all + batch * b_stride;
    float* out = out_all + batch * n * ld_out;
    const int j0 = static_cast<int>(t % col_tiles) * 32, s0 = static_cast<int>(t / col_tiles) * kSteps;
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
      const int k0 = (s0 + s) * 32;
#pragma unroll
      for (int r = ty; r < 32; r += 8) {
        if constexpr (kMn) {  // line k0 + r, columns j0 + tx
          const bool in = k0 + r < k && j0 + tx < n;
          tile[s][r][tx] = in ? b[static_cast<long long>(k0 + r) * ldb + j0 + tx] : 0.0f;
        } else {  // line j0 + r, k0 + tx
          const bool in = j0 + r < n && k0 + tx < k;
          tile[s][tx][r] = in ? b[static_cast<long long>(j0 + r) * ldb + k0 + tx] : 0.0f;
        }
      }
    }
    __syncthreads();
    unsigned key = 0xffffffffu;
    const int at = kPlanes == 2 ? tf32_k_position(tx) : tx;  // the order the A fragments share, or k's
#pragma unroll
    for (int s = 0; s < kSteps; ++s)
#pragma unroll
      for (int r = ty; r < 32; r += 8) {
        const int j = j0 + r;
        unsigned big, small;
        tf32_parts<kPlanes>(tile[s][tx][r], big, small, key);
        if (j < n && s0 + s < k_steps) {
          float* line = out + static_cast<long long>(j) * ld_out + static_cast<long long>(s0 + s) * 32 * kPlanes;
          line[at] = __uint_as_float(big);
          if constexpr (kPlanes == 2) line[32 + at] = __uint_as_float(small);
        }
      }
    if constexpr (kPlanes == 2) {
#pragma unroll
      for (int o = 16; o > 0; o /= 2) key = min(key, __shfl_xor_sync(0xffffffffu, key, o));
      if (tx == 0 && key != 0xffffffffu) atomicMin(&keys_all[batch * key_stride + j0 / 128], key);
    }
    __syncthreads();
  }
}

}  // namespace kernels
}  // namespace tilegemm
