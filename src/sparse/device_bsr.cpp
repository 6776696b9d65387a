// DeviceBsrMatrix: upload, the longest-first block-row order, download.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

#include "core/cuda_check.hpp"
#include "tilegemm/bsr_gpu.hpp"

namespace tilegemm {

namespace {

template <class T>
T* upload(const std::vector<T>& host) {
  if (host.empty()) return nullptr;
  T* dev = nullptr;
  TILEGEMM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&dev), host.size() * sizeof(T)));
  const cudaError_t e = cudaMemcpy(dev, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
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

}  // namespace

DeviceBsrMatrix::DeviceBsrMatrix(const BsrMatrix& host) {
  validate(host);
  rows_ = host.rows;
  cols_ = host.cols;
  block_rows_ = host.block_rows;
  block_cols_ = host.block_cols;
  nnzb_ = host.nnzb();

  // Longest block rows first (stable: ties keep increasing row order). The tiled kernel hands
  // block rows to thread blocks in this order, so the heaviest work starts earliest and the short
  // rows fill in at the end of each wave (longest-processing-time-first scheduling).
  const int64_t brows = host.block_row_count();
  std::vector<int32_t> order(static_cast<size_t>(brows));
  std::iota(order.begin(), order.end(), 0);
  auto length = [&](int32_t r) { return host.index_pointer[r + 1] - host.index_pointer[r]; };
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return length(a) > length(b); });
  row_lengths_.reserve(order.size());
  for (const int32_t r : order) row_lengths_.push_back(length(r));

  try {
    block_data_ = upload(host.block_data);
    block_indices_ = upload(host.block_indices);
    index_pointer_ = upload(host.index_pointer);
    row_order_ = upload(order);
  } catch (...) {
    release();
    throw;
  }
}

DeviceBsrMatrix::~DeviceBsrMatrix() { release(); }

void DeviceBsrMatrix::release() noexcept {
  cudaFree(block_data_);  // cudaFree(nullptr) is a no-op
  cudaFree(block_indices_);
  cudaFree(index_pointer_);
  cudaFree(row_order_);
  block_data_ = nullptr;
  block_indices_ = index_pointer_ = row_order_ = nullptr;
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
