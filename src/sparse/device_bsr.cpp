// DeviceBsrMatrix: upload from the host, adoption of device arrays (from_device: conversion, device
// check and order in device_bsr_prepare.cu; borrow), ownership, download.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_checks.hpp"
#include "core/device_context.hpp"
#include "sparse/bsr_checks.hpp"
#include "sparse/device_bsr_prepare.hpp"
#include "tilegemm/bsr_gpu.hpp"

namespace tilegemm {

namespace {

using bsr_detail::invalid;

template <class T>
T* allocate(size_t count) {
  if (count == 0) return nullptr;
  T* dev = nullptr;
  TILEGEMM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&dev), count * sizeof(T)));
  return dev;
}

// A device copy of `host`, enqueued on `stream` (the caller synchronizes it).
template <class T>
T* upload(const std::vector<T>& host, cudaStream_t stream) {
  T* dev = allocate<T>(host.size());
  if (dev == nullptr) return nullptr;
  const cudaError_t e = cudaMemcpyAsync(dev, host.data(), host.size() * sizeof(T),
                                        cudaMemcpyHostToDevice, stream);
  if (e != cudaSuccess) {
    cudaFree(dev);
    TILEGEMM_CUDA_CHECK(e);
  }
  return dev;
}

template <class T>
void download(std::vector<T>& host, const T* dev, size_t count) {
  host.resize(count);
  if (count > 0)
    TILEGEMM_CUDA_CHECK(cudaMemcpy(host.data(), dev, count * sizeof(T), cudaMemcpyDeviceToHost));
}

// Entry `index` of a device array, read on `stream` (for error messages).
template <class T>
T read_entry(const void* dev, int64_t index, cudaStream_t stream) {
  T v{};
  TILEGEMM_CUDA_CHECK(cudaMemcpyAsync(&v, static_cast<const T*>(dev) + index, sizeof(T),
                                      cudaMemcpyDeviceToHost, stream));
  TILEGEMM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return v;
}

void check_aligned(const std::string& name, const void* p, size_t bytes, const char* what) {
  if (reinterpret_cast<std::uintptr_t>(p) % bytes != 0)
    invalid(name + " = " + std::to_string(reinterpret_cast<std::uintptr_t>(p)) +
            " is not aligned to " + std::to_string(bytes) + " bytes (" + what + " entries)");
}

// Throws the first structure violation `report` holds, in the order tilegemm::validate_bsr checks
// (a value that does not fit in int32 first, then index_pointer[0], a decrease, the last entry,
// then the lowest block position with a bad index). index_pointer / block_indices are the int32
// arrays the check read, *_input the caller's (int64 when int64).
void throw_first_violation(const std::string& prefix, const detail::BsrCheckReport& report,
                           const detail::BsrPrepareArgs& a, const int32_t* index_pointer,
                           const int32_t* block_indices, cudaStream_t stream) {
  using namespace kernels;
  const unsigned long long* slot = report.slot;
  const std::string ip = prefix + "arrays.index_pointer", bi = prefix + "arrays.block_indices";
  const char* const kNarrow = " is outside [0, 2^31-1] (int64 indices must fit in int32)";
  auto str = [](auto v) { return std::to_string(v); };
  if (slot[kCheckNarrowIndexPointer] != kCheckNone) {
    const auto i = static_cast<int64_t>(slot[kCheckNarrowIndexPointer]);
    invalid(ip + "[" + str(i) + "] = " + str(read_entry<int64_t>(a.index_pointer, i, stream)) +
            kNarrow);
  }
  if (slot[kCheckFirstPointer] != kCheckNone)
    invalid(ip + "[0] = " + str(read_entry<int32_t>(index_pointer, 0, stream)) + ", must be 0");
  if (slot[kCheckPointerDecreases] != kCheckNone) {
    const auto i = static_cast<int64_t>(slot[kCheckPointerDecreases]);
    invalid(ip + " decreases at block row " + str(i) + " (" +
            str(read_entry<int32_t>(index_pointer, i, stream)) + " -> " +
            str(read_entry<int32_t>(index_pointer, i + 1, stream)) + ")");
  }
  if (slot[kCheckLastPointer] != kCheckNone)
    invalid(ip + "[last] = " +
            str(read_entry<int32_t>(index_pointer, a.block_row_count, stream)) +
            " but arrays.nnzb = " + str(a.nnzb));

  // The lowest block position with a violation; at one position the kinds in validate_bsr's order.
  const BsrCheckSlot kinds[] = {kCheckNarrowBlockIndex, kCheckIndexRange, kCheckIndexDuplicate,
                                kCheckIndexUnsorted};
  int first = -1;
  int64_t first_b = 0;
  for (const BsrCheckSlot k : kinds) {
    if (slot[k] == kCheckNone) continue;
    const auto b = static_cast<int64_t>(k == kCheckNarrowBlockIndex ? slot[k] : slot[k] >> 32);
    if (first < 0 || b < first_b) {
      first = k;
      first_b = b;
    }
  }
  if (first < 0) return;
  const int64_t b = first_b;
  if (first == kCheckNarrowBlockIndex)
    invalid(bi + "[" + str(b) + "] = " + str(read_entry<int64_t>(a.block_indices, b, stream)) +
            kNarrow);
  const std::string where =
      bi + "[" + str(b) + "] (block row " + str(slot[first] & 0xffffffffull) + "): ";
  const int32_t col = read_entry<int32_t>(block_indices, b, stream);
  if (first == kCheckIndexRange)
    invalid(where + "column index " + str(col) + " out of range [0, " + str(a.block_col_count) +
            ")");
  if (first == kCheckIndexDuplicate) invalid(where + "duplicated column index " + str(col));
  invalid(where + "column indices not sorted (" + str(col) + " after " +
          str(read_entry<int32_t>(block_indices, b - 1, stream)) + ")");
}

}  // namespace

