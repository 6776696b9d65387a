// Probe: the fused epilogue's cost on level 8 (bias per column + GELU) against the plain product, and
// cuBLASLt's CUBLASLT_EPILOGUE_GELU_BIAS / BIAS against its plain product, bf16 row-major NT (x W^T).
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include <algorithm>
#include "tilegemm/tilegemm.hpp"
using namespace tilegemm;
#define CK(x) do { auto r_ = (x); if (r_ != 0) { std::printf("%s failed %d\n", #x, (int)r_); return 1; } } while (0)
static float median_us(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2] * 1000.0f; }
template <class F> float time_it(F f, void* flush, size_t flush_bytes) {
  for (int i = 0; i < 3; ++i) f();
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> t;
  for (int i = 0; i < 30; ++i) {
    cudaMemsetAsync(flush, i, flush_bytes);
    cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms);
  }
  return median_us(t);
}
int main() {
  const int shapes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {4096, 14336, 4096}, {16384, 4096, 1024}, {4096, 4096, 1024}, {8192, 1024, 4096}, {1024, 768, 3072}, {16, 4096, 4096}, {1, 14336, 4096}, {8, 4096, 11008}};
  void* flush; const size_t fb = size_t(256) << 20; cudaMalloc(&flush, fb);
  cublasLtHandle_t lt; cublasLtCreate(&lt);
  void* ws; const size_t wsb = 32 << 20; cudaMalloc(&ws, wsb);
  std::printf("%-18s %9s %9s %9s %9s %9s | %9s %9s %9s %9s  (us; bf16, NT, bias per column bf16)\n", "MxNxK", "plain", "bias", "b+relu", "b+gelu-t", "b+gelu-e", "lt plain", "lt bias", "lt b+relu", "lt b+gelu");
  for (auto& s : shapes) {
    const int m = s[0], n = s[1], k = s[2];
    void *A, *B, *C, *bias, *bias16;
    cudaMalloc(&A, size_t(m) * k * 2); cudaMalloc(&B, size_t(n) * k * 2); cudaMalloc(&C, size_t(m) * n * 2);
    cudaMalloc(&bias, n * 4); cudaMalloc(&bias16, n * 2);
    cudaMemset(A, 0x3c, size_t(m) * k * 2); cudaMemset(B, 0x3c, size_t(n) * k * 2); cudaMemset(bias, 0, n * 4); cudaMemset(bias16, 0, n * 2);
    GemmArgs g; g.op_b = Op::T; g.m = m; g.n = n; g.k = k;
    g.a = {DType::BF16, A, k}; g.b = {DType::BF16, B, k}; g.c = {DType::BF16, C, n};
    auto run = [&](BiasKind bk, Activation act) { GemmArgs x = g; x.epilogue.bias_kind = bk; x.epilogue.bias = bias16; x.epilogue.bias_type = DType::BF16; x.epilogue.activation = act; return [x] { gemm(x); }; };
    const float t0 = time_it(run(BiasKind::None, Activation::None), flush, fb);
    const float t1 = time_it(run(BiasKind::PerColumn, Activation::None), flush, fb);
    const float t2 = time_it(run(BiasKind::PerColumn, Activation::GeluTanh), flush, fb);
    const float t3 = time_it(run(BiasKind::PerColumn, Activation::GeluErf), flush, fb);
    const float t4 = time_it(run(BiasKind::PerColumn, Activation::Relu), flush, fb);
    // cuBLASLt: column-major D^T (n x m) = B (n x k, stored k-major: op T of k x n) * A^T: the row-major product.
    auto lt_time = [&](cublasLtEpilogue_t epi) -> float {
      cublasLtMatmulDesc_t d; cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F);
      cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
      cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta));
      cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb));
      cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi));
      if (epi != CUBLASLT_EPILOGUE_DEFAULT) {
        cudaDataType bt = CUDA_R_16BF;
        cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof(bt));
        cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias16, sizeof(bias16));
      }
      cublasLtMatrixLayout_t la, lb, lc;
      cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, k, n, k);   // B^T stored: k x n col-major (op T -> n x k)
      cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, k, m, k);   // A stored: k x m col-major
      cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, n, m, n);
      cublasLtMatmulPreference_t pref; cublasLtMatmulPreferenceCreate(&pref);
      cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof(wsb));
      cublasLtMatmulHeuristicResult_t h; int found = 0;
      cublasLtMatmulAlgoGetHeuristic(lt, d, la, lb, lc, lc, pref, 1, &h, &found);
      if (!found) return -1.0f;
      const float one = 1.0f, zero = 0.0f;
      float t = time_it([&] { cublasLtMatmul(lt, d, &one, B, la, A, lb, &zero, C, lc, C, lc, &h.algo, ws, wsb, 0); }, flush, fb);
      cublasLtMatmulPreferenceDestroy(pref); cublasLtMatrixLayoutDestroy(la); cublasLtMatrixLayoutDestroy(lb); cublasLtMatrixLayoutDestroy(lc); cublasLtMatmulDescDestroy(d);
      return t;
    };
    const float l0 = lt_time(CUBLASLT_EPILOGUE_DEFAULT), l1 = lt_time(CUBLASLT_EPILOGUE_BIAS), l2 = lt_time(CUBLASLT_EPILOGUE_GELU_BIAS), l4 = lt_time(CUBLASLT_EPILOGUE_RELU_BIAS);
    char name[64]; std::snprintf(name, sizeof name, "%dx%dx%d", m, n, k);
    std::printf("%-18s %9.1f %9.1f %9.1f %9.1f %9.1f | %9.1f %9.1f %9.1f %9.1f  bias+gelu-tanh %.3fx plain, Lt/ours %.3f; bias+relu %.3fx, Lt/ours %.3f\n", name, t0, t1, t4, t2, t3, l0, l1, l4, l2, t2 / t0, l2 / t2, t4 / t0, l4 / t4);
    cudaFree(A); cudaFree(B); cudaFree(C); cudaFree(bias); cudaFree(bias16);
  }
  return cudaDeviceSynchronize() != cudaSuccess;
}
