// tilegemm overhead: host time of a product call (argument checks, the choice, the launch), from
// back-to-back calls on tiny shapes, next to cuBLAS's and the bare launch of an empty kernel.
//
// Each sample times `--calls` consecutive calls with the host clock, from before the first call to
// the return of the last (issue time only), then waits for the stream outside the timed region, so
// the launch queue never fills and the number is the CPU cost per call, not the GPU's.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "contenders.hpp"
#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "cublas.hpp"
#include "profiler/run_options.hpp"
#include "shapes.hpp"
#include "typed_matrices.hpp"
#include "tilegemm/device.hpp"
#include "tilegemm/gemm.hpp"

namespace tilegemm {
namespace tools {

namespace {

struct OverheadOptions {
  std::vector<std::string> shapes{"16x16x16", "128x128x128", "64x64x8192"};
  std::string dtype = "fp32";
  int calls = 200;
  int samples = 200;
};

// Median host microseconds per call of `call` over `samples` batches of `calls` calls.
double host_us_per_call(const std::function<void()>& call, int calls, int samples) {
  const cudaStream_t s = bench_stream();
  for (int i = 0; i < calls; ++i) call();  // warm-up: first-use initialisation, caches
  TILEGEMM_CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<double> us(samples);
  for (double& u : us) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) call();
    const auto t1 = std::chrono::steady_clock::now();
    TILEGEMM_CUDA_CHECK(cudaStreamSynchronize(s));
    u = std::chrono::duration<double, std::micro>(t1 - t0).count() / calls;
  }
  std::nth_element(us.begin(), us.begin() + samples / 2, us.end());
  return us[samples / 2];
}

void row(const std::string& what, double us, double cublas_us) {
  if (cublas_us > 0)
    std::printf("  %-40s %8.2f us  (%.2fx cuBLAS)\n", what.c_str(), us, us / cublas_us);
  else
    std::printf("  %-40s %8.2f us\n", what.c_str(), us);
}

void run_overhead(const OverheadOptions& o) {
  const DType t = parse_dtype(o.dtype, "--dtype").dtype;
  std::vector<Problem> problems;
  for (const std::string& s : o.shapes) problems.push_back(parse_shape(s));  // all checked before the GPU
  for (Problem& p : problems) p.dtype = t;
  const DeviceInfo d = current_device_info();
  std::printf("host time per call, median of %d batches of %d back-to-back calls (issue only), %s\n", o.samples,
              o.calls, d.name.c_str());
  const cudaStream_t s = bench_stream();
  const Stream stream = reinterpret_cast<Stream>(s);
  int device = 0;
  cudaPointerAttributes attr{};
  DeviceBuffer<float> probe(1);
  row("empty kernel launch", host_us_per_call([&] { launch_empty_kernel(); }, o.calls, o.samples), 0);
  row("cudaGetDevice", host_us_per_call([&] { (void)cudaGetDevice(&device); }, o.calls, o.samples), 0);
  row("cudaPointerGetAttributes",
      host_us_per_call([&] { (void)cudaPointerGetAttributes(&attr, probe.get()); }, o.calls, o.samples), 0);
  Cublas cublas;
  for (const Problem& p : problems) {
    const TypedBuffer a(t, std::max<int64_t>(p.size_a(), 1)), b(t, std::max<int64_t>(p.size_b(), 1)),
        c(t, std::max<int64_t>(p.size_c(), 1));
    fill_uniform(a, p.size_a(), 1);
    fill_uniform(b, p.size_b(), 2);
    std::printf("%s %s\n", p.str().c_str(), o.dtype.c_str());
    const double cublas_us = host_us_per_call(
        [&] { cublas.gemm(p, a.at(p.offset), b.at(p.offset), c.at(p.offset)); }, o.calls, o.samples);
    row(t == DType::F32 ? "cublasGemmEx (FP32, pedantic)" : "cublasGemmEx (FP32 compute)", cublas_us, 0);
    // The typed entry; for FP32 the same product as sgemm.
    const GemmArgs args = gemm_args(p, a.at(p.offset), b.at(p.offset), c.at(p.offset));
    auto ours = [&](const GemmOptions& opt) {
      return host_us_per_call([&] { gemm(args, stream, opt); }, o.calls, o.samples);
    };
    GemmOptions automatic;
    const GemmChoice choice = explain_choice(args, automatic);
    row("tilegemm::gemm auto (" + choice.config + ")", ours(automatic), cublas_us);
    if (choice.kind == "ladder") continue;  // no config text to force
    GemmOptions forced;
    forced.config = choice.config;
    row("tilegemm::gemm options.config", ours(forced), cublas_us);
  }
}

}  // namespace

void add_overhead_command(CLI::App& app) {
  auto o = std::make_shared<OverheadOptions>();
  CLI::App* cmd = app.add_subcommand(
      "overhead", "Host time per product call (checks, choice, launch) on tiny shapes, next to cuBLAS's");
  cmd->add_option("--shape", o->shapes, "MxNxK (repeatable; default 16x16x16 128x128x128 64x64x8192)");
  cmd->add_option("--dtype", o->dtype, "element type of A, B and C: fp32 | bf16 | fp16")->capture_default_str();
  cmd->add_option("--calls", o->calls, "back-to-back calls per timed batch")->check(CLI::Range(1, 100000));
  cmd->add_option("--samples", o->samples, "timed batches (the median is printed)")->check(CLI::Range(1, 100000));
  cmd->callback([o] { run_overhead(*o); });
}

}  // namespace tools
}  // namespace tilegemm
