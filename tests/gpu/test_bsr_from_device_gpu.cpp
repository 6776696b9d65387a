// DeviceBsrMatrix::from_device (BSR arrays already in device memory, int32 or int64 indices, as a
// torch.sparse_bsr_tensor holds them) and DeviceBsrMatrix::borrow, against the host path as the
// independent reference: the host constructor (its row order is computed on the host) with the same
// product kernels must give bitwise the same Y, and both match the CPU reference (ref::bsr_xwt /
// ref::bsr_wx) within the FP32 tolerance. Block shapes 1x1, 4x4, 16x16, 32x8, 64x64 with skewed
// block rows (empty rows, one full row, ties); a non-blocking stream; every structure error the
// device check reports (message names the array, the position and the value), host-side argument
// errors, repeated errors leaking nothing; validate == false; borrow() handles that free nothing;
// nnzb == 0 and 0-row matrices.
//
// Case names start with Small_ (run under compute-sanitizer by run_sanitizer.sh) or Large_.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gpu/bsr_test_util.hpp"
#include "core/device_buffer.hpp"
#include "ref/bsr_reference.hpp"
#include "ref/reference.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const BsrKernel kAllKernels[] = {BsrKernel::Auto, BsrKernel::Reduction, BsrKernel::SmallM,
                                 BsrKernel::Tiled, BsrKernel::TiledTf32x3};
const char* const kFrom = "DeviceBsrMatrix::from_device: ";

using bsr_test::expect_invalid;
using bsr_test::same_matrix;

bool is_device_memory(const void* p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeDevice;
}

// ---- device arrays ------------------------------------------------------------------------------

template <class T>
DeviceBuffer<T> upload_on(const std::vector<T>& host, cudaStream_t stream) {
  DeviceBuffer<T> d(host.size());
  if (!host.empty()) {
    EXPECT_EQ(cudaMemcpyAsync(d.get(), host.data(), host.size() * sizeof(T),
                              cudaMemcpyHostToDevice, stream),
              cudaSuccess);
  }
  return d;
}

