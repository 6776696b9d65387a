// tilegemm_blas_bench: the BLAS drop-in against the CPU BLAS it shadows and against calling the
// device library directly, in one process (docs/blas.md). For each N x N x N product on host memory
// (column-major NN, C = A*B + beta*C) it times, wall clock, best of several calls:
//   cpu          the CPU BLAS's sgemm_ (--cpu-lib, dlopened)
//   shim         libtilegemm_blas.so's sgemm_ (--shim, dlopened) with every product sent to the GPU
//   direct       cudaMemcpy of A, B (and C) from the same pageable buffers, tilegemm::sgemm, cudaMemcpy
//                of C back, one after the other: what a program would write by hand
//   direct-pinned  the same copies from page-locked buffers (the copy into them not counted)
// Usage: tilegemm_blas_bench --shim PATH --cpu-lib PATH [--sizes 256,1024,...] [--beta B] [--no-cpu-above N]
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tilegemm/device.hpp"
#include "tilegemm/gemm.hpp"

namespace {

using Sgemm = void (*)(const char*, const char*, const int*, const int*, const int*, const float*,
                       const float*, const int*, const float*, const int*, const float*, float*,
                       const int*, size_t, size_t);

Sgemm load_sgemm(const std::string& path) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    std::fprintf(stderr, "tilegemm_blas_bench: cannot load %s: %s\n", path.c_str(), dlerror());
    std::exit(1);
  }
  void* sym = dlsym(h, "sgemm_");
  if (sym == nullptr) {
    std::fprintf(stderr, "tilegemm_blas_bench: %s has no sgemm_\n", path.c_str());
    std::exit(1);
  }
  return reinterpret_cast<Sgemm>(sym);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "tilegemm_blas_bench: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Best wall time of `body` over repeats (at least 3, until 0.5 s of work, at most 20), after one
