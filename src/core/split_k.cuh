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
// Device code only, includes nothing: compiles with nvcc and with NVRTC.
#pragma once

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
// thread does not need registers for kPer loads in flight (perf note #30).
// __ldcg: the partials were written by other blocks, so they are read from L2, never a stale L1.
template <int kPer, int kThreads, int kChunk = kPer>
__device__ __forceinline__ void split_k_sum(float (&v)[kPer], const float* partials, int first, int count,
                                            int stride = 1) {
  static_assert(kPer % kChunk == 0, "chunks must divide the values per thread");
#pragma unroll
  for (int e = 0; e < kPer; ++e) v[e] = 0.0f;
#pragma unroll
  for (int e0 = 0; e0 < kPer; e0 += kChunk) {
    for (int s = first; s < first + count * stride; s += stride) {
      const float* part = partials + static_cast<long long>(s) * (kPer * kThreads) + threadIdx.x;
#pragma unroll
      for (int e = e0; e < e0 + kChunk; ++e) v[e] += __ldcg(part + e * kThreads);
    }
  }
}

template <int kPer, int kThreads>
__device__ __forceinline__ void split_k_store(const float (&v)[kPer], float* partials, int slot) {
  float* mine = partials + static_cast<long long>(slot) * (kPer * kThreads) + threadIdx.x;
#pragma unroll
  for (int e = 0; e < kPer; ++e) __stcg(mine + e * kThreads, v[e]);
}

// Called by every thread of the block (it synchronizes the block); threads [0, kThreads) own kPer
// values each (v), the block's partial tile for `slice` of `slices`. partials: the tile's slices x
// kPer * kThreads floats; counters: the tile's split_k_counters(slices, group) counters. Returns true
// in the one block that must store the tile; v then holds the sum over all slices, in slice order.
template <int kPer, int kThreads, int kChunk = kPer>
__device__ __forceinline__ bool split_k_reduce(float (&v)[kPer], float* partials, unsigned* counters,
                                               int slice, int slices, int group) {
  __shared__ int split_k_last;
  const bool owner = threadIdx.x < kThreads;
  const int g = slice / group, groups = (slices + group - 1) / group;
  const int first = g * group, count = slices - first < group ? slices - first : group;
  if (owner) split_k_store<kPer, kThreads>(v, partials, slice);
  __threadfence();  // the partial is visible device-wide before the count says so
  __syncthreads();
  if (threadIdx.x == 0) {
    split_k_last = atomicAdd(counters + g, 1u) == static_cast<unsigned>(count - 1);
    if (split_k_last) counters[g] = 0;  // every block of the group has counted: reset for the next call
  }
  __syncthreads();
  if (!split_k_last) return false;
  __threadfence();
  if (owner) split_k_sum<kPer, kThreads, kChunk>(v, partials, first, count);
  if (groups == 1) return true;

  if (owner) split_k_store<kPer, kThreads>(v, partials, first);  // the group's sum, in its first slot
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    split_k_last = atomicAdd(counters + groups, 1u) == static_cast<unsigned>(groups - 1);
    if (split_k_last) counters[groups] = 0;
  }
  __syncthreads();
  if (!split_k_last) return false;
  __threadfence();
  if (owner) split_k_sum<kPer, kThreads, kChunk>(v, partials, 0, groups, group);  // group sums, in order
  return true;
}

}  // namespace kernels
}  // namespace tilegemm
