// Pieces shared by the GEMV-class kernels (gemv_rows.cuh, gemv_rows_staged.cuh, gemv_cols.cuh,
// gemv_cols_one.cuh): staging the short operand X through shared memory, the warp sums over lanes,
// the K slice a thread block walks, and the store of C(s, l).
// Device code only; compiles under NVRTC.
#pragma once
#include "kernels/gemm/common.cuh"
#include "kernels/common/cp_async.cuh"
#include "kernels/common/split_k.cuh"

namespace tilegemm {
namespace kernels {

// How the columns kernels (gemv_cols.cuh, gemv_cols_one.cuh) read W's rows, contiguous along l.
// Aligned: 16-byte loads. Shifted: the rows are not 16-byte aligned, but all sit `lead` floats past a
// 16-byte boundary (a pointer offset with a leading dimension that is a multiple of 4): the column
// tiles start lead columns early, so every chunk inside the matrix is one 16-byte load, and the host
// plans up to one tile more (gemm_ops.cpp, plan_split). Scalar: 4-byte loads (rows at different
// offsets).
enum class GemvColsW { Aligned, Shifted, Scalar };

// How many floats W's first row sits past a 16-byte boundary (the lead of every row when Shifted).
template <GemvColsW kW>
__device__ __forceinline__ int gemv_cols_lead(const GemvParams& p) {
  return kW == GemvColsW::Shifted ? static_cast<int>(reinterpret_cast<unsigned long long>(p.w) / 4 % 4) : 0;
}

// A lane's 4 columns l .. l + 3 of one W row, src = &W(k, l), valid = l_count - l (0: no row): one
// 16-byte load where the chunk lies inside the matrix and the form allows it, else the existing
// elements one by one. Shifted: the first tile's first chunk starts before column 0 (l < 0) and the
// last tile's chunks run past the last column; where the 16 bytes still lie inside W's span (`whole`:
// all but row 0's first chunk and the last row's last) they are loaded whole. The columns outside
// the matrix then hold whatever lies there, and are never stored: every sum is one column's. Zeroing
// them waited for each load (a one-wave product 2.2x slower), and 4-byte loads split the edge tiles'
// warps on every row (8 % slower; perf note #61).
template <GemvColsW kW, bool kNonCoherent>
__device__ __forceinline__ float4 gemv_cols_chunk(const float* src, int l, int valid, bool whole = false) {
  const bool load16 = kW == GemvColsW::Aligned ? valid >= 4 : kW == GemvColsW::Shifted && valid > 0 && whole;
  if (load16)
    return kNonCoherent ? __ldg(reinterpret_cast<const float4*>(src)) : *reinterpret_cast<const float4*>(src);
  if (kW == GemvColsW::Shifted && l < 0) {
    float4 v;
    v.x = 0.0f;
    v.y = l >= -1 && valid > 1 ? src[1] : 0.0f;
    v.z = l >= -2 && valid > 2 ? src[2] : 0.0f;
    v.w = l >= -3 && valid > 3 ? src[3] : 0.0f;
    return v;
  }
  return load_chunk<false>(src, valid);
}

// Starts copying X(s, k0 + kk) for s < kS, kk < kChunk into xs[s * kSStride + kk * kKStride] with
// 4-byte cp.async (zeros past s_count and k_end) and commits the group: every copy is in flight at
// once, with no registers held (register loads, a few in flight at a time, left the rows kernel
// waiting ~8 L2 round trips per chunk). Consecutive threads walk whichever of X's dimensions is
// contiguous (a decode product's X is one row; a small-N product's X is B, contiguous along s), so
// the reads coalesce. The caller waits (cp_async_wait) and synchronizes before reading xs.
template <int kS, int kChunk, int kThreads, int kSStride, int kKStride>
__device__ __forceinline__ void gemv_stage_x(float* xs, const GemvParams& p, int k0, int k_end) {
  const bool s_fastest = p.x_s == 1 && p.x_k != 1;
  for (int e = threadIdx.x; e < kS * kChunk; e += kThreads) {
    const int s = s_fastest ? e % kS : e / kChunk;
    const int kk = s_fastest ? e / kS : e % kChunk;
    const int k = k0 + kk;
    const bool ok = s < p.s_count && k < k_end;
    cp_async_4(xs + s * kSStride + kk * kKStride,
               ok ? p.x + static_cast<long long>(s) * p.x_s + static_cast<long long>(k) * p.x_k : p.x, ok);
  }
  cp_async_commit();
}

// Sums kN values (a power of two; v is overwritten) over the 32 lanes of a warp by recursive halving: at each step a
// lane keeps half of its values and adds the partner's copy of that half (lane bit 4 picks the upper
// half first, then bit 3, ...), so 31 shuffles move 32 values instead of 5 x 32 for a butterfly of
// each. Lane t ends with max(1, kN / 32) sums, of the outputs warp_sum_index<kN>(t, i); below 32
// values a plain butterfly finishes, and the lanes that share an output all hold it
// (warp_sum_owner picks one). Fixed order: deterministic.
// One step of warp_reduce_scatter: kCount live values, partner lane at xor kOff.
template <int kOff, int kCount, int kSize>
__device__ __forceinline__ void warp_halve(float (&w)[kSize], int lane) {
  if constexpr (kCount > 1) {
    const bool upper = (lane & kOff) != 0;
#pragma unroll
    for (int i = 0; i < kCount / 2; ++i) {
      const float send = upper ? w[i] : w[i + kCount / 2];
      const float keep = upper ? w[i + kCount / 2] : w[i];
      w[i] = keep + __shfl_xor_sync(0xffffffffu, send, kOff);
    }
  } else {
    w[0] += __shfl_xor_sync(0xffffffffu, w[0], kOff);
  }
  if constexpr (kOff > 1) warp_halve<kOff / 2, (kCount > 1 ? kCount / 2 : 1)>(w, lane);
}
template <int kN>
__device__ __forceinline__ void warp_reduce_scatter(float (&v)[kN], float (&out)[(kN + 31) / 32]) {
  warp_halve<16, kN>(v, threadIdx.x % 32);
#pragma unroll
  for (int i = 0; i < (kN + 31) / 32; ++i) out[i] = v[i];
}
template <int kN>
__device__ __forceinline__ int warp_sum_index(int lane, int i) {
  return kN >= 32 ? lane * (kN / 32) + i : lane / (32 / kN);
}
template <int kN>
__device__ __forceinline__ bool warp_sum_owner(int lane) {
  return kN >= 32 || lane % (32 / kN) == 0;
}

// The K range [begin, end) of a thread block's slice.
struct GemvSlice {
  int begin, end;
  __device__ __forceinline__ GemvSlice(const GemvParams& p, int slice)
      : begin(slice * p.slice_k), end(p.k - slice * p.slice_k < p.slice_k ? p.k : slice * p.slice_k + p.slice_k) {}
};

// C(s, l) = alpha * v + beta * C(s, l); beta == 0 never reads C.
__device__ __forceinline__ void gemv_store(const GemvParams& p, int s, int l, float v) {
  epilogue_store(p.c + static_cast<long long>(s) * p.c_s + static_cast<long long>(l) * p.c_l, v, p.alpha, p.beta);
}

// The end of the rows kernels (gemv_rows.cuh, gemv_rows_staged.cuh): each warp's kOut = rows x kS
// partial outputs (acc[r * kS + s]) summed over its lanes, then over the K slices (split_k_reduce:
// the last block of a tile goes on), and stored as C(s, row_of(r)).
template <int kOut, int kS, int kThreads, class RowOf>
__device__ __forceinline__ void gemv_rows_finish(float (&acc)[kOut], const GemvParams& p, int tile, int slice, RowOf row_of) {
  constexpr int kPerLane = (kOut + 31) / 32;
  const int lane = threadIdx.x % 32;
  float v[kPerLane];
  warp_reduce_scatter<kOut>(acc, v);
  if (p.splits > 1) {
    const int counters = split_k_counters(p.splits, p.group);
    if (!split_k_reduce<kPerLane, kThreads>(v, p.partials + static_cast<long long>(tile) * p.splits * kPerLane * kThreads,
                                            p.counters + static_cast<long long>(tile) * counters, slice, p.splits, p.group))
      return;
  }
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    const int e = warp_sum_index<kOut>(lane, i);
    const int l = row_of(e / kS), s = e % kS;
    if (warp_sum_owner<kOut>(lane) && s < p.s_count && l < p.l_count) gemv_store(p, s, l, v[i]);
  }
}

}  // namespace kernels
}  // namespace tilegemm