// call that is not timed; `setup` (not timed) runs before each.
template <class S, class F>
double best_time(S&& setup, F&& body) {
  setup();
  body();
  double best = 1e30, spent = 0;
  for (int r = 0; r < 20 && (r < 3 || spent < 0.5); ++r) {
    setup();
    const double t0 = seconds();
    body();
    const double t = seconds() - t0;
    best = std::min(best, t);
    spent += t;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::string shim, cpu_lib;
  std::vector<int> sizes = {64, 128, 192, 256, 384, 512, 768, 1024, 2048, 4096, 8192};
  float beta = 0.0f;
  int no_cpu_above = 1 << 30;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--shim") shim = value;
    else if (key == "--cpu-lib") cpu_lib = value;
    else if (key == "--beta") beta = std::stof(value);
    else if (key == "--no-cpu-above") no_cpu_above = std::stoi(value);
    else if (key == "--sizes") {
      sizes.clear();
      for (size_t at = 0; at < value.size();) {
        size_t end = value.find(',', at);
        if (end == std::string::npos) end = value.size();
        sizes.push_back(std::stoi(value.substr(at, end - at)));
        at = end + 1;
      }
    } else {
      std::fprintf(stderr, "tilegemm_blas_bench: unknown option %s\n", key.c_str());
      return 2;
    }
  }
  if (shim.empty() || cpu_lib.empty()) {
    std::fprintf(stderr, "usage: tilegemm_blas_bench --shim PATH --cpu-lib PATH [--sizes N,...] [--beta B]\n");
    return 2;
  }
  if (tilegemm::device_count() == 0) {
    std::fprintf(stderr, "tilegemm_blas_bench: no CUDA device\n");
    return 1;
  }
  // The shim sends every product to the GPU and uses the same CPU BLAS for nothing else.
  setenv("TILEGEMM_BLAS_MIN_FLOPS", "0", 1);
  setenv("TILEGEMM_BLAS_CPU_LIB", cpu_lib.c_str(), 1);
  const Sgemm cpu = load_sgemm(cpu_lib);
  const Sgemm gpu = load_sgemm(shim);

  std::printf("%6s %11s %11s %11s %13s %9s %11s %11s\n", "N", "cpu_ms", "shim_ms", "direct_ms",
              "dir_pinned_ms", "cpu/shim", "direct/shim", "shim_GFLOPs");
  for (const int n : sizes) {
    const size_t nn = size_t(n) * n, bytes = nn * sizeof(float);
    std::vector<float> a(nn), b(nn), c0(nn), c(nn);
    std::mt19937 gen(n);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (size_t i = 0; i < nn; ++i) a[i] = dist(gen), b[i] = dist(gen), c0[i] = dist(gen);
    const float alpha = 1.0f;
    auto reset_c = [&] { std::copy(c0.begin(), c0.end(), c.begin()); };
    auto call = [&](Sgemm f) {
      f("N", "N", &n, &n, &n, &alpha, a.data(), &n, b.data(), &n, &beta, c.data(), &n, 1, 1);
    };
    const double t_cpu = n <= no_cpu_above ? best_time(reset_c, [&] { call(cpu); }) : 0.0;
    const std::vector<float> c_cpu = c;
    const double t_shim = best_time(reset_c, [&] { call(gpu); });
    double worst = 0;
    for (size_t i = 0; i < nn; i += 97) worst = std::max(worst, double(std::fabs(c[i] - c_cpu[i])));

    float *da, *db, *dc, *pa, *pb, *pc;
    check(cudaMalloc(reinterpret_cast<void**>(&da), bytes), "cudaMalloc");
    check(cudaMalloc(reinterpret_cast<void**>(&db), bytes), "cudaMalloc");
    check(cudaMalloc(reinterpret_cast<void**>(&dc), bytes), "cudaMalloc");
    auto direct = [&](const float* ha, const float* hb, float* hc) {
      check(cudaMemcpy(da, ha, bytes, cudaMemcpyHostToDevice), "upload A");
      check(cudaMemcpy(db, hb, bytes, cudaMemcpyHostToDevice), "upload B");
      if (beta != 0.0f) check(cudaMemcpy(dc, hc, bytes, cudaMemcpyHostToDevice), "upload C");
      tilegemm::sgemm(tilegemm::Layout::ColMajor, tilegemm::Op::N, tilegemm::Op::N, n, n, n, alpha, da, n,
                      db, n, beta, dc, n);
      check(cudaMemcpy(hc, dc, bytes, cudaMemcpyDeviceToHost), "download C");
    };
    const double t_direct = best_time(reset_c, [&] { direct(a.data(), b.data(), c.data()); });
    check(cudaMallocHost(reinterpret_cast<void**>(&pa), bytes), "cudaMallocHost");
    check(cudaMallocHost(reinterpret_cast<void**>(&pb), bytes), "cudaMallocHost");
    check(cudaMallocHost(reinterpret_cast<void**>(&pc), bytes), "cudaMallocHost");
    std::copy(a.begin(), a.end(), pa);
    std::copy(b.begin(), b.end(), pb);
    std::copy(c0.begin(), c0.end(), pc);
    const double t_pinned = best_time([&] { std::copy(c0.begin(), c0.end(), pc); }, [&] { direct(pa, pb, pc); });
    cudaFree(da), cudaFree(db), cudaFree(dc), cudaFreeHost(pa), cudaFreeHost(pb), cudaFreeHost(pc);

    const double gflops = 2.0 * double(n) * nn / t_shim * 1e-9;
    std::printf("%6d %11.3f %11.3f %11.3f %13.3f %9.2f %11.2f %11.1f%s\n", n, t_cpu * 1e3, t_shim * 1e3,
                t_direct * 1e3, t_pinned * 1e3, t_cpu > 0 ? t_cpu / t_shim : 0.0, t_direct / t_shim, gflops,
                t_cpu > 0 && worst > 1e-5 * n ? "  MISMATCH vs cpu" : "");
    std::fflush(stdout);
  }
  return 0;
}