void DeviceBsrMatrix::set_shape(const BsrView& v) {
  rows_ = v.rows;
  cols_ = v.cols;
  block_rows_ = v.block_rows;
  block_cols_ = v.block_cols;
  nnzb_ = v.nnzb;
}

DeviceBsrMatrix::DeviceBsrMatrix(const BsrMatrix& host, Stream stream) {
  validate(host);
  set_shape(host.view());

  // Longest block rows first (stable: ties keep increasing row order). The tiled kernel hands
  // block rows to thread blocks in this order, so the heaviest work starts earliest and the short
  // rows fill in at the end of each wave (longest-processing-time-first scheduling).
  // (from_device computes the same order on the device.)
  const int64_t brows = host.block_row_count();
  std::vector<int32_t> order(static_cast<size_t>(brows));
  std::iota(order.begin(), order.end(), 0);
  auto length = [&](int32_t r) { return host.index_pointer[r + 1] - host.index_pointer[r]; };
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return length(a) > length(b); });
  row_lengths_.reserve(order.size());
  for (const int32_t r : order) row_lengths_.push_back(length(r));

  // Copies from pageable memory in stream order, then a synchronization of that stream: a plain
  // cudaMemcpy can return before its DMA has finished relative to work on a non-blocking stream.
  const cudaStream_t s = stream;
  owns_blocks_ = owns_indices_ = owns_row_order_ = true;
  try {
    block_data_ = upload(host.block_data, s);
    block_indices_ = upload(host.block_indices, s);
    index_pointer_ = upload(host.index_pointer, s);
    row_order_ = upload(order, s);
    TILEGEMM_CUDA_CHECK(cudaStreamSynchronize(s));
  } catch (...) {
    release();  // cudaFree waits for the copies in flight
    throw;
  }
}

