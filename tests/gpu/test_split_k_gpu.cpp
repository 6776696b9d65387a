// Split-K and stream-K products (dense configs whose slices are summed by kernels/common/split_k.cuh) beyond
// the shape sweep of test_gemm_gpu.cpp: bitwise the same run to run and stream to stream, capturable
// into a CUDA graph with or without a warm-up call, streams created and destroyed around them keep the
// workspace pool bounded; a product overlaps its own prologue kernel only, never the work queued
// before the call; and a product whose C spans more than 2^31 elements.
// Names start with Small_ (also run under compute-sanitizer) or Large_.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/device_buffer.hpp"
#include "core/workspace.hpp"
#include "ref/reference.hpp"
#include "random_product.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

bool bitwise_equal(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

struct SplitCase {
  const char* name;
  int64_t m, n, k;
  bool trans_b;
  const char* config;
};

// Split-K over every tile, two-level sums (64 slices in groups of 8), stream-K style tails, and
// the GEMV kernels with split K.
const SplitCase kSplitCases[] = {
    {"Small_TiledSplit7", 300, 200, 9000, false, "tiled:64x64x16:w32x32:t8x4:s3:b6:k7"},
    {"Small_TiledTwoLevel64", 64, 64, 65536, false, "tiled:32x32x16:w32x16:t4x4:s4:b8:k64"},
    {"Small_TiledTwoLevel200NT", 96, 80, 60000, true, "tiled:64x64x16:w32x32:t8x4:s3:b6:k200"},
    {"Small_GemvColsSplit6", 1, 3000, 9000, false, "gemv-cols:s1:l16:k6"},
    {"Small_GemvColsOneRowTwoLevel40", 1, 700, 30000, false, "gemv-cols:s1:l8:k40"},
    {"Small_GemvColsSplit5", 4, 3000, 9000, false, "gemv-cols:s4:k5"},
    {"Small_GemvRowsSplit5", 3000, 5, 9000, false, "gemv-rows:s8:k5"},
    {"Small_GemvRowsTwoLevel40", 2, 700, 30000, true, "gemv-rows:s2:k40"},
    {"Large_StreamKTail", 3072, 3072, 1024, false, "tiled:128x256x32:w64x64:t16x8:s4:b1:tail4"},
    // Both operands packed into the same workspace as the partial tiles.
    {"Small_TiledSplit5PackedNT", 300, 200, 9000, true, "tiled:64x64x16:w32x32:t8x4:s3:b6:k5:hilbert:pack-ab"},
    // 260 = 4 x 64 + 4: the last 4 columns on the GEMV kernel, split too, after the packed tiles.
    {"Small_TiledSplit3EdgeNT", 300, 260, 9000, true, "tiled:64x64x16:w32x32:t8x4:s3:b6:k3:hilbert:pack-b:edge"},
    // Level 7's tensor-core blocks under the same scheduler: two-level sums, a stream-K tail.
    {"Small_MmaSplit40NT", 64, 64, 60000, true, "tiled:64x64x32:w32x32:tf32x3:s4:b2:k40"},
    {"Small_MmaSplit5", 300, 200, 9000, false, "tiled:128x128x32:w64x32:tf32x3c4:s3:b1:k5"},
    {"Large_MmaStreamKTail", 3072, 3072, 1024, false, "tiled:128x256x32:w64x64:tf32x3:s3:b1:tail4"},
};

class SplitK : public testing::TestWithParam<SplitCase> {};

// Two runs on the legacy stream, then two on each of two other streams: bitwise the same C, and it
// matches the reference.
TEST_P(SplitK, BitwiseRepeatableAcrossRunsAndStreams) {
  const SplitCase& sc = GetParam();
  RandomProduct pr(sc.m, sc.n, sc.k, sc.trans_b, 17);
  cudaStream_t s1 = nullptr, s2 = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&s2), cudaSuccess);
  std::vector<float> first;
  for (cudaStream_t s : {cudaStream_t{nullptr}, cudaStream_t{nullptr}, s1, s1, s2, s2}) {
    pr.poison();
    pr.run(sc.config, s);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<float> got = pr.c.download();
    if (first.empty()) {
      pr.expect_near_reference(got);
      first = got;
    } else {
      EXPECT_TRUE(bitwise_equal(got, first)) << "a run on another stream or a later run differs";
    }
  }
  ASSERT_EQ(cudaStreamDestroy(s1), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(s2), cudaSuccess);
}

