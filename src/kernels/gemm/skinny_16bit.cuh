// Not a ladder level: 16-bit products with a short side (up to 16 rows) on mma.sync tensor cores,
// streaming the long operand once (family skinny16): C = alpha * X W^T + beta * C, X (rows x k) the
// short operand, W (lines x k) the long one, in bf16 or f16 with FP32 accumulation. This is decode
// and the skinny products of a model (x @ W with few tokens, W @ x with few columns) in whichever
// orientation W is stored.
//
// A block owns 16 lines of W per warp (skinny_16bit_params.hpp) and one k slice. Stages of 128 k
// (W: 4 KB per warp, X: 2 KB per 8 rows) go through shared memory with 16-byte cp.async; the
// warps read them with ldmatrix (transposed where W or X is stored along lines or rows rather than
// along k), so W is the m16 side of m16n8k16 and X's rows the n8 side. One X row costs the same
// memory traffic as eight, and no CUDA-core FMAs or conversions: a kernel of FP32 FMAs over 16-byte
// loads of W (one warp per line) fell behind memory beyond 4 rows (16 x 4096 x 4096: 116 us, H100,
// 2026-11-28) and reached 42-76 % of the copy bandwidth on decode.
// Rows in shared memory are XOR-swizzled so that the 8 rows of one ldmatrix matrix hit
// 8 different 16-byte bank groups. An X whose rows or k are not 16-byte copyable is copied element by
// element through registers one stage ahead (any strides: x @ W with a column vector x).
// Long k with few tiles is cut into k slices, the blocks of one thread-block cluster, summed through
// distributed shared memory.
//
// Device code only.
#pragma once
#include "kernels/common/cp_async.cuh"
#include "kernels/common/mma_16bit.cuh"
#include "kernels/common/fused_epilogue.cuh"
#include "kernels/common/out_convert.cuh"
#include "kernels/common/hopper.cuh"
#include "kernels/gemm/skinny_16bit_params.hpp"

