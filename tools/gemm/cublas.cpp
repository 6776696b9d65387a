#include "cublas.hpp"

#include <memory>
#include <string>

#include "core/cuda_check.hpp"
#include "ops/fused_epilogue.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace tools {

namespace {
cudaDataType cuda_type(DType t) { return t == DType::BF16 ? CUDA_R_16BF : t == DType::F16 ? CUDA_R_16F : CUDA_R_32F; }
cublasOperation_t cublas_op(Op o) { return o == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T; }
}  // namespace

#define TILEGEMM_CUBLAS_CHECK(expr)                                                              \
  do {                                                                                           \
    const cublasStatus_t st_ = (expr);                                                           \
    if (st_ != CUBLAS_STATUS_SUCCESS)                                                            \
      throw Error(ErrorCode::CublasError, std::string(__FILE__) + ":" + std::to_string(__LINE__) + \
                                              ": " #expr " failed: " + cublasGetStatusString(st_)); \
  } while (0)

Diff compare_c(const Problem& p, const float* x_buffer, const float* y_buffer) {
  if (p.size_c() == 0) return compare_matrix(x_buffer, y_buffer, 0, 0, 1);
  return compare_matrix(x_buffer + p.offset, y_buffer + p.offset, p.c_outer(), p.c_inner(), p.ldc());
}

Cublas::Cublas() {
  TILEGEMM_CUBLAS_CHECK(cublasCreate(&handle_));
  try {
    TILEGEMM_CUBLAS_CHECK(cublasSetStream(handle_, bench_stream()));
    // cublasSetStream puts the handle back on cuBLAS's default workspace pool: set ours after it.
    int device = 0, major = 0;
    TILEGEMM_CUDA_CHECK(cudaGetDevice(&device));
    TILEGEMM_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    const size_t bytes = size_t(major >= 9 ? 32 : 4) << 20;
    TILEGEMM_CUDA_CHECK(cudaMalloc(&workspace_, bytes));
    workspace_bytes_ = bytes;
    TILEGEMM_CUBLAS_CHECK(cublasSetWorkspace(handle_, workspace_, bytes));
    TILEGEMM_CUBLAS_CHECK(cublasLtCreate(&lt_));
  } catch (...) {
    cublasDestroy(handle_);  // the destructor does not run for a constructor that throws
    if (workspace_) cudaFree(workspace_);
    throw;
  }
}

struct Cublas::LtPlan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t x = nullptr, y = nullptr, d = nullptr;
  cublasLtMatmulAlgo_t algo{};
  ~LtPlan() {
    if (x) cublasLtMatrixLayoutDestroy(x);
    if (y) cublasLtMatrixLayoutDestroy(y);
    if (d) cublasLtMatrixLayoutDestroy(d);
    if (desc) cublasLtMatmulDescDestroy(desc);
  }
};

Cublas::~Cublas() {
  for (auto& [key, plan] : lt_plans_) delete plan;
  if (lt_) cublasLtDestroy(lt_);
  if (handle_) cublasDestroy(handle_);
  if (workspace_) cudaFree(workspace_);
}

std::string Cublas::lacks_epilogue(const Problem& p) {
  if (p.plain_epilogue()) return "";
  if (p.activation == Activation::GeluErf || p.activation == Activation::Silu)
    return std::string("cuBLASLt has no ") + to_string(p.activation) + " epilogue";
  // cuBLASLt's bias runs along the rows of its column-major D: the canonical (row-major) C's columns.
  const BiasKind canonical = p.layout == Layout::RowMajor ? p.bias : ops::transposed(p.bias);
  if (canonical == BiasKind::PerRow)
    return "cuBLASLt's bias is per column of a row-major C, per row of a column-major one";
  return "";
}