template <class T>
std::vector<T> download_on(const T* dev, size_t count, cudaStream_t stream) {
  std::vector<T> host(count);
  if (count > 0) {
    EXPECT_EQ(cudaMemcpyAsync(host.data(), dev, count * sizeof(T), cudaMemcpyDeviceToHost, stream),
              cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  }
  return host;
}

std::vector<int64_t> widen(const std::vector<int32_t>& v) { return {v.begin(), v.end()}; }

// Device copies of a BSR matrix's arrays (indices given as int64 so that tests can store values
// beyond int32; narrowed for Int32), and the DeviceBsrArrays describing them. The copies are
// enqueued on `stream`; with sync == false nothing waits for them (from_device on the same stream
// is ordered after them).
struct DeviceArrays {
  DeviceBuffer<float> blocks;
  DeviceBuffer<int32_t> indices32, pointer32;
  DeviceBuffer<int64_t> indices64, pointer64;
  DeviceBsrArrays arrays;

  DeviceArrays(const BsrMatrix& h, IndexType type, cudaStream_t stream = nullptr, bool sync = true)
      : DeviceArrays(h, widen(h.block_indices), widen(h.index_pointer), type, stream, sync) {}
  DeviceArrays(const BsrMatrix& h, const std::vector<int64_t>& block_indices,
               const std::vector<int64_t>& index_pointer, IndexType type,
               cudaStream_t stream = nullptr, bool sync = true) {
    blocks = upload_on(h.block_data, stream);
    arrays.block_data = blocks.get();
    if (type == IndexType::Int64) {
      indices64 = upload_on(block_indices, stream);
      pointer64 = upload_on(index_pointer, stream);
      arrays.block_indices = indices64.get();
      arrays.index_pointer = pointer64.get();
    } else {
      indices32 = upload_on(std::vector<int32_t>(block_indices.begin(), block_indices.end()), stream);
      pointer32 = upload_on(std::vector<int32_t>(index_pointer.begin(), index_pointer.end()), stream);
      arrays.block_indices = indices32.get();
      arrays.index_pointer = pointer32.get();
    }
    arrays.index_type = type;
    arrays.rows = h.rows;
    arrays.cols = h.cols;
    arrays.block_rows = h.block_rows;
    arrays.block_cols = h.block_cols;
    arrays.nnzb = static_cast<int64_t>(block_indices.size());
    if (sync) {
      EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    }
  }
};

const char* name_of(IndexType t) { return t == IndexType::Int64 ? "int64" : "int32"; }

std::vector<int32_t> download_row_order(const DeviceBsrMatrix& d) {
  const size_t n = static_cast<size_t>(d.block_row_count());
  if (n > 0) {
    EXPECT_NE(d.row_order(), nullptr);
  }
  return download_on(d.row_order(), n, nullptr);
}

// A matrix with skewed block rows: every third row (1, 4, 7, ...) empty, the middle row full, the
// others 1 to bcols / 4 blocks at random columns (many ties in length, so the order's tie rule
// matters). Values uniform in [-1, 1).
BsrMatrix skewed_matrix(int r, int c, int64_t brows, int64_t bcols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  BsrMatrix h;
  h.rows = brows * r;
  h.cols = bcols * c;
  h.block_rows = r;
  h.block_cols = c;
  std::vector<int32_t> all(static_cast<size_t>(bcols));
  std::iota(all.begin(), all.end(), 0);
  for (int64_t i = 0; i < brows; ++i) {
    std::vector<int32_t> cols;
    if (i == brows / 2) {
      cols = all;
    } else if (i % 3 != 1) {
      const int64_t count = 1 + static_cast<int64_t>(rng() % std::max<uint64_t>(1, bcols / 4));
      std::vector<int32_t> pick = all;
      std::shuffle(pick.begin(), pick.end(), rng);
      cols.assign(pick.begin(), pick.begin() + count);
      std::sort(cols.begin(), cols.end());
    }
    h.block_indices.insert(h.block_indices.end(), cols.begin(), cols.end());
    h.index_pointer.push_back(static_cast<int32_t>(h.block_indices.size()));
  }
  h.block_data.resize(h.block_indices.size() * static_cast<size_t>(r) * static_cast<size_t>(c));
  for (float& v : h.block_data) v = value(rng);
  return h;
}

struct Shape {
  int r, c;
  int64_t brows, bcols;
};
const Shape kShapes[] = {{1, 1, 97, 61}, {4, 4, 37, 29}, {16, 16, 13, 11}, {32, 8, 9, 17},
                         {64, 64, 7, 5}};

std::string shape_name(const BsrMatrix& h) {
  return std::to_string(h.rows) + "x" + std::to_string(h.cols) + " blocks " +
         std::to_string(h.block_rows) + "x" + std::to_string(h.block_cols) + " nnzb " +
         std::to_string(h.nnzb());
}

// ---- products -----------------------------------------------------------------------------------

// Y = X W^T and Y = W X (batch 13 and 100, every kernel, beta = 0 over NaN) with `want` and with
// `got`, on `stream`: bitwise the same Y, which matches the CPU reference.
void expect_same_products(const DeviceBsrMatrix& want, const DeviceBsrMatrix& got,
                          const BsrMatrix& h, cudaStream_t stream, uint64_t seed,
                          std::vector<int64_t> batches = {13, 100}) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (const bool xwt : {true, false})
    for (const int64_t batch : batches) {
      const int64_t k = h.cols;
      const int64_t m = xwt ? batch : h.rows, n = xwt ? h.rows : batch;
      const int64_t ldx = xwt ? std::max<int64_t>(k, 1) : std::max<int64_t>(n, 1);
      const int64_t ldy = std::max<int64_t>(n, 1);
      std::vector<float> x(static_cast<size_t>(std::max<int64_t>((xwt ? m : k) * ldx, 1)));
      for (float& v : x) v = value(rng);
      std::vector<float> ref(static_cast<size_t>(std::max<int64_t>(m * ldy, 1)), kNaN);
      if (xwt)
        ref::bsr_xwt(m, n, k, 1.0f, x.data(), ldx, h, 0.0f, ref.data(), ldy);
      else
        ref::bsr_wx(m, n, k, 1.0f, h, x.data(), ldx, 0.0f, ref.data(), ldy);
      const double tol = ref::fp32_gemm_error_bound(k);  // |x|, |w| <= 1
      DeviceBuffer<float> dx = upload_on(x, stream);
      const std::vector<float> poison(ref.size(), kNaN);
      for (const BsrKernel kernel : kAllKernels) {
        SCOPED_TRACE(std::string(xwt ? "XW^T" : "WX") + " batch " + std::to_string(batch) +
                     ", kernel " + to_string(kernel));
        BsrOptions opt;
        opt.kernel = kernel;
        std::vector<float> out[2];
        const DeviceBsrMatrix* ws[2] = {&want, &got};
        for (int which = 0; which < 2; ++which) {
          DeviceBuffer<float> dy = upload_on(poison, stream);
          if (xwt)
            bsr_xwt(m, n, k, 1.0f, dx.get(), ldx, *ws[which], 0.0f, dy.get(), ldy, stream, opt);
          else
            bsr_wx(m, n, k, 1.0f, *ws[which], dx.get(), ldx, 0.0f, dy.get(), ldy, stream, opt);
          out[which] = download_on(dy.get(), dy.size(), stream);
        }
        ASSERT_EQ(out[0].size(), out[1].size());
        EXPECT_EQ(std::memcmp(out[0].data(), out[1].data(), out[0].size() * sizeof(float)), 0)
            << "Y differs from the host-constructed matrix's";
        int64_t bad = 0;
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            const size_t idx = static_cast<size_t>(i * ldy + j);
            if (!(std::fabs(double(out[1][idx]) - double(ref[idx])) <= tol) && bad++ < 5)
              ADD_FAILURE() << "Y(" << i << ", " << j << ") = " << out[1][idx] << ", expected "
                            << ref[idx];
          }
        EXPECT_EQ(bad, 0);
      }
    }
}