namespace tilegemm {
namespace kernels {

struct Skinny16Shape {
  static constexpr int kLines = kSkinny16Lines;  // lines of W per block, 16 per warp
  static constexpr int kK = kSkinny16K;          // k per stage
  static constexpr int kStages = kSkinny16Stages;
  static constexpr int kThreads = kSkinny16Threads;
  static constexpr int kWBytes = kLines * kK * 2;
};

// Byte offset of 16-byte chunk `chunk` of row `row` in a tile of rows of kChunks chunks (kK / 8: rows
// along k; W along its lines: kLines / 8; X along its rows: 1, 2, 4, 8): the chunk index is
// XORed with the row's position among the rows that share a 128-byte span (or with row % 8 for
// rows of 128 bytes or more), so 8 consecutive rows at one chunk are 8 bank groups apart.
template <int kChunks>
__device__ __forceinline__ int skinny16_swizzle(int row, int chunk) {
  if constexpr (kChunks >= 8) return (row * kChunks + (chunk ^ row % 8)) * 16;
  else return (row * kChunks + (chunk ^ (row / (8 / kChunks) % kChunks))) * 16;
}

template <bool kF16, class OutT, bool kWKMajor, int kRowTiles>
__global__ void __launch_bounds__(Skinny16Shape::kThreads) skinny_16bit(const Skinny16Params p) {
  using S = Skinny16Shape;
  constexpr int kStageBytes = skinny16_stage_bytes(kRowTiles);
  constexpr int kXRows = 8 * kRowTiles;
  constexpr int kXPerThread = kXRows * S::kK / S::kThreads;  // elements of a strided X per thread and stage
  char* smem = dynamic_smem<char>();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int tile = blockIdx.x / p.splits, slice = blockIdx.x % p.splits;
  const int l0 = tile * S::kLines;
  const int k_begin = slice * p.k_per_split;
  const int k_end = min(p.k, k_begin + p.k_per_split);
  const int stages = (k_end - k_begin + S::kK - 1) / S::kK;
  const unsigned short* w = static_cast<const unsigned short*>(p.w);
  const unsigned short* x = static_cast<const unsigned short*>(p.x);
  auto stage_at = [&](int s) { return smem + s % S::kStages * kStageBytes; };

  // W's kLines lines x kK of stage s: kLines rows of kK / 8 chunks along k (K-major W), or kK rows of
  // kLines / 8 chunks along its lines. Each thread's chunks keep their place from stage to stage: the
  // source pointers and shared offsets are computed once, a stage adds kK. Elements past k or the
  // last line are zeros (the source size of the copy), worked out only in the stages at an edge.
  constexpr int kKChunks = S::kK / 8;  // 16-byte chunks along k of a stage
  constexpr int kWRowChunks = kWKMajor ? kKChunks : S::kLines / 8;
  constexpr int kWCopies = S::kLines * kKChunks / S::kThreads;
  const unsigned short* w_src[kWCopies];
  int w_dst[kWCopies], w_line[kWCopies], w_k[kWCopies];  // w_k: relative to the stage
#pragma unroll
  for (int i = 0; i < kWCopies; ++i) {
    const int e = threadIdx.x + i * S::kThreads, r = e / kWRowChunks, c = e % kWRowChunks;
    w_line[i] = kWKMajor ? l0 + r : l0 + c * 8;
    w_k[i] = kWKMajor ? c * 8 : r;
    w_dst[i] = skinny16_swizzle<kWRowChunks>(r, c);
    w_src[i] = w + w_line[i] * p.w_line + (k_begin + w_k[i]) * p.w_k;
  }
  const bool w_whole_lines = l0 + S::kLines <= p.lines;
  auto copy_w = [&](int s, char* dst) {
    const int k0 = k_begin + s * S::kK;
    const long long step = static_cast<long long>(s) * S::kK * p.w_k;
    const bool whole = w_whole_lines && k0 + S::kK <= k_end;
#pragma unroll
    for (int i = 0; i < kWCopies; ++i) {
      int valid = 8;
      if (!whole) {
        const int line = w_line[i], k = k0 + w_k[i];
        valid = kWKMajor ? (line < p.lines ? min(8, max(0, k_end - k)) : 0)
                         : (k < k_end ? min(8, max(0, p.lines - line)) : 0);
      }
      cp_async_16_bytes(dst + w_dst[i], valid > 0 ? w_src[i] + step : w, 2 * valid);
    }
  };
  // X's kXRows rows x kK of stage s with 16-byte copies: rows of kK / 8 chunks along k, or kK rows
  // of kRowTiles chunks along X's rows; the same per-thread bookkeeping as W's.
  const bool x_k_major = p.x_form == Skinny16X::KMajor;
  constexpr int kXChunks = kXRows * kKChunks;  // either form
  constexpr int kXCopies = (kXChunks + S::kThreads - 1) / S::kThreads;
  const unsigned short* x_src[kXCopies];
  int x_dst[kXCopies], x_k_rel[kXCopies], x_valid[kXCopies];  // x_valid: elements inside X's rows
#pragma unroll
  for (int i = 0; i < kXCopies; ++i) {
    const int e = threadIdx.x + i * S::kThreads;
    const int r = x_k_major ? e / kKChunks : e / kRowTiles, c = x_k_major ? e % kKChunks : e % kRowTiles;
    x_k_rel[i] = x_k_major ? c * 8 : r;
    const int row = x_k_major ? r : c * 8;
    x_valid[i] = e >= kXChunks ? -1 : x_k_major ? (row < p.rows ? 8 : 0) : min(8, max(0, p.rows - row));
    x_dst[i] = x_k_major ? skinny16_swizzle<kKChunks>(r, c) : skinny16_swizzle<kRowTiles>(r, c);
    x_src[i] = x + row * p.x_row + (k_begin + x_k_rel[i]) * p.x_k;
  }
  auto copy_x = [&](int s, char* dst) {
    const int k0 = k_begin + s * S::kK;
    const long long step = static_cast<long long>(s) * S::kK * p.x_k;
    const bool whole = k0 + S::kK <= k_end;
#pragma unroll
    for (int i = 0; i < kXCopies; ++i) {
      if (x_valid[i] < 0) continue;  // no chunk for this thread
      int valid = x_valid[i];
      if (!whole && valid > 0) {
        const int k = k0 + x_k_rel[i];
        valid = x_k_major ? min(8, max(0, k_end - k)) : (k < k_end ? valid : 0);
      }
      cp_async_16_bytes(dst + x_dst[i], valid > 0 ? x_src[i] + step : x, 2 * valid);
    }
  };
  // A strided X element by element, into the K-major layout: consecutive threads walk the dimension
  // with the smaller stride, so the loads coalesce where either is contiguous. Element i of a thread
  // is (r0 + i dr, kk0 + i dk): one pointer and one step per thread.
  const bool rows_fastest = p.rows > 1 && p.x_row < p.x_k;
  const int r0 = rows_fastest ? threadIdx.x % kXRows : threadIdx.x / S::kK;
  const int kk0 = rows_fastest ? threadIdx.x / kXRows : threadIdx.x % S::kK;
  const int dr = rows_fastest ? 0 : S::kThreads / S::kK, dk = rows_fastest ? S::kThreads / kXRows : 0;
  auto load_x = [&](int s, unsigned short (&v)[kXPerThread]) {
    const int k0 = k_begin + s * S::kK;
    const unsigned short* at = x + r0 * p.x_row + (k0 + kk0) * p.x_k;
    const long long step = dr * p.x_row + dk * p.x_k;
#pragma unroll
    for (int i = 0; i < kXPerThread; ++i)
      v[i] = r0 + i * dr < p.rows && k0 + kk0 + i * dk < k_end ? __ldg(at + i * step) : 0;
  };
  auto store_x = [&](const unsigned short (&v)[kXPerThread], char* dst) {
#pragma unroll
    for (int i = 0; i < kXPerThread; ++i) {
      const int r = r0 + i * dr, kk = kk0 + i * dk;
      *reinterpret_cast<unsigned short*>(dst + skinny16_swizzle<kKChunks>(r, kk / 8) + kk % 8 * 2) = v[i];
    }
  };

  // acc[t]: the m16n8 fragment of lines warp * 16 + (lane / 4, + 8) and X rows 8 t + 2 (lane % 4), + 1.
  float acc[kRowTiles][4] = {};
  const bool x_along_rows = p.x_form == Skinny16X::RowMajor;
  auto multiply = [&](const char* stage) {
    const unsigned ws = smem_addr(stage), xs = ws + S::kWBytes;
    const int j = lane / 8, r8 = lane % 8, lw = warp * 16;  // lane's matrix and row in ldmatrix
#pragma unroll
    for (int s = 0; s < S::kK / 16; ++s) {
      unsigned a[4];  // lines lw .. lw + 15, k 16 s .. 16 s + 15
      if constexpr (kWKMajor)
        ldmatrix_x4<false>(a, ws + skinny16_swizzle<kKChunks>(lw + r8 + 8 * (j % 2), 2 * s + j / 2));
      else
        ldmatrix_x4<true>(a, ws + skinny16_swizzle<kWRowChunks>(16 * s + r8 + 8 * (j / 2), lw / 8 + j % 2));
#pragma unroll
      for (int t = 0; t < kRowTiles; t += 2) {  // X rows 8 t .. 8 t + 15
        const unsigned along_k = xs + skinny16_swizzle<kKChunks>(8 * (t + j / 2) + r8, 2 * s + j % 2);
        const unsigned along_rows = xs + skinny16_swizzle<kRowTiles>(16 * s + 8 * (j % 2) + r8, t + j / 2);
        if constexpr (kRowTiles == 1) {
          unsigned b[2];
          if (x_along_rows) ldmatrix_x2<true>(b, along_rows);
          else ldmatrix_x2<false>(b, along_k);
          mma_m16n8k16<kF16>(acc[0], a, b);
        } else {
          unsigned b[4];
          if (x_along_rows) ldmatrix_x4<true>(b, along_rows);
          else ldmatrix_x4<false>(b, along_k);
          const unsigned b0[2] = {b[0], b[1]}, b1[2] = {b[2], b[3]};
          mma_m16n8k16<kF16>(acc[t], a, b0);
          mma_m16n8k16<kF16>(acc[t + 1], a, b1);
        }
      }
    }
  };

  // The pipeline: kStages - 1 stages in flight ahead of the one multiplied. A strided X is loaded
  // into registers one iteration before its stores, which go to the stage freed by the barrier.
  const bool strided = p.x_form == Skinny16X::Strided;
  unsigned short xv[kXPerThread];
#pragma unroll
  for (int s = 0; s < S::kStages - 1; ++s) {
    if (s < stages) {
      copy_w(s, stage_at(s));
      if (strided) {
        load_x(s, xv);
        store_x(xv, stage_at(s) + S::kWBytes);
      } else {
        copy_x(s, stage_at(s) + S::kWBytes);
      }
    }
    cp_async_commit();
  }
  if (strided && S::kStages - 1 < stages) load_x(S::kStages - 1, xv);
  for (int t = 0; t < stages; ++t) {
    cp_async_wait<S::kStages - 2>();
    __syncthreads();  // stage t has landed for every thread; stage t - 1's buffer is free
    const int next = t + S::kStages - 1;
    if (next < stages) {
      char* dst = stage_at(next);
      copy_w(next, dst);
      if (strided) {
        store_x(xv, dst + S::kWBytes);
        if (next + 1 < stages) load_x(next + 1, xv);
      } else {
        copy_x(next, dst + S::kWBytes);
      }
    }
    cp_async_commit();
    multiply(stage_at(t));
  }
  cp_async_wait<0>();

  // Split-K: the k slices of a tile are the blocks of one cluster (rank = slice). Each block leaves
  // its sums in its shared memory; the first block adds the others' through distributed shared
  // memory in slice order (the same bits whichever block finished first) and stores the tile. No
  // workspace, no counters, no second launch.
  if (p.splits > 1) {
    constexpr int kPer = kRowTiles * 4;
    __syncthreads();  // every warp is done with the stages
    float* mine = reinterpret_cast<float*>(smem);
#pragma unroll
    for (int t = 0; t < kRowTiles; ++t)
#pragma unroll
      for (int e = 0; e < 4; ++e) mine[(t * 4 + e) * S::kThreads + threadIdx.x] = acc[t][e];
    hopper::cluster_sync();  // every block's sums are written
    if (slice == 0) {
      for (int r = 1; r < p.splits; ++r)
#pragma unroll
        for (int t = 0; t < kRowTiles; ++t)
#pragma unroll
          for (int e = 0; e < 4; ++e)
            acc[t][e] += hopper::ld_shared_in(smem_addr(mine + (t * 4 + e) * S::kThreads + threadIdx.x), r);
    }
    hopper::cluster_sync();  // the first block has read them: the others may exit
    static_assert(kPer * S::kThreads * 4 <= S::kStages * kStageBytes, "the sums fit the stages");
    if (slice != 0) return;
  }
  // Each thread holds X rows 2 (lane % 4) and + 1 of two lines per row group: one paired store where
  // C's rows are adjacent elements (x @ W with few columns: c_row == 1) and the pair is aligned.
  OutT* c = static_cast<OutT*>(p.c);
  const int g = lane / 4, t4 = lane % 4;
#pragma unroll
  for (int t = 0; t < kRowTiles; ++t)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int line = l0 + warp * 16 + g + 8 * h, row = 8 * t + 2 * t4;
      if (line >= p.lines || row >= p.rows) continue;
      OutT* out = c + row * p.c_row + line * p.c_col;
      const int valid = min(2, p.rows - row);
      float v[2] = {p.alpha * acc[t][2 * h], p.alpha * acc[t][2 * h + 1]};
#pragma unroll
      for (int e = 0; e < 2; ++e)
        if (e < valid) {
          if (p.beta != 0.0f) v[e] += p.beta * from_out(out[e * p.c_row]);
          if (!p.epi.plain()) v[e] = epilogue_apply<OutT>(p.epi, v[e], row + e, line);
        }
      const bool pair =
          valid == 2 && p.c_row == 1 && reinterpret_cast<unsigned long long>(out) % (2 * sizeof(OutT)) == 0;
      if (pair) {
        *reinterpret_cast<typename OutPair<OutT>::type*>(out) = OutPair<OutT>::make(v[0], v[1]);
        continue;
      }
#pragma unroll
      for (int e = 0; e < 2; ++e)
        if (e < valid) out[e * p.c_row] = to_out<OutT>(v[e]);
    }
}

}  // namespace kernels
}  // namespace tilegemm