// The column-major product of gemm_ex's mapping, with the epilogue: cuBLASLt's bias is per row of
// its D, the columns of a row-major C.
void Cublas::lt_matmul(const Problem& p, const void* a, const void* b, void* c) {
  const std::string why = lacks_epilogue(p);
  if (!why.empty()) throw Error(ErrorCode::InvalidArgument, why);
  const bool row = p.layout == Layout::RowMajor;
  const void* x = row ? b : a;
  const void* y = row ? a : b;
  const std::string key = p.str() + " " + to_string(p.dtype) + (p.math == Math::Tf32 ? " tf32" : "");
  LtPlan*& plan = lt_plans_[key];
  if (!plan) {
    auto fresh = std::make_unique<LtPlan>();
    const uint64_t m = static_cast<uint64_t>(row ? p.n : p.m), n = static_cast<uint64_t>(row ? p.m : p.n),
                   k = static_cast<uint64_t>(p.k);
    const Op ox = row ? p.op_b : p.op_a, oy = row ? p.op_a : p.op_b;
    const cudaDataType t = cuda_type(p.dtype);
    const cublasComputeType_t compute =
        p.dtype == DType::F32 && p.math == Math::Tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    TILEGEMM_CUBLAS_CHECK(cublasLtMatmulDescCreate(&fresh->desc, compute, CUDA_R_32F));
    const cublasOperation_t tx = cublas_op(ox), ty = cublas_op(oy);
    TILEGEMM_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(fresh->desc, CUBLASLT_MATMUL_DESC_TRANSA, &tx, sizeof(tx)));
    TILEGEMM_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(fresh->desc, CUBLASLT_MATMUL_DESC_TRANSB, &ty, sizeof(ty)));
    const bool bias = p.bias != BiasKind::None;
    const cublasLtEpilogue_t epi =
        p.activation == Activation::Relu       ? (bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU)
        : p.activation == Activation::GeluTanh ? (bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU)
                                               : CUBLASLT_EPILOGUE_BIAS;
    TILEGEMM_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(fresh->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi)));
    if (bias)
      TILEGEMM_CUBLAS_CHECK(
          cublasLtMatmulDescSetAttribute(fresh->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &t, sizeof(t)));
    auto layout = [&](cublasLtMatrixLayout_t* l, uint64_t rows, uint64_t cols, int64_t ld, int64_t stride) {
      TILEGEMM_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(l, t, rows, cols, ld));
      if (p.batch > 1) {
        const int32_t count = static_cast<int32_t>(p.batch);
        TILEGEMM_CUBLAS_CHECK(
            cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
        TILEGEMM_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                                               &stride, sizeof(stride)));
      }
    };
    layout(&fresh->x, ox == Op::N ? m : k, ox == Op::N ? k : m, row ? p.ldb() : p.lda(),
           row ? p.stride_b() : p.stride_a());
    layout(&fresh->y, oy == Op::N ? k : n, oy == Op::N ? n : k, row ? p.lda() : p.ldb(),
           row ? p.stride_a() : p.stride_b());
    layout(&fresh->d, m, n, p.ldc(), p.stride_c());
    cublasLtMatmulPreference_t pref = nullptr;
    TILEGEMM_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    cublasLtMatmulHeuristicResult_t found{};
    int count = 0;
    const cublasStatus_t st =
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes_,
                                             sizeof(workspace_bytes_)) == CUBLAS_STATUS_SUCCESS
            ? cublasLtMatmulAlgoGetHeuristic(lt_, fresh->desc, fresh->x, fresh->y, fresh->d, fresh->d, pref, 1,
                                             &found, &count)
            : CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatmulPreferenceDestroy(pref);
    TILEGEMM_CUBLAS_CHECK(st);
    if (count == 0)
      throw Error(ErrorCode::CublasError, "cuBLASLt has no algorithm for " + key + " epi=" + p.epilogue_name());
    fresh->algo = found.algo;
    plan = fresh.release();
  }
  if (p.bias != BiasKind::None) {
    const void* bias = bias_in(p, c);
    TILEGEMM_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
  }
  const float one = 1.0f, zero = 0.0f;
  const cublasStatus_t st = cublasLtMatmul(lt_, plan->desc, &one, x, plan->x, y, plan->y, &zero, c, plan->d, c,
                                           plan->d, &plan->algo, workspace_, workspace_bytes_, bench_stream());
  if (st != CUBLAS_STATUS_SUCCESS)  // e.g. NOT_SUPPORTED for 16-bit rows that are not 16-byte aligned
    throw Error(ErrorCode::CublasError,
                "cuBLASLt's matmul with epilogue " + p.epilogue_name() + ": " + cublasGetStatusString(st));
}

