// The shim on a GPU: host pointers staged through device memory in pipelined chunks (both cut
// directions, tails, beta != 0), device pointers run in place, mixed pointers, many host threads,
// and an allocation failure that falls back to the CPU BLAS. Exits with 77 (skipped) without a GPU.
// TILEGEMM_BLAS_MIN_FLOPS=0 sends every product to the GPU; TILEGEMM_BLAS_CHUNK_BYTES=1 makes even
// these small products run as several chunks.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "blas_test_util.hpp"
#include "tilegemm/device.hpp"

using namespace blas_test;
using tilegemm::Layout;

namespace {

// Shapes whose cut extent (N when A is the smaller operand, M otherwise) spans 1-4 chunks of >= 512.
const std::vector<Shape> kStagedShapes = {{700, 2000, 513}, {2000, 700, 513}, {1537, 1029, 65},
                                          {129, 2600, 300}, {64, 48, 32},     {1, 1500, 700},
                                          {1500, 1, 700}};

struct DeviceCopy {
  float* ptr = nullptr;
  explicit DeviceCopy(const std::vector<float>& host) {
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&ptr), host.size() * sizeof(float)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(ptr, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~DeviceCopy() { cudaFree(ptr); }
  std::vector<float> download(size_t n) const {
    std::vector<float> out(n);
    EXPECT_EQ(cudaMemcpy(out.data(), ptr, n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    return out;
  }
};

TEST(BlasGpu, HostPointersStagedInChunks) {
  std::vector<Problem> problems = sweep(Layout::ColMajor, kStagedShapes, 500);
  for (Problem& p : sweep(Layout::RowMajor, {{1100, 900, 257}}, 600)) problems.push_back(p);
  const unsigned long long before = route_count(TILEGEMM_BLAS_GPU_STAGED);
  for (const Problem& p : problems) EXPECT_TRUE(matches_reference(p, call_sgemm_or_cblas(p)));
  EXPECT_EQ(route_count(TILEGEMM_BLAS_GPU_STAGED) - before, problems.size());
}

TEST(BlasGpu, DevicePointersRunInPlace) {
  std::vector<Problem> problems = sweep(Layout::ColMajor, {{127, 129, 131}, {1, 700, 300}}, 700);
  for (Problem& p : sweep(Layout::RowMajor, {{300, 2, 257}}, 800)) problems.push_back(p);
  const unsigned long long before = route_count(TILEGEMM_BLAS_GPU_DIRECT);
  for (const Problem& p : problems) {
    DeviceCopy a(p.a), b(p.b), c(p.c0);
    call_sgemm_on(p, a.ptr, b.ptr, c.ptr);
    EXPECT_TRUE(matches_reference(p, c.download(p.c0.size())));
  }
  EXPECT_EQ(route_count(TILEGEMM_BLAS_GPU_DIRECT) - before, problems.size());
}

TEST(BlasGpu, MixedHostAndDevicePointers) {
  const Problem p = make_problem(Layout::ColMajor, 'T', 'N', 1100, 1300, 257, 5, -1.25f, 0.5f, 900);
  const unsigned long long before = route_count(TILEGEMM_BLAS_GPU_STAGED);
  for (int device_mask = 1; device_mask < 7; ++device_mask) {  // which of A, B, C live on the device
    SCOPED_TRACE("device mask " + std::to_string(device_mask));
    DeviceCopy a(p.a), b(p.b), c(p.c0);
    std::vector<float> host_c = p.c0;
    call_sgemm_on(p, device_mask & 1 ? a.ptr : p.a.data(), device_mask & 2 ? b.ptr : p.b.data(),
                  device_mask & 4 ? c.ptr : host_c.data());
    EXPECT_TRUE(matches_reference(p, device_mask & 4 ? c.download(p.c0.size()) : host_c));
  }
  EXPECT_EQ(route_count(TILEGEMM_BLAS_GPU_STAGED) - before, 6u);
}

TEST(BlasGpu, ManyThreadsAtOnce) {
  // Each product spans 2-3 chunks (TILEGEMM_BLAS_CHUNK_BYTES=1), so the threads' pipelines interleave.
  const unsigned long long before = route_count(TILEGEMM_BLAS_GPU_STAGED);
  check_many_threads(8, 4, 300, 97, 1100, 64);
  EXPECT_EQ(route_count(TILEGEMM_BLAS_GPU_STAGED) - before, 32u);
}

// Run alone (its own CTest entry): the shim's memory pool must be empty when the device fills up.
TEST(BlasGpuAlone, AllocationFailureFallsBackToTheCpu) {
  const Problem p = make_problem(Layout::ColMajor, 'N', 'T', 768, 640, 512, 1, 0.5f, 2.0f, 1234);
  {  // Make the shim's streams first with a product that needs no scratch memory (alpha == 0 on
     // device C only scales C), so that what fails below is the staging allocation.
    const Problem scale = make_problem(Layout::ColMajor, 'N', 'N', 64, 64, 64, 0, 0.0f, 0.5f, 1);
    DeviceCopy c(scale.c0);
    call_sgemm_on(scale, nullptr, nullptr, c.ptr);
    ASSERT_TRUE(matches_reference(scale, c.download(scale.c0.size())));
  }
  // Fill the device, leaving less than the staged buffers need (a few MB).
  std::vector<void*> hog;
  size_t free_bytes = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  for (size_t chunk = size_t(1) << 30; chunk >= (size_t(1) << 20);) {
    void* ptr = nullptr;
    if (cudaMalloc(&ptr, chunk) == cudaSuccess) {
      hog.push_back(ptr);
    } else {
      cudaGetLastError();
      chunk /= 2;
    }
  }
  const unsigned long long fallback = route_count(TILEGEMM_BLAS_CPU_FALLBACK);
  testing::internal::CaptureStderr();
  EXPECT_TRUE(matches_reference(p, call_sgemm_or_cblas(p)));
  EXPECT_TRUE(matches_reference(p, call_sgemm_or_cblas(p)));
  const std::string err = testing::internal::GetCapturedStderr();
  for (void* ptr : hog) cudaFree(ptr);
  EXPECT_EQ(route_count(TILEGEMM_BLAS_CPU_FALLBACK) - fallback, 2u);
  // One warning for the process, naming the failure.
  size_t warnings = 0;
  for (size_t at = err.find("warning:"); at != std::string::npos; at = err.find("warning:", at + 1)) ++warnings;
  EXPECT_EQ(warnings, 1u) << err;
  EXPECT_NE(err.find("cudaErrorMemoryAllocation"), std::string::npos) << err;
  // Running out of memory does not give up the GPU: with the memory back, the next call uses it.
  const unsigned long long staged = route_count(TILEGEMM_BLAS_GPU_STAGED);
  EXPECT_TRUE(matches_reference(p, call_sgemm_or_cblas(p)));
  EXPECT_EQ(route_count(TILEGEMM_BLAS_GPU_STAGED) - staged, 1u);
}

}  // namespace

int main(int argc, char** argv) {
  if (tilegemm::device_count() == 0) {
    std::printf("no CUDA device: skipping the BLAS shim's GPU tests\n");
    return 77;
  }
  setenv("TILEGEMM_BLAS_MIN_FLOPS", "0", 1);
  setenv("TILEGEMM_BLAS_CHUNK_BYTES", "1", 1);
  setenv("TILEGEMM_BLAS_TEST_ROUTE", "gpu_staged", 1);  // for test_blas.cpp's products
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