// The scratch memory is allocated in stream order from a pool, so a capture needs no warm-up call;
// after a warm-up call it captures as well. Each graph is replayed twice.
TEST_P(SplitK, CapturesIntoACudaGraph) {
  const SplitCase& sc = GetParam();
  RandomProduct pr(sc.m, sc.n, sc.k, sc.trans_b, 23);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (bool warm_up : {false, true}) {
    SCOPED_TRACE(warm_up ? "after a warm-up call" : "first call captured");
    if (warm_up) {
      pr.run(sc.config, stream);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    }
    pr.poison();
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    pr.run(sc.config, stream);
    ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    for (int rep = 0; rep < 2; ++rep) ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    pr.expect_near_reference(pr.c.download());
    ASSERT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
    ASSERT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  }
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

INSTANTIATE_TEST_SUITE_P(Configs, SplitK, testing::ValuesIn(kSplitCases),
                         [](const testing::TestParamInfo<SplitCase>& info) { return std::string(info.param.name); });

// Packing moves the operands, not the arithmetic: the same schedule and split with and without packed
// operands sums the same products in the same order, bitwise.
TEST(PackedOperands, Small_BitwiseTheSameAsUnpacked) {
  for (bool trans_b : {false, true})
    for (const char* base : {"tiled:64x64x16:w32x32:t8x4:s3:b6:k1:hilbert", "tiled:128x128x16:w64x32:t8x8:s4:b2:k3:hilbert",
                             "tiled:32x32x16:w32x16:t4x4:s4:b8:tail2:hilbert"}) {
      SCOPED_TRACE(std::string(base) + (trans_b ? " NT" : " NN"));
      RandomProduct pr(259, 333, 517, trans_b, 29);
      pr.poison();
      pr.run(base, nullptr);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const std::vector<float> unpacked = pr.c.download();
      pr.expect_near_reference(unpacked);
      for (const char* pack : {":pack-a", ":pack-b", ":pack-ab"}) {
        pr.poison();
        pr.run(std::string(base) + pack, nullptr);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        EXPECT_TRUE(bitwise_equal(pr.c.download(), unpacked)) << pack;
      }
    }
}

// A product with a prologue (split-K counters, packed operands) is launched to overlap that prologue
// (programmatic dependent launch, kernels/common/griddep.cuh), never the work queued before the call: A written
// by a slow kernel just before the call on the same stream, with no synchronization between, is the A
// the product reads. A = u v^T is written as U * V by the naive level-1 kernel, U holding u in its
// first column and zeros elsewhere (K = 2048: milliseconds), so every element is the exact u_i * v_j.
TEST(PrologueOverlap, Small_ProductReadsOperandsWrittenJustBeforeTheCall) {
  struct Case {
    int64_t m, n, k;
    const char* config;
  };
  const Case cases[] = {
      {96, 80, 6000, "tiled:64x64x16:w32x32:t8x4:s3:b6:k5:hilbert:pack-ab"},   // packed and split
      {96, 80, 6000, "tiled:64x64x32:w32x32:tf32x3:s4:b2:k1:hilbert:pack-a"},  // packed, whole tiles
      {96, 80, 6000, "tiled:64x64x32:w32x32:tf32x3:s4:b2:k6:hilbert"},         // split: waits before the sum
      {1, 3000, 6000, "gemv-cols:s1:l16:k6"},                                  // GEMV, split
  };
  constexpr int64_t kInner = 2048;
  for (const Case& cs : cases) {
    SCOPED_TRACE(cs.config);
    std::mt19937 rng(31);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> u(cs.m), v(cs.k), hu(cs.m * kInner, 0.0f), hv(kInner * cs.k, 0.0f), hb(cs.k * cs.n), ha(cs.m * cs.k);
    for (float& x : u) x = dist(rng);
    for (float& x : v) x = dist(rng);
    for (float& x : hb) x = dist(rng);
    for (int64_t i = 0; i < cs.m; ++i) hu[i * kInner] = u[i];
    for (int64_t j = 0; j < cs.k; ++j) hv[j] = v[j];  // V's first row
    for (int64_t i = 0; i < cs.m; ++i)
      for (int64_t j = 0; j < cs.k; ++j) ha[i * cs.k + j] = u[i] * v[j];
    std::vector<float> want(cs.m * cs.n);
    ref::sgemm(Layout::RowMajor, Op::N, Op::N, cs.m, cs.n, cs.k, 1.0f, ha.data(), cs.k, hb.data(), cs.n, 0.0f,
               want.data(), cs.n);
    DeviceBuffer<float> du(hu.size()), dv(hv.size()), a(ha.size()), b(hb.size()), c(want.size());
    du.upload(hu);
    dv.upload(hv);
    b.upload(hb);
    ASSERT_EQ(cudaMemset(a.get(), 0, a.size() * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMemset(c.get(), 0xff, c.size() * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // the stream below does not wait for the legacy stream
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    GemmOptions slow;
    slow.kernel = Kernel::Naive;
    sgemm(Layout::RowMajor, Op::N, Op::N, cs.m, cs.k, kInner, 1.0f, du.get(), kInner, dv.get(), cs.k, 0.0f, a.get(),
          cs.k, stream, slow);
    GemmOptions opt;
    opt.config = cs.config;
    sgemm(Layout::RowMajor, Op::N, Op::N, cs.m, cs.n, cs.k, 1.0f, a.get(), cs.k, b.get(), cs.n, 0.0f, c.get(), cs.n,
          stream, opt);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
    const std::vector<float> got = c.download();
    const double tol = ref::fp32_gemm_error_bound(cs.k);
    int64_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
      if (!(std::fabs(got[i] - want[i]) <= tol) && bad++ < 5)
        ADD_FAILURE() << "C[" << i << "] = " << got[i] << ", expected " << want[i];
    EXPECT_EQ(bad, 0);
  }
}

// 48 streams, each created, given a split-K product (16 MB of partial tiles) and destroyed without
// waiting: every product is right, and once the device is idle the workspace pool keeps no more
// than its bound plus one product's scratch (a per-stream cache kept 48 x 16 MB here).
TEST(SplitKStreams, Large_StreamChurnKeepsTheWorkspaceBounded) {
  const std::string config = "tiled:128x128x16:w64x32:t8x8:s4:b2:k16";  // 16 tiles x 16 slices x 64 KB
  RandomProduct pr(512, 512, 8192, false, 29);
  std::vector<DeviceBuffer<float>> outputs;
  for (int i = 0; i < 48; ++i) outputs.emplace_back(512 * 512);
  for (DeviceBuffer<float>& out : outputs) {
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    GemmOptions opt;
    opt.config = config;
    sgemm(Layout::RowMajor, Op::N, Op::N, 512, 512, 8192, 1.0f, pr.a.get(), 8192, pr.b.get(), 512, 0.0f, out.get(),
          512, s, opt);
    ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);  // work still queued: the stream goes once it is done
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<float> first = outputs.front().download();
  pr.expect_near_reference(first);
  for (const DeviceBuffer<float>& out : outputs) EXPECT_TRUE(bitwise_equal(out.download(), first));
  EXPECT_LE(detail::workspace_pool_reserved_bytes(), detail::kWorkspacePoolKeepBytes + (size_t(32) << 20));
}

// C = A * B with C of 46341 x 46341 = 2,147,488,281 elements (8.6 GB), more than 2^31: every ladder
// level, Auto and a split config write it; sampled rows (the first, around 2^31 elements in, the
// last) match the reference and are fully written.
TEST(GemmHuge, Large_CBeyond2To31Elements) {
  const int64_t m = 46341, n = 46341, k = 3;
  ASSERT_GT(m * n, int64_t(1) << 31);
  size_t free_bytes = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  if (free_bytes < size_t(m * n) * 4 + (size_t(1) << 30)) GTEST_SKIP() << "the device has too little free memory";
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> ha(m * k), hb(k * n);
  for (float& v : ha) v = dist(rng);
  for (float& v : hb) v = dist(rng);
  DeviceBuffer<float> a(ha.size()), b(hb.size()), c(size_t(m * n));
  a.upload(ha);
  b.upload(hb);
  // The last row starts 2147442940 elements in and ends 2147488281 in: across 2^31.
  const int64_t rows[] = {0, 1, m / 2, m - 2, m - 1};
  std::vector<GemmOptions> runs;
  for (int level = 0; level <= kNumLadderLevels; ++level) {
    GemmOptions opt;
    opt.kernel = static_cast<Kernel>(level);
    runs.push_back(opt);
  }
  GemmOptions split;
  split.config = "tiled:64x64x16:w32x32:t8x4:s3:b6:tail2";
  runs.push_back(split);
  for (const GemmOptions& opt : runs) {
    SCOPED_TRACE(opt.config.empty() ? to_string(opt.kernel) : opt.config);
    ASSERT_EQ(cudaMemset(c.get(), 0xff, size_t(m * n) * 4), cudaSuccess);  // NaN
    sgemm(Layout::RowMajor, Op::N, Op::N, m, n, k, 1.0f, a.get(), k, b.get(), n, 0.0f, c.get(), n, nullptr, opt);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (int64_t row : rows) {
      std::vector<float> got(n);
      ASSERT_EQ(cudaMemcpy(got.data(), c.get() + row * n, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
      int64_t bad = 0;
      for (int64_t j = 0; j < n; ++j) {
        double want = 0;
        for (int64_t p = 0; p < k; ++p) want += double(ha[row * k + p]) * hb[p * n + j];
        if (!(std::fabs(got[j] - want) <= 1e-5) && bad++ < 3)
          ADD_FAILURE() << "C(" << row << ", " << j << ") = " << got[j] << ", expected " << want;
      }
      EXPECT_EQ(bad, 0) << "row " << row;
    }
  }
}

}  // namespace
}  // namespace tilegemm