DeviceBsrMatrix DeviceBsrMatrix::from_device(const DeviceBsrArrays& arrays, Stream stream,
                                             bool validate) {
  const char* const prefix = "DeviceBsrMatrix::from_device: ";
  const std::string p = prefix;
  if (arrays.index_type != IndexType::Int32 && arrays.index_type != IndexType::Int64)
    invalid(p + "arrays.index_type = " + std::to_string(static_cast<int>(arrays.index_type)) +
            " is not an IndexType value (0 = Int32, 1 = Int64)");
  const bool int64 = arrays.index_type == IndexType::Int64;

  // The shape checks every BSR view gets (pointers only compared with null here).
  BsrView v;
  v.block_data = arrays.block_data;
  v.block_indices = static_cast<const int32_t*>(arrays.block_indices);
  v.index_pointer = static_cast<const int32_t*>(arrays.index_pointer);
  v.rows = arrays.rows;
  v.cols = arrays.cols;
  v.block_rows = arrays.block_rows;
  v.block_cols = arrays.block_cols;
  v.nnzb = arrays.nnzb;
  bsr_detail::check_view_shape(prefix, "arrays.", v);
  const int64_t brows = v.block_row_count(), nnzb = arrays.nnzb;
  // Blocks and indices are read only when there are blocks; index_pointer whenever it is given
  // (it may be null only without block rows).
  const bool has_blocks = nnzb > 0, has_pointer = arrays.index_pointer != nullptr;
  const size_t index_bytes = int64 ? sizeof(int64_t) : sizeof(int32_t);
  const char* const index_name = int64 ? "int64" : "int32";
  if (has_blocks) {
    check_aligned(p + "arrays.block_data", arrays.block_data, sizeof(float), "float");
    check_aligned(p + "arrays.block_indices", arrays.block_indices, index_bytes, index_name);
  }
  if (has_pointer)
    check_aligned(p + "arrays.index_pointer", arrays.index_pointer, index_bytes, index_name);
  if (has_blocks || has_pointer) {
    detail::current_device_context();  // NoDevice / UnsupportedArch before the pointer checks
    if (has_blocks) {
      detail::require_device_pointer((p + "arrays.block_data").c_str(), arrays.block_data);
      detail::require_device_pointer((p + "arrays.block_indices").c_str(), arrays.block_indices);
    }
    if (has_pointer)
      detail::require_device_pointer((p + "arrays.index_pointer").c_str(), arrays.index_pointer);
  }

  // From here on `m` owns what it allocates: an exception frees it in m's destructor.
  DeviceBsrMatrix m;
  m.set_shape(v);
  m.block_data_ = arrays.block_data;  // borrowed
  detail::BsrPrepareArgs a;
  a.index_pointer = arrays.index_pointer;
  a.block_indices = arrays.block_indices;
  a.int64 = int64;
  a.block_row_count = brows;
  a.block_col_count = v.block_col_count();
  a.nnzb = nnzb;
  a.validate = validate;
  if (int64) {
    m.owns_indices_ = true;
    a.index_pointer32 = has_pointer ? allocate<int32_t>(static_cast<size_t>(brows + 1)) : nullptr;
    m.index_pointer_ = a.index_pointer32;
    a.block_indices32 = has_blocks ? allocate<int32_t>(static_cast<size_t>(nnzb)) : nullptr;
    m.block_indices_ = a.block_indices32;
  } else {
    m.index_pointer_ = static_cast<const int32_t*>(arrays.index_pointer);  // borrowed
    m.block_indices_ = static_cast<const int32_t*>(arrays.block_indices);
  }
  m.owns_row_order_ = true;
  a.row_order = allocate<int32_t>(static_cast<size_t>(brows));
  m.row_order_ = a.row_order;

  const cudaStream_t s = stream;
  detail::BsrCheckReport report;
  detail::prepare_device_bsr(a, m.row_lengths_, report, s);
  if (validate) throw_first_violation(p, report, a, m.index_pointer_, m.block_indices_, s);
  return m;
}

