// The device work of DeviceBsrMatrix::from_device (device_bsr.cpp): Int64 -> int32 index
// conversion, the structure check and the longest-first block-row order, enqueued on one stream
// (device_bsr_prepare.cu, kernels in kernels/narrow_indices.cuh, kernels/validate_bsr.cuh,
// kernels/row_lengths.cuh). Host code.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "kernels/bsr/prepare_params.hpp"

namespace tilegemm {
namespace detail {

struct BsrPrepareArgs {
  // The caller's device arrays (shape, pointers and alignment checked on the host): int32 or int64
  // entries. index_pointer == nullptr only when block_row_count == 0.
  const void* index_pointer = nullptr;  // block_row_count + 1 entries
  const void* block_indices = nullptr;  // nnzb entries
  bool int64 = false;
  int64_t block_row_count = 0, block_col_count = 0, nnzb = 0;
  bool validate = true;
  // Device outputs the caller allocated. With int64 == true the converted arrays (null where the
  // input has no entries); row_order: block_row_count entries (null when 0).
  int32_t* index_pointer32 = nullptr;
  int32_t* block_indices32 = nullptr;
  int32_t* row_order = nullptr;
};

// The first violation of each kind (kernels::BsrCheckSlot; kCheckNone where there is none; all
// kCheckNone when validate == false).
struct BsrCheckReport {
  unsigned long long slot[kernels::kCheckSlotCount];
};

// Enqueues everything on `stream` (scratch memory from the device's workspace pool, in stream
// order), copies the sorted block counts into `row_lengths` (block_row_count entries) and the check
// result into `report`, and synchronizes `stream`. Throws tilegemm::Error on a CUDA failure.
void prepare_device_bsr(const BsrPrepareArgs& args, std::vector<int32_t>& row_lengths,
                        BsrCheckReport& report, cudaStream_t stream);

}  // namespace detail
}  // namespace tilegemm
