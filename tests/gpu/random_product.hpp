// A row-major product C = A * op(B) (alpha 1, beta 0) with fresh random A and B in [-1, 1], its CPU
// reference, and runs of it with one config (or Auto) on a stream. Shared by the GPU test files.
#pragma once
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/device_buffer.hpp"
#include "ref/reference.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {

struct RandomProduct {
  int64_t m, n, k;
  bool trans_b;
  DeviceBuffer<float> a, b, c;
  std::vector<float> want;

  RandomProduct(int64_t m_, int64_t n_, int64_t k_, bool trans_b_, unsigned seed)
      : m(m_), n(n_), k(k_), trans_b(trans_b_), a(m_ * k_), b(k_ * n_), c(m_ * n_), want(m_ * n_) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> ha(m * k), hb(k * n);
    for (float& v : ha) v = dist(rng);
    for (float& v : hb) v = dist(rng);
    a.upload(ha);
    b.upload(hb);
    ref::sgemm(Layout::RowMajor, Op::N, op_b(), m, n, k, 1.0f, ha.data(), k, hb.data(), ldb(), 0.0f, want.data(), n);
  }
  Op op_b() const { return trans_b ? Op::T : Op::N; }
  int64_t ldb() const { return trans_b ? k : n; }
  // NaN. Waits for the memset: a product on a non-blocking stream does not wait for the legacy stream.
  void poison() {
    ASSERT_EQ(cudaMemset(c.get(), 0xff, c.size() * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  // An empty config runs Kernel::Auto's choice.
  void run(const std::string& config, cudaStream_t stream) {
    GemmOptions opt;
    opt.config = config;
    sgemm(Layout::RowMajor, Op::N, op_b(), m, n, k, 1.0f, a.get(), k, b.get(), ldb(), 0.0f, c.get(), n, stream, opt);
  }
  GemmChoice explain() const {
    return explain_choice(Layout::RowMajor, Op::N, op_b(), m, n, k, 1.0f, a.get(), k, b.get(), ldb(), 0.0f, c.get(), n);
  }
  // Auto on the legacy stream into poisoned C, checked against the reference.
  void run_auto_and_check() {
    poison();
    run("", nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    expect_near_reference(c.download());
  }
  void expect_near_reference(const std::vector<float>& got) const {
    const double tol = ref::fp32_gemm_error_bound(k);
    int64_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
      if (!(std::fabs(got[i] - want[i]) <= tol) && bad++ < 5)
        ADD_FAILURE() << "C[" << i << "] = " << got[i] << ", expected " << want[i] << " (tolerance " << tol << ")";
    EXPECT_EQ(bad, 0);
  }
};

}  // namespace tilegemm