// Everything from_device's matrix must share with the host-constructed one.
void expect_same_preparation(const DeviceBsrMatrix& d, const DeviceBsrMatrix& ref,
                             const BsrMatrix& h) {
  EXPECT_EQ(d.rows(), h.rows);
  EXPECT_EQ(d.cols(), h.cols);
  EXPECT_EQ(d.block_rows(), h.block_rows);
  EXPECT_EQ(d.block_cols(), h.block_cols);
  EXPECT_EQ(d.nnzb(), h.nnzb());
  EXPECT_EQ(d.block_row_count(), h.block_row_count());
  EXPECT_EQ(d.row_lengths_longest_first(), ref.row_lengths_longest_first());
  EXPECT_EQ(download_row_order(d), download_row_order(ref));
  EXPECT_EQ(d.max_row_blocks(), ref.max_row_blocks());
  EXPECT_NO_THROW(validate_bsr_shape(d.view()));
  EXPECT_TRUE(same_matrix(d.to_host(), h));
}

// ---- from_device against the host constructor ---------------------------------------------------

TEST(BsrFromDevice, Small_MatchesHostConstructor) {
  uint64_t seed = 100;
  for (const Shape& s : kShapes) {
    const BsrMatrix h = skewed_matrix(s.r, s.c, s.brows, s.bcols, ++seed);
    ASSERT_NO_THROW(validate(h));
    const DeviceBsrMatrix ref(h);
    ASSERT_TRUE(ref.owns_blocks());
    ASSERT_TRUE(ref.owns_indices());
    EXPECT_EQ(ref.max_row_blocks(), s.bcols);  // the full row
    for (const IndexType type : {IndexType::Int32, IndexType::Int64}) {
      SCOPED_TRACE(shape_name(h) + ", " + name_of(type) + " indices");
      const DeviceArrays arr(h, type);
      const DeviceBsrMatrix d = DeviceBsrMatrix::from_device(arr.arrays);
      EXPECT_FALSE(d.owns_blocks());
      EXPECT_EQ(d.owns_indices(), type == IndexType::Int64);
      const BsrView v = d.view();
      EXPECT_EQ(v.block_data, arr.blocks.get()) << "blocks are used in place";
      if (type == IndexType::Int32) {
        EXPECT_EQ(v.block_indices, arr.indices32.get()) << "int32 indices are used in place";
        EXPECT_EQ(v.index_pointer, arr.pointer32.get());
      } else {
        EXPECT_TRUE(is_device_memory(v.block_indices));
        EXPECT_TRUE(is_device_memory(v.index_pointer));
      }
      EXPECT_TRUE(is_device_memory(d.row_order()));
      expect_same_preparation(d, ref, h);
      expect_same_products(ref, d, h, nullptr, seed * 7);
    }
  }
}

// The tie rule on a hand-made matrix: block rows of 2, 0, 3, 2, 3, 0, 1 blocks are ordered
// 2, 4, 0, 3, 6, 1, 5 (longest first, equal lengths in increasing row order).
TEST(BsrFromDevice, Small_RowOrderLongestFirstTiesByRow) {
  const std::vector<int> lengths = {2, 0, 3, 2, 3, 0, 1};
  BsrMatrix h;
  h.rows = 7 * 8;
  h.cols = 4 * 8;
  h.block_rows = h.block_cols = 8;
  for (int len : lengths) {
    for (int c = 0; c < len; ++c) h.block_indices.push_back(c + (4 - len));
    h.index_pointer.push_back(static_cast<int32_t>(h.block_indices.size()));
  }
  h.block_data.assign(h.block_indices.size() * 64, 0.5f);
  for (const IndexType type : {IndexType::Int32, IndexType::Int64}) {
    SCOPED_TRACE(name_of(type));
    const DeviceArrays arr(h, type);
    const DeviceBsrMatrix d = DeviceBsrMatrix::from_device(arr.arrays);
    EXPECT_EQ(download_row_order(d), (std::vector<int32_t>{2, 4, 0, 3, 6, 1, 5}));
    EXPECT_EQ(d.row_lengths_longest_first(), (std::vector<int32_t>{3, 3, 2, 2, 1, 0, 0}));
    EXPECT_EQ(d.max_row_blocks(), 3);
  }
}

