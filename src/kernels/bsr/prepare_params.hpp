// What the kernels that prepare a device-resident BSR matrix (DeviceBsrMatrix::from_device) share
// with their host code: the slots of the structure-check result. Each slot holds the first (lowest)
// violation of one kind as an unsigned 64-bit key, ~0 when there is none; the kernels lower it with
// atomicMin, so the result does not depend on thread timing.
//
// Includes nothing: shared by host launchers and device code, compiles under NVRTC.
#pragma once

namespace tilegemm {
namespace kernels {

enum BsrCheckSlot : int {
  kCheckNarrowIndexPointer = 0,  // Int64 index_pointer entry outside [0, 2^31 - 1]: key = position
  kCheckNarrowBlockIndex,        // Int64 block_indices entry outside [0, 2^31 - 1]: key = position
  kCheckFirstPointer,            // index_pointer[0] != 0: key = 0
  kCheckPointerDecreases,        // index_pointer[i + 1] < index_pointer[i]: key = i
  kCheckLastPointer,             // index_pointer[block_row_count] != nnzb: key = 0
  // Block indices, key = position << 32 | block row (the lowest position wins; the row comes along):
  kCheckIndexRange,      // outside [0, block_col_count)
  kCheckIndexDuplicate,  // equal to the previous one in its block row
  kCheckIndexUnsorted,   // less than the previous one in its block row
  kCheckSlotCount
};

constexpr unsigned long long kCheckNone = ~0ull;

// The structure check (validate_bsr.cuh) of int32 arrays: sizes fit in int (checked on the host).
struct BsrCheckParams {
  const int* index_pointer = nullptr;  // block_row_count + 1 entries
  const int* block_indices = nullptr;  // nnzb entries
  int block_row_count = 0, block_col_count = 0, nnzb = 0;
  unsigned long long* result = nullptr;  // kCheckSlotCount slots
};

}  // namespace kernels
}  // namespace tilegemm
