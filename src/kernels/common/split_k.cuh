// Deterministic split-K: the K range of an output tile is cut into slices computed by different
// thread blocks of one launch; each block writes its partial tile to scratch memory, and the blocks
// that finish last sum the partials in slice order, so the result does not depend on which block
// finished when (bitwise the same run to run and stream to stream). The one mechanism of the dense
// split-K / stream-K kernel, the GEMV kernels and the tiled BSR kernels (whose slices are the pieces
// of a long block row: tiled_parts.cuh).
//
// Two levels, so that the sum never serializes many partial tiles through one block: slices are
// grouped `group` at a time; the last block of a group to finish sums its group (in slice order)
// into the group's first slot; the last group to finish sums the group sums (in group order). With
// one group this is the plain "last block sums everything".
//
// The counters may have been zeroed by the call's prologue kernel, which the summing kernel may
// overlap (kernels/common/griddep.cuh): the sum waits for it before it counts.
//
// Device code only, includes only kernels/common/griddep.cuh: compiles with nvcc and with NVRTC.
#pragma once
#include "kernels/common/griddep.cuh"

namespace tilegemm {
namespace kernels {

// Counters one tile needs (zero at launch; left zero): one per group, and with several groups one
// more for the groups.
__host__ __device__ inline int split_k_counters(int slices, int group) {
  const int groups = (slices + group - 1) / group;
  return groups == 1 ? 1 : groups + 1;
}

// Sums slots first, first + stride, ... (count of them) of the tile's partials in order into v (element-major layout:
// element e of thread t at e * kThreads + t). Slices outer, elements inner, so each step issues
// kChunk independent loads (an element-outer loop serialized one L2 round trip per load: perf note
// B9); kChunk < kPer sums the elements kChunk at a time, so that a kernel holding many values per
// thread does not need registers for kPer loads in flight (perf note #30). The loads of kSlices
// slices go out before their adds (by default as many as keep 64 loads in flight per thread; a
// kernel short of registers passes 1): the sum costs an L2 round trip per kSlices slices, not per
// slice (perf note #47). The adds keep slice order: the same bits as one slice at a time.
// __ldcg: the partials were written by other blocks, so they are read from L2, never a stale L1.
template <int kChunk>
inline constexpr int kSplitSumSlices = kChunk >= 64 ? 1 : 64 / kChunk;

template <int kPer, int kThreads, int kChunk = kPer, int kSlices = kSplitSumSlices<kChunk>>
__device__ __forceinline__ void split_k_sum(float (&v)[kPer], const float* partials, int first, int count,
                                            int stride = 1) {
  static_assert(kPer % kChunk == 0, "chunks must divide the values per thread");
  auto part = [&](int s) { return partials + static_cast<long long>(s) * (kPer * kThreads) + threadIdx.x; };
#pragma unroll
  for (int e = 0; e < kPer; ++e) v[e] = 0.0f;
  const int end = first + count * stride;
#pragma unroll
  for (int e0 = 0; e0 < kPer; e0 += kChunk) {
    int s = first;
    if constexpr (kSlices > 1) {
      for (; s + (kSlices - 1) * stride < end; s += kSlices * stride) {
        float loaded[kSlices][kChunk];
#pragma unroll
        for (int j = 0; j < kSlices; ++j)
#pragma unroll
          for (int e = 0; e < kChunk; ++e) loaded[j][e] = __ldcg(part(s + j * stride) + (e0 + e) * kThreads);
#pragma unroll
        for (int j = 0; j < kSlices; ++j)
#pragma unroll
          for (int e = 0; e < kChunk; ++e) v[e0 + e] += loaded[j][e];
      }
    }
    for (; s < end; s += stride) {  // the rest one slice at a time
      const float* p = part(s);
#pragma unroll
      for (int e = 0; e < kChunk; ++e) v[e0 + e] += __ldcg(p + (e0 + e) * kThreads);
    }
  }
}

template <int kPer, int kThreads>
__device__ __forceinline__ void split_k_store(const float (&v)[kPer], float* partials, int slot) {
  float* mine = partials + static_cast<long long>(slot) * (kPer * kThreads) + threadIdx.x;
#pragma unroll
  for (int e = 0; e < kPer; ++e) __stcg(mine + e * kThreads, v[e]);
}

// One level of the sum, called by every thread of the block (it synchronizes the block); threads
// [0, kThreads) own kPer values each (v). The block stores v in `slot` and counts itself on `counter`;
// the last of `count` blocks to count resets the counter and sums the `count` slots first,
// first + stride, ... in order into v. Returns true in that block only.
template <int kPer, int kThreads, int kChunk = kPer, int kSlices = kSplitSumSlices<kChunk>>
__device__ __forceinline__ bool split_k_last_sums(float (&v)[kPer], float* partials, unsigned* counter, int slot,
                                                  int first, int count, int stride) {
  __shared__ int split_k_last;
  const bool owner = threadIdx.x < kThreads;
  griddep_wait();  // the counters are zero (the prologue has finished)
  if (owner) split_k_store<kPer, kThreads>(v, partials, slot);
  __threadfence();  // the partial is visible device-wide before the count says so
  __syncthreads();
  if (threadIdx.x == 0) {
    split_k_last = atomicAdd(counter, 1u) == static_cast<unsigned>(count - 1);
    if (split_k_last) *counter = 0;  // every block has counted: reset for the next call
  }
  __syncthreads();
  if (!split_k_last) return false;
  __threadfence();
  if (owner) split_k_sum<kPer, kThreads, kChunk, kSlices>(v, partials, first, count, stride);
  return true;
}

// The whole sum for a block's partial tile of `slice` of `slices`, in groups of `group` slices.
// partials: the tile's slices x kPer * kThreads floats; counters: the tile's split_k_counters(slices,
// group) counters. Returns true in the one block that must store the tile; v then holds the sum over
// all slices, in slice order. A caller whose slices always form one group calls split_k_last_sums
// directly (the BSR kernels: the second level's code would only cost registers).
template <int kPer, int kThreads, int kChunk = kPer, int kSlices = kSplitSumSlices<kChunk>>
__device__ __forceinline__ bool split_k_reduce(float (&v)[kPer], float* partials, unsigned* counters,
                                               int slice, int slices, int group) {
  const int g = slice / group, groups = (slices + group - 1) / group;
  const int first = g * group, count = slices - first < group ? slices - first : group;
  if (!split_k_last_sums<kPer, kThreads, kChunk, kSlices>(v, partials, counters + g, slice, first, count, 1)) return false;
  if (groups == 1) return true;
  // The group's sum goes to its first slot; the last group sums the group sums, in group order.
  return split_k_last_sums<kPer, kThreads, kChunk, kSlices>(v, partials, counters + groups, first, 0, groups, group);
}

}  // namespace kernels
}  // namespace tilegemm