// Everything on one non-blocking stream: the arrays are uploaded on it without waiting, the host
// constructor and from_device take it, the products run on it and Y is read back on it.
TEST(BsrFromDevice, Small_NonBlockingStream) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  uint64_t seed = 200;
  for (const Shape& s : {kShapes[2], kShapes[3], kShapes[4]}) {
    const BsrMatrix h = skewed_matrix(s.r, s.c, s.brows, s.bcols, ++seed);
    const DeviceBsrMatrix ref(h, stream);
    EXPECT_TRUE(same_matrix(ref.to_host(), h));
    for (const IndexType type : {IndexType::Int32, IndexType::Int64}) {
      SCOPED_TRACE(shape_name(h) + ", " + name_of(type) + " indices");
      const DeviceArrays arr(h, type, stream, /*sync=*/false);
      const DeviceBsrMatrix d = DeviceBsrMatrix::from_device(arr.arrays, stream);
      expect_same_preparation(d, ref, h);
      expect_same_products(ref, d, h, stream, seed * 11, {21});
    }
  }
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// validate == false skips the check but prepares the same matrix.
TEST(BsrFromDevice, Small_WithoutValidationSameResult) {
  uint64_t seed = 300;
  for (const Shape& s : {kShapes[0], kShapes[2]}) {
    const BsrMatrix h = skewed_matrix(s.r, s.c, s.brows, s.bcols, ++seed);
    const DeviceBsrMatrix ref(h);
    for (const IndexType type : {IndexType::Int32, IndexType::Int64}) {
      SCOPED_TRACE(shape_name(h) + ", " + name_of(type) + " indices");
      const DeviceArrays arr(h, type);
      const DeviceBsrMatrix d = DeviceBsrMatrix::from_device(arr.arrays, nullptr, false);
      expect_same_preparation(d, ref, h);
      expect_same_products(ref, d, h, nullptr, seed * 13, {13});
    }
  }
}

// ---- structure errors (validate == true) --------------------------------------------------------

// 8 x 8 blocks, 6 block rows, 5 block columns:
//   row 0: 1 3 | row 1: - | row 2: 0 2 4 | row 3: 4 | row 4: 0 1 | row 5: 1 2 3
// positions:  0 1            2 3 4           5          6 7          8 9 10
BsrMatrix small_valid() {
  BsrMatrix h;
  h.rows = 48;
  h.cols = 40;
  h.block_rows = h.block_cols = 8;
  h.index_pointer = {0, 2, 2, 5, 6, 8, 11};
  h.block_indices = {1, 3, 0, 2, 4, 4, 0, 1, 1, 2, 3};
  h.block_data.assign(11 * 64, 0.25f);
  return h;
}

struct BadStructure {
  std::string what;
  std::function<void(std::vector<int64_t>& indices, std::vector<int64_t>& pointer)> corrupt;
  std::string needle32, needle64;  // the message's distinctive part per index type
};

std::vector<BadStructure> bad_structures() {
  using V = std::vector<int64_t>;
  const std::string ip = "arrays.index_pointer", bi = "arrays.block_indices";
  std::vector<BadStructure> v;
  auto same = [&](std::string what, std::function<void(V&, V&)> f, const std::string& needle) {
    v.push_back({std::move(what), std::move(f), needle, needle});
  };
  same("index_pointer[0] != 0", [](V&, V& p) { p[0] = 1; }, ip + "[0] = 1, must be 0");
  same("index_pointer[last] != nnzb", [](V&, V& p) { p[6] = 10; },
       ip + "[last] = 10 but arrays.nnzb = 11");
  same("decreasing index_pointer", [](V&, V& p) { p[3] = 1; },
       ip + " decreases at block row 2 (2 -> 1)");
  same("block index out of range", [](V& b, V&) { b[3] = 5; },
       bi + "[3] (block row 2): column index 5 out of range [0, 5)");
  v.push_back({"negative block index", [](V& b, V&) { b[6] = -1; },
               bi + "[6] (block row 4): column index -1 out of range [0, 5)",
               bi + "[6] = -1 is outside [0, 2^31-1]"});
  same("duplicated block index", [](V& b, V&) { b[4] = 2; },
       bi + "[4] (block row 2): duplicated column index 2");
  same("unsorted block indices", [](V& b, V&) { std::swap(b[9], b[10]); },
       bi + "[10] (block row 5): column indices not sorted (2 after 3)");
  // Two violations: the lower position is reported, whatever its kind.
  same("first of two (duplicate before out of range)",
       [](V& b, V&) {
         b[10] = 7;
         b[4] = 2;
       },
       bi + "[4] (block row 2): duplicated column index 2");
  // index_pointer problems come before block index problems (as in tilegemm::validate).
  same("index_pointer before block_indices",
       [](V& b, V& p) {
         b[0] = 9;
         p[0] = 1;
       },
       ip + "[0] = 1");
  return v;
}

