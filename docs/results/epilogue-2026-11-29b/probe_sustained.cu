// Clock and power under plain vs fused-epilogue products: each phase runs one epilogue for ~1.5 s of
// back-to-back launches; prints per-launch time; nvidia-smi samples clocks/power meanwhile (clk.sh).
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include "tilegemm/tilegemm.hpp"
using namespace tilegemm;
int main(int argc, char** argv) {
  const int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]);
  void *A, *B, *C, *b16;
  cudaMalloc(&A, size_t(m) * k * 2); cudaMalloc(&B, size_t(n) * k * 2); cudaMalloc(&C, size_t(m) * n * 2); cudaMalloc(&b16, n * 2);
  // Random-ish bits (a constant fill draws less power than real data).
  unsigned short* h = (unsigned short*)malloc(size_t(std::max(m, n)) * k * 2);
  for (size_t i = 0; i < size_t(std::max(m, n)) * k; ++i) h[i] = 0x3c00 ^ ((i * 2654435761u >> 7) & 0x81ff);
  cudaMemcpy(A, h, size_t(m) * k * 2, cudaMemcpyHostToDevice); cudaMemcpy(B, h, size_t(n) * k * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(b16, h, n * 2, cudaMemcpyHostToDevice);
  GemmArgs g; g.op_b = Op::T; g.m = m; g.n = n; g.k = k;
  g.a = {DType::BF16, A, k}; g.b = {DType::BF16, B, k}; g.c = {DType::BF16, C, n};
  const int phases[][2] = {{0, 0}, {1, 2}, {0, 0}, {1, 0}, {0, 1}, {1, 2}, {0, 0}};
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (auto& ph : phases) {
    GemmArgs x = g;
    if (ph[0]) { x.epilogue.bias_kind = BiasKind::PerColumn; x.epilogue.bias = b16; x.epilogue.bias_type = DType::BF16; }
    x.epilogue.activation = static_cast<Activation>(ph[1]);
    for (int i = 0; i < 20; ++i) gemm(x);
    cudaDeviceSynchronize();
    const auto t0 = std::chrono::steady_clock::now();
    double unix0 = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    int launches = 0; float total = 0;
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 1.5) {
      cudaEventRecord(a); for (int i = 0; i < 20; ++i) gemm(x); cudaEventRecord(b); cudaEventSynchronize(b);
      float ms; cudaEventElapsedTime(&ms, a, b); total += ms; launches += 20;
    }
    double unix1 = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    std::printf("phase bias=%d act=%d  %.1f us/launch  unix %.2f..%.2f\n", ph[0], ph[1], 1000.0 * total / launches, unix0, unix1);
    std::fflush(stdout);
  }
  return 0;
}