DeviceBsrMatrix DeviceBsrMatrix::borrow(const BsrView& view, const int32_t* row_order,
                                        std::vector<int32_t> row_lengths_longest_first) {
  const char* const prefix = "DeviceBsrMatrix::borrow: ";
  const std::string p = prefix;
  bsr_detail::check_view_shape(prefix, "view.", view);
  const int64_t brows = view.block_row_count();
  if (brows > 0 && row_order == nullptr)
    invalid(p + "row_order is a null pointer (" + std::to_string(brows) + " block rows)");
  const std::vector<int32_t>& len = row_lengths_longest_first;
  if (static_cast<int64_t>(len.size()) != brows)
    invalid(p + "row_lengths_longest_first has " + std::to_string(len.size()) +
            " entries, expected block_row_count = " + std::to_string(brows));
  // The launch planner trusts these counts: they must be the sorted block counts of this view.
  int64_t sum = 0;
  for (size_t i = 0; i < len.size(); ++i) {
    if (len[i] < 0)
      invalid(p + "row_lengths_longest_first[" + std::to_string(i) + "] = " +
              std::to_string(len[i]) + " is negative");
    if (i > 0 && len[i] > len[i - 1])
      invalid(p + "row_lengths_longest_first increases at entry " + std::to_string(i) + " (" +
              std::to_string(len[i - 1]) + " -> " + std::to_string(len[i]) + ")");
    sum += len[i];
  }
  if (sum != view.nnzb)
    invalid(p + "row_lengths_longest_first sums to " + std::to_string(sum) +
            ", expected view.nnzb = " + std::to_string(view.nnzb));
  DeviceBsrMatrix m;
  m.set_shape(view);
  m.block_data_ = view.block_data;
  m.block_indices_ = view.block_indices;
  m.index_pointer_ = view.index_pointer;
  m.row_order_ = brows > 0 ? row_order : nullptr;
  m.row_lengths_ = std::move(row_lengths_longest_first);
  return m;
}

DeviceBsrMatrix::~DeviceBsrMatrix() { release(); }

void DeviceBsrMatrix::release() noexcept {
  // cudaFree(nullptr) is a no-op; borrowed arrays are left alone.
  if (owns_blocks_) cudaFree(const_cast<float*>(block_data_));
  if (owns_indices_) {
    cudaFree(const_cast<int32_t*>(block_indices_));
    cudaFree(const_cast<int32_t*>(index_pointer_));
  }
  if (owns_row_order_) cudaFree(const_cast<int32_t*>(row_order_));
  block_data_ = nullptr;
  block_indices_ = index_pointer_ = row_order_ = nullptr;
  owns_blocks_ = owns_indices_ = owns_row_order_ = false;
}

DeviceBsrMatrix::DeviceBsrMatrix(DeviceBsrMatrix&& other) noexcept { *this = std::move(other); }

DeviceBsrMatrix& DeviceBsrMatrix::operator=(DeviceBsrMatrix&& other) noexcept {
  if (this == &other) return *this;
  release();
  rows_ = std::exchange(other.rows_, 0);
  cols_ = std::exchange(other.cols_, 0);
  block_rows_ = std::exchange(other.block_rows_, 1);
  block_cols_ = std::exchange(other.block_cols_, 1);
  nnzb_ = std::exchange(other.nnzb_, 0);
  block_data_ = std::exchange(other.block_data_, nullptr);
  block_indices_ = std::exchange(other.block_indices_, nullptr);
  index_pointer_ = std::exchange(other.index_pointer_, nullptr);
  row_order_ = std::exchange(other.row_order_, nullptr);
  owns_blocks_ = std::exchange(other.owns_blocks_, false);
  owns_indices_ = std::exchange(other.owns_indices_, false);
  owns_row_order_ = std::exchange(other.owns_row_order_, false);
  row_lengths_ = std::move(other.row_lengths_);
  other.row_lengths_.clear();
  return *this;
}

BsrView DeviceBsrMatrix::view() const {
  BsrView v;
  v.block_data = block_data_;
  v.block_indices = block_indices_;
  v.index_pointer = index_pointer_;
  v.rows = rows_;
  v.cols = cols_;
  v.block_rows = block_rows_;
  v.block_cols = block_cols_;
  v.nnzb = nnzb_;
  return v;
}

BsrMatrix DeviceBsrMatrix::to_host() const {
  BsrMatrix h;
  h.rows = rows_;
  h.cols = cols_;
  h.block_rows = block_rows_;
  h.block_cols = block_cols_;
  download(h.block_data, block_data_, static_cast<size_t>(nnzb_) * block_rows_ * block_cols_);
  download(h.block_indices, block_indices_, static_cast<size_t>(nnzb_));
  if (index_pointer_ != nullptr)
    download(h.index_pointer, index_pointer_, static_cast<size_t>(block_row_count() + 1));
  else
    h.index_pointer = {0};
  return h;
}

}  // namespace tilegemm
