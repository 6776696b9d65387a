// The typed entry gemm(GemmArgs): batched products with strides (B shared by stride 0, both layouts,
// both ops, offsets that break 16-byte alignment), Auto, a ladder level and a named config per batch,
// against the CPU reference; beta != 0 reads each batch's own C; explain_choice names the family; a
// dtype no family implements is refused before anything is written.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/device_buffer.hpp"
#include "dense/matrix_extent.hpp"
#include "ref/reference.hpp"
#include "tilegemm/tilegemm.hpp"
#include "typed_values.hpp"

namespace tilegemm {
namespace {

struct BatchedCase {
  Layout layout;
  Op op_a, op_b;
  int64_t m, n, k, batch;
  int64_t pad;      // added to every leading dimension
  int64_t offset;   // elements every matrix starts into its buffer
  bool shared_b;    // B's batch stride 0
  float beta;
};

void run_case(const BatchedCase& t, const GemmOptions& options) {
  const StoredOperands s = stored_shapes(t.op_a, t.op_b, t.m, t.n, t.k);
  const int64_t lda = s.a.min_ld(t.layout) + t.pad, ldb = s.b.min_ld(t.layout) + t.pad, ldc = s.c.min_ld(t.layout) + t.pad;
  const int64_t ext_a = s.a.extent(t.layout, lda), ext_b = s.b.extent(t.layout, ldb), ext_c = s.c.extent(t.layout, ldc);
  const int64_t stride_a = ext_a + 3, stride_b = t.shared_b ? 0 : ext_b + 5, stride_c = ext_c + 1;
  const int64_t size_a = t.offset + stride_a * t.batch, size_b = t.offset + (t.shared_b ? ext_b : stride_b * t.batch),
                size_c = t.offset + stride_c * t.batch;
  std::mt19937 rng(static_cast<unsigned>(t.m * 131 + t.n * 7 + t.k + t.batch));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> ha(size_a), hb(size_b), hc(size_c);
  for (float& v : ha) v = dist(rng);
  for (float& v : hb) v = dist(rng);
  for (float& v : hc) v = dist(rng);
  std::vector<float> want = hc;
  for (int64_t b = 0; b < t.batch; ++b)
    ref::sgemm(t.layout, t.op_a, t.op_b, t.m, t.n, t.k, 1.5f, ha.data() + t.offset + b * stride_a, lda,
               hb.data() + t.offset + b * stride_b, ldb, t.beta, want.data() + t.offset + b * stride_c, ldc);
  DeviceBuffer<float> a(size_a), bb(size_b), c(size_c);
  a.upload(ha);
  bb.upload(hb);
  c.upload(hc);
  GemmArgs args = product_args(t.layout, t.op_a, t.op_b, t.m, t.n, t.k, t.batch);
  args.a = {DType::F32, a.get() + t.offset, lda, stride_a};
  args.b = {DType::F32, bb.get() + t.offset, ldb, stride_b};
  args.c = {DType::F32, c.get() + t.offset, ldc, stride_c};
  args.epilogue = {1.5f, t.beta};
  gemm(args, nullptr, options);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<float> got = c.download();
  const double tol = 1.5 * ref::fp32_gemm_error_bound(t.k) + 1e-6;
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i)  // the gaps between batches must be untouched too
    if (!(std::fabs(got[i] - want[i]) <= tol) && bad++ < 5)
      ADD_FAILURE() << "C[" << i << "] = " << got[i] << ", expected " << want[i];
  EXPECT_EQ(bad, 0);
}

const std::vector<BatchedCase>& cases() {
  static const std::vector<BatchedCase> list = {
      {Layout::RowMajor, Op::N, Op::N, 64, 48, 32, 3, 0, 0, false, 0.0f},
      {Layout::RowMajor, Op::N, Op::T, 127, 129, 131, 4, 7, 1, true, 0.5f},
      {Layout::ColMajor, Op::T, Op::N, 33, 17, 300, 2, 1, 3, false, 0.0f},
      {Layout::ColMajor, Op::T, Op::T, 5, 1000, 64, 5, 0, 0, true, 1.0f},  // a GEMV shape per batch
      {Layout::RowMajor, Op::N, Op::N, 256, 256, 4096, 2, 0, 0, true, 0.0f},  // split-K per batch
  };
  return list;
}

TEST(TypedGemm, BatchedAutoMatchesTheReference) {
  for (const BatchedCase& t : cases()) {
    SCOPED_TRACE(std::to_string(t.m) + "x" + std::to_string(t.n) + "x" + std::to_string(t.k) + " batch " + std::to_string(t.batch));
    run_case(t, GemmOptions{});
  }
}

TEST(TypedGemm, BatchedLevelsAndConfigsMatchTheReference) {
  for (const BatchedCase& t : cases()) {
    SCOPED_TRACE(std::to_string(t.m) + "x" + std::to_string(t.n) + "x" + std::to_string(t.k));
    for (Kernel level : {Kernel::RegisterTiled, Kernel::WarpTiled, Kernel::MmaTf32x3}) {
      GemmOptions o;
      o.kernel = level;
      run_case(t, o);
    }
    GemmOptions named;
    named.config = "ladder:05-vectorized";
    run_case(t, named);
  }
}

TEST(TypedGemm, ExplainNamesTheFamilyAndATypeMixNoFamilyServesIsRefusedUntouched) {
  DeviceBuffer<float> a(64 * 64), b(64 * 64), c(64 * 64);
  GemmArgs args;
  args.m = args.n = args.k = 64;
  args.a = {DType::F32, a.get(), 64};
  args.b = {DType::F32, b.get(), 64};
  args.c = {DType::F32, c.get(), 64};
  const GemmChoice choice = explain_choice(args);
  EXPECT_TRUE(choice.family == "simt-tiled" || choice.family == "tf32x3-tiled") << choice.family;
  EXPECT_GT(choice.predicted_us, 0.0);
  GemmOptions level;
  level.kernel = Kernel::WarpTiled;
  EXPECT_EQ(explain_choice(args, level).config, "ladder:06-warp-tiled");
  EXPECT_EQ(explain_choice(args, level).family, "ladder");

  ASSERT_EQ(cudaMemset(c.get(), 0x7f, c.size() * sizeof(float)), cudaSuccess);
  const std::vector<float> before = c.download();
  args.a.type = args.b.type = DType::BF16;
  args.c.type = DType::F16;  // bf16 inputs, f16 output: no family computes it
  try {
    gemm(args);
    ADD_FAILURE() << "a bf16 x bf16 -> f16 product ran";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("wgmma: C is f16: C must be bf16 or f32"), std::string::npos) << e.what();
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(c.download(), before);
}

}  // namespace
}  // namespace tilegemm