TEST(BsrFromDevice, Small_ValidationNamesEachBadStructure) {
  const BsrMatrix good = small_valid();
  ASSERT_NO_THROW(validate(good));
  for (const BadStructure& bad : bad_structures())
    for (const IndexType type : {IndexType::Int32, IndexType::Int64}) {
      SCOPED_TRACE(bad.what + ", " + name_of(type) + " indices");
      std::vector<int64_t> indices = widen(good.block_indices), pointer = widen(good.index_pointer);
      bad.corrupt(indices, pointer);
      const DeviceArrays arr(good, indices, pointer, type);
      const std::string needle =
          std::string(kFrom) + (type == IndexType::Int64 ? bad.needle64 : bad.needle32);
      expect_invalid([&] { DeviceBsrMatrix::from_device(arr.arrays); }, needle);
      // The same arrays pass without validation (the caller's promise), and a second failing call
      // behaves the same (nothing left over from the first).
      EXPECT_NO_THROW(DeviceBsrMatrix::from_device(arr.arrays, nullptr, false));
      expect_invalid([&] { DeviceBsrMatrix::from_device(arr.arrays); }, needle);
    }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

// Int64 values beyond int32 are errors, also those whose low 32 bits look valid (2^32 + 2 wraps
// to 2, which the structure check alone would accept).
TEST(BsrFromDevice, Small_Int64ValuesBeyondInt32) {
  const BsrMatrix good = small_valid();
  const int64_t two31 = int64_t{1} << 31, two32 = int64_t{1} << 32;
  struct Case {
    bool pointer;
    int64_t position, value;
  };
  for (const Case c : {Case{false, 0, two31}, Case{false, 2, two32}, Case{false, 7, two32 + 1},
                       Case{false, 10, -two32 + 3}, Case{true, 2, two32 + 2},
                       Case{true, 6, two32 + 11}, Case{true, 0, -two32}}) {
    std::vector<int64_t> indices = widen(good.block_indices), pointer = widen(good.index_pointer);
    (c.pointer ? pointer : indices)[static_cast<size_t>(c.position)] = c.value;
    const std::string needle = std::string(kFrom) +
                               (c.pointer ? "arrays.index_pointer[" : "arrays.block_indices[") +
                               std::to_string(c.position) + "] = " + std::to_string(c.value) +
                               " is outside [0, 2^31-1]";
    SCOPED_TRACE(needle);
    const DeviceArrays arr(good, indices, pointer, IndexType::Int64);
    expect_invalid([&] { DeviceBsrMatrix::from_device(arr.arrays); }, needle);
  }
}

// A block row longer than a warp's stride, with two violations far into it: the lower position is
// reported (atomicMin over all lanes and warps).
TEST(BsrFromDevice, Small_FirstViolationInALongRow) {
  BsrMatrix h;
  h.rows = 4;
  h.cols = 2000;
  h.index_pointer = {0, 3};
  h.block_indices = {5, 9, 1999};
  for (int32_t c = 0; c < 1500; ++c) h.block_indices.push_back(c);  // block row 1
  h.index_pointer.push_back(static_cast<int32_t>(h.block_indices.size()));
  h.block_indices.push_back(7);  // block row 2
  h.index_pointer.push_back(static_cast<int32_t>(h.block_indices.size()));
  h.index_pointer.push_back(static_cast<int32_t>(h.block_indices.size()));  // block row 3: empty
  h.block_data.assign(h.block_indices.size(), 1.0f);
  ASSERT_NO_THROW(validate(h));
  std::vector<int64_t> indices = widen(h.block_indices);
  std::swap(indices[3 + 700], indices[3 + 701]);  // unsorted at position 704
  indices[3 + 1200] = indices[3 + 1199];          // duplicate at 1203
  indices[3 + 1400] = 5000;                       // out of range at 1403
  for (const IndexType type : {IndexType::Int32, IndexType::Int64}) {
    SCOPED_TRACE(name_of(type));
    const DeviceArrays arr(h, indices, widen(h.index_pointer), type);
    expect_invalid([&] { DeviceBsrMatrix::from_device(arr.arrays); },
                   "arrays.block_indices[704] (block row 1): column indices not sorted (700 after 701)");
  }
}

// Repeated failing calls free what they allocated (int64 conversion buffers of 4 MB each, the row
// order, scratch): device memory in use does not grow.
TEST(BsrFromDevice, Large_RepeatedErrorsLeakNothing) {
  BsrMatrix h = generate_bsr(2048, 2048, 1, 1, 0.75, RowDistribution::Uniform, 9);
  ASSERT_GT(h.nnzb(), 1000000);
  std::vector<int64_t> indices = widen(h.block_indices);
  indices.back() = 4096;  // out of range, found at the very end
  const DeviceArrays arr(h, indices, widen(h.index_pointer), IndexType::Int64);
  auto fail = [&] {
    expect_invalid([&] { DeviceBsrMatrix::from_device(arr.arrays); }, "out of range [0, 2048)");
  };
  fail();  // warm-up: the workspace pool, CUB, the device context
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  size_t free_before = 0, free_after = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
  for (int i = 0; i < 20; ++i) fail();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
  // A leak would hold 20 x (4 MB of converted indices + 16 KB) = 80 MB.
  EXPECT_LE(static_cast<int64_t>(free_before) - static_cast<int64_t>(free_after),
            int64_t{8} << 20)
      << "device memory in use grew over 20 failed calls";
}

// ---- host-side argument errors ------------------------------------------------------------------

// Bad arguments the host can see are reported before anything is launched.
TEST(BsrFromDevice, Small_HostSideArgumentErrors) {
  const BsrMatrix good = small_valid();
  const DeviceArrays a32(good, IndexType::Int32), a64(good, IndexType::Int64);
  const std::string p = kFrom;
  auto expect_rejected = [&](const std::function<void(DeviceBsrArrays&)>& change,
                             const std::string& needle) {
    for (const DeviceArrays* a : {&a32, &a64}) {
      SCOPED_TRACE(name_of(a->arrays.index_type));
      DeviceBsrArrays bad = a->arrays;
      change(bad);
      expect_invalid([&] { DeviceBsrMatrix::from_device(bad); }, p + needle);
      expect_invalid([&] { DeviceBsrMatrix::from_device(bad, nullptr, false); }, p + needle);
    }
  };
  expect_rejected([](DeviceBsrArrays& a) { a.block_data = nullptr; },
                  "arrays.block_data is a null pointer (nnzb = 11)");
  expect_rejected([](DeviceBsrArrays& a) { a.block_indices = nullptr; },
                  "arrays.block_indices is a null pointer (nnzb = 11)");
  expect_rejected([](DeviceBsrArrays& a) { a.index_pointer = nullptr; },
                  "arrays.index_pointer is a null pointer (6 block rows)");
  expect_rejected([](DeviceBsrArrays& a) { a.rows = 50; },
                  "arrays.rows = 50 is not divisible by arrays.block_rows = 8");
  expect_rejected([](DeviceBsrArrays& a) { a.cols = 36; },
                  "arrays.cols = 36 is not divisible by arrays.block_cols = 8");
  expect_rejected([](DeviceBsrArrays& a) { a.block_rows = 0; }, "arrays.block_rows = 0 must be >= 1");
  expect_rejected([](DeviceBsrArrays& a) { a.cols = -8; }, "arrays.cols = -8 is negative");
  expect_rejected([](DeviceBsrArrays& a) { a.rows = int64_t{1} << 32; },
                  "arrays.rows = 4294967296 exceeds 2^31-1");
  expect_rejected([](DeviceBsrArrays& a) { a.nnzb = -1; }, "arrays.nnzb = -1 is negative");
  expect_rejected([](DeviceBsrArrays& a) { a.nnzb = 31; },
                  "arrays.nnzb = 31 exceeds the number of blocks (6 x 5 = 30)");
  expect_rejected([](DeviceBsrArrays& a) { a.index_type = static_cast<IndexType>(7); },
                  "arrays.index_type = 7 is not an IndexType value");
  // Host memory where device memory is needed.
  std::vector<float> host_blocks = good.block_data;
  std::vector<int64_t> host_indices(good.block_indices.begin(), good.block_indices.end());
  std::vector<int64_t> host_pointer(good.index_pointer.begin(), good.index_pointer.end());
  expect_rejected([&](DeviceBsrArrays& a) { a.block_data = host_blocks.data(); },
                  "arrays.block_data is a host pointer; tilegemm needs device memory");
  expect_rejected([&](DeviceBsrArrays& a) { a.block_indices = host_indices.data(); },
                  "arrays.block_indices is a host pointer");
  expect_rejected([&](DeviceBsrArrays& a) { a.index_pointer = host_pointer.data(); },
                  "arrays.index_pointer is a host pointer");
  // Misaligned pointers (a device fault otherwise); the message gives the address.
  {
    DeviceBsrArrays bad = a64.arrays;
    bad.index_pointer = static_cast<const char*>(bad.index_pointer) + 4;
    expect_invalid([&] { DeviceBsrMatrix::from_device(bad); }, p + "arrays.index_pointer = ");
    expect_invalid([&] { DeviceBsrMatrix::from_device(bad); },
                   " is not aligned to 8 bytes (int64 entries)");
  }
  for (const DeviceArrays* a : {&a32, &a64}) {
    DeviceBsrArrays bad = a->arrays;
    bad.block_data =
        reinterpret_cast<const float*>(reinterpret_cast<const char*>(bad.block_data) + 2);
    expect_invalid([&] { DeviceBsrMatrix::from_device(bad); }, p + "arrays.block_data = ");
    expect_invalid([&] { DeviceBsrMatrix::from_device(bad); },
                   " is not aligned to 4 bytes (float entries)");
  }
  // The valid arrays still work after all that.
  const DeviceBsrMatrix ref(good);
  for (const DeviceArrays* a : {&a32, &a64}) {
    const DeviceBsrMatrix d = DeviceBsrMatrix::from_device(a->arrays);
    expect_same_preparation(d, ref, good);
  }
}

// ---- borrow -------------------------------------------------------------------------------------

TEST(BsrFromDevice, Small_BorrowSharesAndFreesNothing) {
  const BsrMatrix h = skewed_matrix(16, 16, 13, 11, 400);
  const DeviceBsrMatrix ref(h);
  for (const IndexType type : {IndexType::Int32, IndexType::Int64}) {
    SCOPED_TRACE(name_of(type));
    const DeviceArrays arr(h, type);
    const DeviceBsrMatrix d = DeviceBsrMatrix::from_device(arr.arrays);
    const BsrView v = d.view();
    {
      DeviceBsrMatrix b = DeviceBsrMatrix::borrow(v, d.row_order(), d.row_lengths_longest_first());
      EXPECT_FALSE(b.owns_blocks());
      EXPECT_FALSE(b.owns_indices());
      EXPECT_EQ(b.view().block_data, v.block_data);
      EXPECT_EQ(b.view().block_indices, v.block_indices);
      EXPECT_EQ(b.view().index_pointer, v.index_pointer);
      EXPECT_EQ(b.row_order(), d.row_order());
      expect_same_preparation(b, ref, h);
      expect_same_products(ref, b, h, nullptr, 401, {13});
      DeviceBsrMatrix moved = std::move(b);  // the move carries "owns nothing"
      EXPECT_FALSE(moved.owns_indices());
      DeviceBsrMatrix assigned;
      assigned = DeviceBsrMatrix::borrow(v, d.row_order(), d.row_lengths_longest_first());
      assigned = std::move(moved);  // releases the first borrow: frees nothing
    }
    // The borrowed handles are gone; d's arrays (owned int64 conversions included) are intact.
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(is_device_memory(v.block_indices));
    EXPECT_TRUE(is_device_memory(v.index_pointer));
    EXPECT_TRUE(is_device_memory(d.row_order()));
    expect_same_preparation(d, ref, h);
    expect_same_products(ref, d, h, nullptr, 402, {100});
  }
  // A borrow of a host-constructed matrix frees nothing either.
  {
    const DeviceBsrMatrix b =
        DeviceBsrMatrix::borrow(ref.view(), ref.row_order(), ref.row_lengths_longest_first());
    expect_same_preparation(b, ref, h);
  }
  EXPECT_TRUE(is_device_memory(ref.view().block_data));
  EXPECT_TRUE(same_matrix(ref.to_host(), h));
}

TEST(BsrFromDevice, Small_BorrowHostChecks) {
  const BsrMatrix h = small_valid();  // row lengths 3, 3, 2, 2, 1, 0
  const DeviceBsrMatrix d(h);
  const std::string p = "DeviceBsrMatrix::borrow: ";
  const std::vector<int32_t> lengths = d.row_lengths_longest_first();
  ASSERT_EQ(lengths, (std::vector<int32_t>{3, 3, 2, 2, 1, 0}));
  expect_invalid([&] { DeviceBsrMatrix::borrow(d.view(), nullptr, lengths); },
                 p + "row_order is a null pointer (6 block rows)");
  expect_invalid([&] { DeviceBsrMatrix::borrow(d.view(), d.row_order(), {3, 3, 2}); },
                 p + "row_lengths_longest_first has 3 entries, expected block_row_count = 6");
  expect_invalid([&] { DeviceBsrMatrix::borrow(d.view(), d.row_order(), {3, 2, 3, 2, 1, 0}); },
                 p + "row_lengths_longest_first increases at entry 2 (2 -> 3)");
  expect_invalid([&] { DeviceBsrMatrix::borrow(d.view(), d.row_order(), {3, 3, 2, 2, 1, 1}); },
                 p + "row_lengths_longest_first sums to 12, expected view.nnzb = 11");
  expect_invalid([&] { DeviceBsrMatrix::borrow(d.view(), d.row_order(), {3, 3, 2, 2, 2, -1}); },
                 p + "row_lengths_longest_first[5] = -1 is negative");
  BsrView v = d.view();
  v.rows = 44;
  expect_invalid([&] { DeviceBsrMatrix::borrow(v, d.row_order(), lengths); },
                 p + "view.rows = 44 is not divisible by view.block_rows = 8");
  v = d.view();
  v.block_indices = nullptr;
  expect_invalid([&] { DeviceBsrMatrix::borrow(v, d.row_order(), lengths); },
                 p + "view.block_indices is a null pointer");
  EXPECT_TRUE(same_matrix(d.to_host(), h));
}

// ---- empty matrices -----------------------------------------------------------------------------

// nnzb == 0 (blocks and block indices may be null), k == 0, and matrices without block rows (the
// index pointer may then be null, or a single 0).
TEST(BsrFromDevice, Small_EmptyMatrices) {
  std::vector<BsrMatrix> mats;
  mats.push_back(generate_bsr(40, 24, 8, 8, 1.0, RowDistribution::Uniform, 1));  // nnzb = 0
  for (const BsrMatrix& empty : bsr_test::empty_bsr_matrices()) mats.push_back(empty);
  std::vector<float> y0(64 * 48);
  for (size_t i = 0; i < y0.size(); ++i) y0[i] = 0.01f * float(i % 101) - 0.5f;
  for (const BsrMatrix& h : mats)
    for (const IndexType type : {IndexType::Int32, IndexType::Int64}) {
      SCOPED_TRACE(shape_name(h) + ", " + name_of(type));
      ASSERT_EQ(h.nnzb(), 0);
      const DeviceBsrMatrix ref(h);
      DeviceArrays arr(h, type);
      EXPECT_EQ(arr.arrays.block_data, nullptr);
      EXPECT_EQ(arr.arrays.block_indices, nullptr);
      const DeviceBsrMatrix d = DeviceBsrMatrix::from_device(arr.arrays);
      expect_same_preparation(d, ref, h);
      std::vector<int32_t> identity(static_cast<size_t>(h.block_row_count()));
      std::iota(identity.begin(), identity.end(), 0);
      EXPECT_EQ(download_row_order(d), identity);
      EXPECT_EQ(d.max_row_blocks(), 0);
      // Y = beta * Y (X W^T: m = 5; W X: n = 5); nothing to write when W has no rows.
      for (const bool xwt : {true, false}) {
        const int64_t m = xwt ? 5 : h.rows, n = xwt ? h.rows : 5, k = h.cols;
        const int64_t ldy = std::max<int64_t>(n, 1);
        DeviceBuffer<float> dy1 = upload_on(y0, nullptr), dy2 = upload_on(y0, nullptr);
        DeviceBuffer<float> dx(static_cast<size_t>(64 * 64));
        for (const auto& [w, dy] : {std::pair<const DeviceBsrMatrix*, float*>{&ref, dy1.get()},
                                    std::pair<const DeviceBsrMatrix*, float*>{&d, dy2.get()}}) {
          if (xwt)
            bsr_xwt(m, n, k, 1.0f, dx.get(), std::max<int64_t>(k, 1), *w, 0.5f, dy, ldy);
          else
            bsr_wx(m, n, k, 1.0f, *w, dx.get(), 5, 0.5f, dy, ldy);
        }
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        const std::vector<float> got1 = dy1.download(), got2 = dy2.download();
        EXPECT_EQ(std::memcmp(got1.data(), got2.data(), got1.size() * sizeof(float)), 0);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            const size_t idx = static_cast<size_t>(i * ldy + j);
            EXPECT_EQ(got2[idx], 0.5f * y0[idx]);
          }
      }
    }
  // No block rows and no index pointer at all: no device work, nothing to point to.
  DeviceBsrArrays none;
  none.cols = 24;
  none.block_rows = 8;
  none.block_cols = 8;
  const DeviceBsrMatrix d = DeviceBsrMatrix::from_device(none);
  EXPECT_EQ(d.block_row_count(), 0);
  EXPECT_EQ(d.row_order(), nullptr);
  EXPECT_TRUE(d.row_lengths_longest_first().empty());
  BsrMatrix want;
  want.cols = 24;
  want.block_rows = want.block_cols = 8;
  EXPECT_TRUE(same_matrix(d.to_host(), want));
  EXPECT_TRUE(same_matrix(DeviceBsrMatrix::from_device(DeviceBsrArrays{}).to_host(), BsrMatrix{}));
  // Without block rows the index pointer's only entry must still be 0 (= nnzb).
  for (const IndexType type : {IndexType::Int32, IndexType::Int64}) {
    SCOPED_TRACE(name_of(type));
    BsrMatrix bad = want;
    const DeviceArrays arr(bad, {}, {3}, type);
    expect_invalid([&] { DeviceBsrMatrix::from_device(arr.arrays); },
                   std::string(kFrom) + "arrays.index_pointer[0] = 3, must be 0");
  }
}

}  // namespace
}  // namespace tilegemm