std::string Cublas::refuses_epilogue(const Problem& p, const void* a, const void* b, const void* c) {
  std::string why = lacks_epilogue(p);
  if (!why.empty() || p.plain_epilogue() || p.m == 0 || p.n == 0 || p.k == 0) return why;
  try {
    lt_matmul(p, a, b, const_cast<void*>(c));
    TILEGEMM_CUDA_CHECK(cudaStreamSynchronize(bench_stream()));
  } catch (const Error& e) {
    why = e.what();
  }
  return why;
}

void Cublas::gemm_ex(const Problem& p, cudaDataType type_ab, cudaDataType type_c, cublasComputeType_t compute,
                     const void* alpha, const void* a, const void* b, const void* beta, void* c) {
  const auto op = cublas_op;
  // cuBLAS is column-major; a row-major product is the column-major product of the transposes.
  const bool row = p.layout == Layout::RowMajor;
  const int m = static_cast<int>(row ? p.n : p.m), n = static_cast<int>(row ? p.m : p.n);
  const void* x = row ? b : a;
  const void* y = row ? a : b;
  const int ldx = static_cast<int>(row ? p.ldb() : p.lda()), ldy = static_cast<int>(row ? p.lda() : p.ldb());
  const Op ox = row ? p.op_b : p.op_a, oy = row ? p.op_a : p.op_b;
  if (p.batch > 1) {  // strided batches: cuBLAS's own batched kernels, one call
    const long long sx = row ? p.stride_b() : p.stride_a(), sy = row ? p.stride_a() : p.stride_b();
    TILEGEMM_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        handle_, op(ox), op(oy), m, n, static_cast<int>(p.k), alpha, x, type_ab, ldx, sx, y, type_ab, ldy, sy, beta, c,
        type_c, static_cast<int>(p.ldc()), p.stride_c(), static_cast<int>(p.batch), compute, CUBLAS_GEMM_DEFAULT));
    return;
  }
  TILEGEMM_CUBLAS_CHECK(cublasGemmEx(handle_, op(ox), op(oy), m, n, static_cast<int>(p.k), alpha, x, type_ab, ldx, y,
                                     type_ab, ldy, beta, c, type_c, static_cast<int>(p.ldc()), compute,
                                     CUBLAS_GEMM_DEFAULT));
}

void Cublas::sgemm(const Problem& p, float alpha, const float* a, const float* b, float beta, float* c) {
  gemm_ex(p, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC, &alpha, a, b, &beta, c);
}

void Cublas::gemm(const Problem& p, const void* a, const void* b, void* c) {
  if (!p.plain_epilogue()) return lt_matmul(p, a, b, c);
  const float one = 1.0f, zero = 0.0f;
  if (p.dtype == DType::F32 && p.math == Math::Tf32)
    return tf32(p, static_cast<const float*>(a), static_cast<const float*>(b), static_cast<float*>(c));
  if (p.dtype == DType::F32) return sgemm(p, one, static_cast<const float*>(a), static_cast<const float*>(b), zero,
                                          static_cast<float*>(c));
  const cudaDataType t = p.dtype == DType::BF16 ? CUDA_R_16BF : CUDA_R_16F;
  gemm_ex(p, t, t, CUBLAS_COMPUTE_32F, &one, a, b, &zero, c);
}

void Cublas::tf32(const Problem& p, const float* a, const float* b, float* c) {
  const float one = 1.0f, zero = 0.0f;
  gemm_ex(p, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, &one, a, b, &zero, c);
}

void Cublas::dgemm(const Problem& p, const double* a, const double* b, double* c) {
  const double one = 1.0, zero = 0.0;
  gemm_ex(p, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, &one, a, b, &zero, c);
}

}  // namespace tools
}  // namespace tilegemm
