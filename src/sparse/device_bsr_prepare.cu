// DeviceBsrMatrix::from_device's device work: Int64 index conversion, the structure check, the
// longest-first block-row order (block counts, then CUB's stable descending radix sort of
// (count, row) pairs: the host constructor's std::stable_sort order). One stream, one scratch
// allocation from the workspace pool, one synchronization.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/workspace.hpp"
#include "sparse/device_bsr_prepare.hpp"
#include "kernels/bsr/narrow_indices.cuh"
#include "kernels/bsr/row_lengths.cuh"
#include "kernels/bsr/validate_bsr.cuh"

namespace tilegemm {
namespace detail {

namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxGrid = 65535;  // grid-stride loops cover the rest

unsigned grid_for(int64_t threads_needed) {
  const int64_t blocks = (std::max<int64_t>(threads_needed, 1) + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::min(blocks, kMaxGrid));
}

size_t align_up(size_t bytes) { return (bytes + 255) / 256 * 256; }

void narrow(const void* src, int32_t* dst, int64_t count, unsigned long long* first_bad,
            cudaStream_t stream) {
  if (count == 0) return;
  kernels::bsr_narrow_indices<<<grid_for(count), kThreads, 0, stream>>>(
      static_cast<const long long*>(src), dst, count, first_bad);
  TILEGEMM_CHECK_LAUNCH();
}

}  // namespace

void prepare_device_bsr(const BsrPrepareArgs& a, std::vector<int32_t>& row_lengths,
                        BsrCheckReport& report, cudaStream_t stream) {
  std::fill(std::begin(report.slot), std::end(report.slot), kernels::kCheckNone);
  const int64_t brows = a.block_row_count;
  row_lengths.assign(static_cast<size_t>(brows), 0);
  if (a.index_pointer == nullptr) return;  // no block rows, no blocks: nothing to prepare
  const int rows = static_cast<int>(brows);  // <= 2^31 - 1 (shape-checked)

  // Scratch: the check result, then the sort's keys and values in and out, then CUB's temporary.
  size_t bytes = 0;
  auto carve = [&bytes](size_t n) {
    const size_t at = bytes;
    bytes += align_up(n);
    return at;
  };
  const size_t result_at = carve(sizeof(unsigned long long) * kernels::kCheckSlotCount);
  const size_t row_bytes = sizeof(int32_t) * static_cast<size_t>(brows);
  const size_t lengths_at = carve(row_bytes), ids_at = carve(row_bytes), sorted_at = carve(row_bytes);
  size_t sort_bytes = 0;
  if (brows > 0)
    TILEGEMM_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(
        nullptr, sort_bytes, static_cast<const int*>(nullptr), static_cast<int*>(nullptr),
        static_cast<const int*>(nullptr), static_cast<int*>(nullptr), rows, 0, 32, stream));
  const size_t sort_at = carve(sort_bytes);

  {
    const Workspace scratch(stream, bytes, 0);  // freed in stream order at the end of this block
    char* base = scratch.get();
    auto* result = reinterpret_cast<unsigned long long*>(base + result_at);
    TILEGEMM_CUDA_CHECK(
        cudaMemsetAsync(result, 0xFF, sizeof(unsigned long long) * kernels::kCheckSlotCount, stream));

    const int32_t* index_pointer = static_cast<const int32_t*>(a.index_pointer);
    const int32_t* block_indices = static_cast<const int32_t*>(a.block_indices);
    if (a.int64) {
      narrow(a.index_pointer, a.index_pointer32, brows + 1,
             a.validate ? result + kernels::kCheckNarrowIndexPointer : nullptr, stream);
      narrow(a.block_indices, a.block_indices32, a.nnzb,
             a.validate ? result + kernels::kCheckNarrowBlockIndex : nullptr, stream);
      index_pointer = a.index_pointer32;
      block_indices = a.block_indices32;
    }

    if (a.validate) {
      kernels::BsrCheckParams p;
      p.index_pointer = index_pointer;
      p.block_indices = block_indices;
      p.block_row_count = rows;
      p.block_col_count = static_cast<int>(a.block_col_count);
      p.nnzb = static_cast<int>(a.nnzb);
      p.result = result;
      kernels::bsr_validate_structure<<<grid_for(32 * std::max<int64_t>(brows, 1)), kThreads, 0,
                                        stream>>>(p);
      TILEGEMM_CHECK_LAUNCH();
    }

    if (brows > 0) {
      int* lengths = reinterpret_cast<int*>(base + lengths_at);
      int* ids = reinterpret_cast<int*>(base + ids_at);
      int* sorted = reinterpret_cast<int*>(base + sorted_at);
      kernels::bsr_row_lengths<<<grid_for(brows), kThreads, 0, stream>>>(index_pointer, rows,
                                                                         lengths, ids);
      TILEGEMM_CHECK_LAUNCH();
      // Radix sort is stable: equal counts keep the increasing row ids of `ids`.
      TILEGEMM_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(
          base + sort_at, sort_bytes, lengths, sorted, ids, a.row_order, rows, 0, 32, stream));
      TILEGEMM_CUDA_CHECK(cudaMemcpyAsync(row_lengths.data(), sorted, row_bytes,
                                          cudaMemcpyDeviceToHost, stream));
    }
    TILEGEMM_CUDA_CHECK(cudaMemcpyAsync(report.slot, result, sizeof(report.slot),
                                        cudaMemcpyDeviceToHost, stream));
  }
  TILEGEMM_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace detail
}  // namespace tilegemm
