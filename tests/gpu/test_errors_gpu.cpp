// Bad input that needs a device to detect: host pointers, and the checks performed before any launch
// leave device outputs untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/device_buffer.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

void expect_invalid(const std::function<void()>& call, const std::string& needle) {
  try {
    call();
    ADD_FAILURE() << "expected tilegemm::Error mentioning '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(GemmErrorsGpu, HostPointersAreRejectedAndOutputUntouched) {
  const int n = 8;
  DeviceBuffer<float> da(n * n), db(n * n), dc(n * n);
  std::vector<float> sentinel(n * n, 42.0f);
  dc.upload(sentinel);
  da.upload(std::vector<float>(n * n, 1.0f));
  db.upload(std::vector<float>(n * n, 1.0f));
  std::vector<float> host(n * n, 1.0f);
  expect_invalid([&] { sgemm(Layout::RowMajor, Op::N, Op::N, n, n, n, 1.0f, host.data(), n, db.get(), n,
                             0.0f, dc.get(), n); }, "a is a host pointer");
  expect_invalid([&] { sgemm(Layout::RowMajor, Op::N, Op::N, n, n, n, 1.0f, da.get(), n, host.data(), n,
                             0.0f, dc.get(), n); }, "b is a host pointer");
  std::vector<float> host_c(n * n, 7.0f);
  expect_invalid([&] { sgemm(Layout::RowMajor, Op::N, Op::N, n, n, n, 1.0f, da.get(), n, db.get(), n,
                             0.0f, host_c.data(), n); }, "c is a host pointer");
  EXPECT_EQ(host_c, std::vector<float>(n * n, 7.0f));
  // Argument errors on device memory: nothing launched, C unchanged.
  expect_invalid([&] { sgemm(Layout::RowMajor, Op::N, Op::N, n, n, n, 1.0f, da.get(), n - 1, db.get(), n,
                             0.0f, dc.get(), n); }, "lda");
  expect_invalid([&] { sgemm(Layout::RowMajor, Op::N, Op::N, n, n, n, 1.0f, da.get(), n, db.get(), n,
                             0.0f, da.get(), n); }, "c overlaps a");
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(dc.download(), sentinel);
}

TEST(GemmErrorsGpu, KZeroAndAlphaZeroScaleCWithoutReadingAB) {
  const int m = 5, n = 3;
  DeviceBuffer<float> dc(m * n);
  std::vector<float> c(m * n);
  for (int i = 0; i < m * n; ++i) c[i] = static_cast<float>(i) - 4.0f;
  dc.upload(c);
  // k == 0: A and B may be null (they are empty); C = beta * C.
  sgemm(Layout::RowMajor, Op::N, Op::N, m, n, 0, 1.0f, nullptr, 1, nullptr, n, 2.0f, dc.get(), n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> out = dc.download();
  for (int i = 0; i < m * n; ++i) EXPECT_EQ(out[i], 2.0f * c[i]);
  // alpha == 0 with NaN inputs: A and B are not read.
  DeviceBuffer<float> da(m * 4), db(4 * n);
  da.upload(std::vector<float>(m * 4, std::nanf("")));
  db.upload(std::vector<float>(4 * n, std::nanf("")));
  sgemm(Layout::RowMajor, Op::N, Op::N, m, n, 4, 0.0f, da.get(), 4, db.get(), n, 0.5f, dc.get(), n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  out = dc.download();
  for (int i = 0; i < m * n; ++i) EXPECT_EQ(out[i], c[i]);
}

}  // namespace
}  // namespace tilegemm
