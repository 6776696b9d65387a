// The tensor-core ceiling level 7 runs against: mma.sync.m16n8k8 TF32 (and m16n8k16 FP16 for
// comparison) with nothing else in the loop. One block per SM, 4-16 warps, each warp cycling through
// kTiles independent accumulator tiles. H100 80GB HBM3, 2026-11-25: 325 TFLOP/s TF32 (6.6 clocks per
// MMA per SM sub-partition at the 1.98 GHz max clock), 650 FP16 (perf note #45).
// Build: cmake --build build --target tilegemm_mma_peak; run: build/tilegemm_mma_peak
#include <cuda_runtime.h>

#include <cstdio>

namespace {

template <bool kF16, int kTiles>
__global__ void mma_loop(float* out, int iters, unsigned seed) {
  const unsigned a[4] = {seed, seed + 1, seed + 2, seed + 3}, b[2] = {seed * 3, seed * 5};
  float d[kTiles][4] = {};
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int t = 0; t < kTiles; ++t) {
      if constexpr (kF16)
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};\n"
            : "+f"(d[t][0]), "+f"(d[t][1]), "+f"(d[t][2]), "+f"(d[t][3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
      else
        asm volatile(
            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};\n"
            : "+f"(d[t][0]), "+f"(d[t][1]), "+f"(d[t][2]), "+f"(d[t][3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
  }
  float s = 0.0f;
#pragma unroll
  for (int t = 0; t < kTiles; ++t) s += d[t][0] + d[t][1] + d[t][2] + d[t][3];
  if (s == 12345.0f) out[threadIdx.x] = s;  // keeps the loop; never true for these inputs
}

template <bool kF16, int kTiles>
void measure(int threads) {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  float* out = nullptr;
  cudaMalloc(&out, 4096);
  const int iters = 20000;
  mma_loop<kF16, kTiles><<<sms, threads>>>(out, 100, 1);  // warm-up
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventRecord(e0);
  mma_loop<kF16, kTiles><<<sms, threads>>>(out, iters, 1);
  cudaEventRecord(e1);
  const cudaError_t err = cudaEventSynchronize(e1);
  const char* name = kF16 ? "f16  m16n8k16" : "tf32 m16n8k8 ";
  if (err != cudaSuccess || cudaGetLastError() != cudaSuccess) {
    std::printf("%s %2d tiles/warp, %3d threads/SM: did not run (%s)\n", name, kTiles, threads, cudaGetErrorString(err));
  } else {
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, e0, e1);
    const double mmas = double(sms) * (threads / 32) * iters * kTiles;
    const double flop_per_mma = kF16 ? 4096.0 : 2048.0;
    std::printf("%s %2d tiles/warp, %3d threads/SM: %6.1f TFLOP/s, %.2f clocks per MMA per sub-partition at 1.98 GHz\n",
                name, kTiles, threads, mmas * flop_per_mma / (ms * 1e-3) / 1e12, ms * 1e-3 * 1.98e9 / (mmas / sms / 4));
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(out);
}

}  // namespace

int main() {
  for (int threads : {128, 256, 512}) {
    measure<false, 16>(threads);
    measure<false, 32>(threads);
    measure<true, 16>(threads);
  }
  return 0;
}
