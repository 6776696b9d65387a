#include "gpu_sgemm.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/workspace.hpp"
#include "settings.hpp"
#include "tilegemm/error.hpp"
#include "tilegemm/gemm.hpp"

namespace tilegemm {
namespace blas {

bool cuda_driver_loaded() {
  void* handle = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  dlclose(handle);
  return true;
}

namespace {
cudaMemoryType memory_type(const void* ptr) {
  cudaPointerAttributes attr{};
  if (ptr == nullptr || cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    cudaGetLastError();
    return cudaMemoryTypeUnregistered;
  }
  return attr.type;
}
}  // namespace

OnDevice classify(const ColMajorCall& call) {
  OnDevice on;
  auto one = [](const void* ptr, bool* device, bool* locked) {
    const cudaMemoryType t = memory_type(ptr);
    *device = t == cudaMemoryTypeDevice || t == cudaMemoryTypeManaged;
    *locked = t == cudaMemoryTypeHost;
  };
  one(call.a, &on.a, &on.locked_a);
  one(call.b, &on.b, &on.locked_b);
  one(call.c, &on.c, &on.locked_c);
  return on;
}

namespace {

// Every product the shim runs: Auto, with the math TILEGEMM_BLAS_MATH allows.
GemmOptions product_options() {
  GemmOptions o;
  switch (settings().math) {
    case Settings::Math::Fp32: o.math = Math::Fp32; break;
    case Settings::Math::Ffma: o.math = Math::FfmaOnly; break;
    case Settings::Math::Tf32: o.math = Math::Tf32; break;
  }
  return o;
}

// One caller's streams and events: uploads, products and downloads each on their own stream so they
// overlap; two buffer slots, so the events come in pairs. Lanes are made on demand (one per host
// thread calling at the same time) and kept for the life of the process: destroying streams during
// exit races the CUDA runtime's own teardown.
struct PinnedBuffer {
  float* ptr = nullptr;
  size_t bytes = 0;
  void reserve(size_t want) {
    if (want <= bytes) return;
    if (ptr != nullptr) cudaFreeHost(ptr);
    ptr = nullptr, bytes = 0;
    TILEGEMM_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&ptr), want));
    bytes = want;
  }
};

struct Lane {
  cudaStream_t h2d = nullptr, compute = nullptr, d2h = nullptr;
  cudaEvent_t ready = nullptr;
  cudaEvent_t uploaded[2] = {}, computed[2] = {}, downloaded[2] = {};
  // Page-locked bounce buffers for pageable host memory, two each way so that the CPU fills (or
  // drains) one while the copy engine moves the other; `*_done` marks each one's last DMA.
  PinnedBuffer up[2], down[2];
  cudaEvent_t up_done[2] = {}, down_done[2] = {};
  unsigned up_next = 0;
};

std::unique_ptr<Lane> make_lane() {
  auto lane = std::make_unique<Lane>();
  for (cudaStream_t* s : {&lane->h2d, &lane->compute, &lane->d2h})
    TILEGEMM_CUDA_CHECK(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking));
  TILEGEMM_CUDA_CHECK(cudaEventCreateWithFlags(&lane->ready, cudaEventDisableTiming));
  for (int i = 0; i < 2; ++i)
    for (cudaEvent_t* e : {&lane->uploaded[i], &lane->computed[i], &lane->downloaded[i],
                           &lane->up_done[i], &lane->down_done[i]})
      TILEGEMM_CUDA_CHECK(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
  return lane;
}

// Free lanes per device.
class LanePool {
 public:
  Lane* acquire(int device) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      std::vector<Lane*>& free = free_[device];
      if (!free.empty()) {
        Lane* lane = free.back();
        free.pop_back();
        return lane;
      }
    }
    return make_lane().release();
  }
  void release(int device, Lane* lane) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_[device].push_back(lane);
  }

 private:
  std::mutex mutex_;
  std::map<int, std::vector<Lane*>> free_;  // by device ordinal
};

LanePool& lane_pool() {
  static LanePool* pool = new LanePool;  // never destroyed, like the lanes
  return *pool;
}

class LaneHandle {
 public:
  explicit LaneHandle(int device) : device_(device), lane_(lane_pool().acquire(device)) {}
  ~LaneHandle() { lane_pool().release(device_, lane_); }
  Lane* operator->() const { return lane_; }

 private:
  int device_;
  Lane* lane_;
};

// Waits for all of a lane's streams when leaving a scope (also by an exception), so device buffers
// are only freed after every copy that touches them.
struct DrainOnExit {
  Lane* lane;
  ~DrainOnExit() {
    for (cudaStream_t s : {lane->h2d, lane->compute, lane->d2h}) cudaStreamSynchronize(s);
    cudaGetLastError();
  }
};

// A column-major block of a matrix: `rows` x `cols` with leading dimension `ld`.
struct Block {
  const float* ptr = nullptr;
  int64_t rows = 0, cols = 0, ld = 1;
};

Block sub(const Block& m, int64_t r0, int64_t c0, int64_t rows, int64_t cols) {
  return {m.ptr + r0 + c0 * m.ld, rows, cols, m.ld};
}

// How a product on host memory is cut: C in chunks of columns (A held on the device whole, B and C
// streamed) or of rows (B whole, A and C streamed), whichever keeps the smaller operand whole.
struct Staging {
  bool split_n = true;
  int64_t extent = 0;  // N or M
  int64_t chunk = 0;   // columns or rows per chunk
  int64_t count = 0;
  int slots() const { return count > 1 ? 2 : 1; }
};

// A chunk narrower than this runs the product at a visibly lower rate (too few output tiles).
constexpr int64_t kMinChunkExtent = 512;
constexpr int64_t kMaxChunks = 16;

Staging plan_staging(const ColMajorCall& call, const OnDevice& on) {
  Staging s;
  const int64_t floats_a = on.a ? 0 : call.rows_a() * call.cols_a();
  const int64_t floats_b = on.b ? 0 : call.rows_b() * call.cols_b();
  s.split_n = floats_a <= floats_b;
  s.extent = s.split_n ? call.n : call.m;
  const int64_t other = s.split_n ? call.m : call.n;
  const bool streamed_on_device = s.split_n ? on.b : on.a;
  const int64_t per_unit = (streamed_on_device ? 0 : call.k) +
                           (on.c ? 0 : other * (call.beta != 0.0f ? 2 : 1));
  const double total = double(per_unit) * double(s.extent) * sizeof(float);
  int64_t count = int64_t(std::min<double>(std::ceil(total / settings().chunk_bytes), kMaxChunks));
  count = std::clamp<int64_t>(count, 1, kMaxChunks);
  count = std::min(count, std::max<int64_t>(1, s.extent / kMinChunkExtent));
  s.chunk = (s.extent + count - 1) / count;
  s.chunk = std::min(s.extent, (s.chunk + 127) / 128 * 128);
  s.count = (s.extent + s.chunk - 1) / s.chunk;
  return s;
}

Block stored_a(const ColMajorCall& c) { return {c.a, c.rows_a(), c.cols_a(), c.lda}; }
Block stored_b(const ColMajorCall& c) { return {c.b, c.rows_b(), c.cols_b(), c.ldb}; }
Block stored_c(const ColMajorCall& c) { return {c.c, c.m, c.n, c.ldc}; }

// The stored block of the streamed operand that chunk [e0, e0 + len) needs.
Block streamed_block(const ColMajorCall& c, const Staging& s, int64_t e0, int64_t len) {
  if (s.split_n) return c.trans_b ? sub(stored_b(c), e0, 0, len, c.k) : sub(stored_b(c), 0, e0, c.k, len);
  return c.trans_a ? sub(stored_a(c), 0, e0, c.k, len) : sub(stored_a(c), e0, 0, len, c.k);
}

Block c_block(const ColMajorCall& c, const Staging& s, int64_t e0, int64_t len) {
  return s.split_n ? sub(stored_c(c), 0, e0, c.m, len) : sub(stored_c(c), e0, 0, len, c.n);
}

// The product restricted to chunks [e0, extent): what is left for the CPU after a failure.
ColMajorCall remaining(const ColMajorCall& c, const Staging& s, int64_t e0) {
  ColMajorCall rest = c;
  const Block streamed = streamed_block(c, s, e0, s.extent - e0);
  const Block cb = c_block(c, s, e0, s.extent - e0);
  (s.split_n ? rest.b : rest.a) = streamed.ptr;
  (s.split_n ? rest.n : rest.m) = s.extent - e0;
  rest.c = const_cast<float*>(cb.ptr);
  return rest;
}

size_t round_up(size_t bytes) { return (bytes + 255) / 256 * 256; }

struct StagingBytes {
  size_t whole = 0, streamed = 0, c = 0;  // per buffer
  size_t total(int slots) const { return whole + slots * (streamed + c); }
};

StagingBytes staging_bytes(const ColMajorCall& call, const OnDevice& on, const Staging& s) {
  StagingBytes b;
  const bool whole_on_device = s.split_n ? on.a : on.b;
  const Block whole = s.split_n ? stored_a(call) : stored_b(call);
  if (!whole_on_device) b.whole = round_up(size_t(whole.rows * whole.cols) * sizeof(float));
  const bool streamed_on_device = s.split_n ? on.b : on.a;
  const int64_t other = s.split_n ? call.m : call.n;
  if (!streamed_on_device) b.streamed = round_up(size_t(s.chunk * call.k) * sizeof(float));
  if (!on.c) b.c = round_up(size_t(s.chunk * other) * sizeof(float));
  return b;
}

// Copies a rows x cols column-major block between host buffers, split over threads when large: one
// core moves ~6-10 GB/s, the PCIe link ~50 GB/s.
constexpr size_t kBytesPerCopyThread = size_t(4) << 20;
constexpr unsigned kMaxCopyThreads = 8;

void host_copy(float* dst, int64_t dst_ld, const float* src, int64_t src_ld, int64_t rows, int64_t cols) {
  auto part = [=](int64_t c0, int64_t c1, int64_t r0, int64_t r1) {
    for (int64_t c = c0; c < c1; ++c)
      std::memcpy(dst + c * dst_ld + r0, src + c * src_ld + r0, size_t(r1 - r0) * sizeof(float));
  };
  const size_t bytes = size_t(rows) * size_t(cols) * sizeof(float);
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency() / 2);
  const int64_t threads = int64_t(std::min<size_t>({bytes / kBytesPerCopyThread, kMaxCopyThreads, hw}));
  if (threads <= 1) return part(0, cols, 0, rows);
  std::vector<std::thread> workers;
  for (int64_t t = 1; t < threads; ++t) {
    if (cols >= threads) workers.emplace_back(part, cols * t / threads, cols * (t + 1) / threads, 0, rows);
    else workers.emplace_back(part, 0, cols, rows * t / threads, rows * (t + 1) / threads);
  }
  if (cols >= threads) part(0, cols / threads, 0, rows);
  else part(0, cols, 0, rows / threads);
  for (std::thread& w : workers) w.join();
}

// The columns of a rows-high block that fit one bounce buffer (at least one; the buffers grow to a
// column when a column is larger).
constexpr size_t kBounceBytes = size_t(16) << 20;
int64_t piece_cols(int64_t rows) {
  return std::max<int64_t>(1, int64_t(kBounceBytes / (size_t(rows) * sizeof(float))));
}

// Host block -> packed device block (ld = rows) on lane->h2d. Pageable memory goes through the
// bounce buffers piece by piece: the CPU fills one while the other's DMA runs.
void upload(Lane* lane, const Block& src, bool src_locked, float* dst) {
  if (src_locked) {
    TILEGEMM_CUDA_CHECK(cudaMemcpy2DAsync(dst, size_t(src.rows) * sizeof(float), src.ptr,
                                          size_t(src.ld) * sizeof(float), size_t(src.rows) * sizeof(float),
                                          size_t(src.cols), cudaMemcpyHostToDevice, lane->h2d));
    return;
  }
  const int64_t step = piece_cols(src.rows);
  for (int64_t c0 = 0; c0 < src.cols; c0 += step) {
    const int64_t n = std::min(step, src.cols - c0);
    const unsigned slot = lane->up_next++ & 1;
    TILEGEMM_CUDA_CHECK(cudaEventSynchronize(lane->up_done[slot]));  // its last DMA has finished
    lane->up[slot].reserve(std::max(kBounceBytes, size_t(src.rows) * sizeof(float)));
    host_copy(lane->up[slot].ptr, src.rows, src.ptr + c0 * src.ld, src.ld, src.rows, n);
    TILEGEMM_CUDA_CHECK(cudaMemcpyAsync(dst + c0 * src.rows, lane->up[slot].ptr,
                                        size_t(src.rows * n) * sizeof(float), cudaMemcpyHostToDevice, lane->h2d));
    TILEGEMM_CUDA_CHECK(cudaEventRecord(lane->up_done[slot], lane->h2d));
  }
}

// Packed device block (ld = rows) -> host block, on lane->d2h, finished when this returns. Pageable
// memory: the DMA of one piece runs while the CPU drains the previous one.
void download(Lane* lane, const float* src, const Block& dst, bool dst_locked) {
  float* out = const_cast<float*>(dst.ptr);
  if (dst_locked) {
    TILEGEMM_CUDA_CHECK(cudaMemcpy2DAsync(out, size_t(dst.ld) * sizeof(float), src, size_t(dst.rows) * sizeof(float),
                                          size_t(dst.rows) * sizeof(float), size_t(dst.cols),
                                          cudaMemcpyDeviceToHost, lane->d2h));
    TILEGEMM_CUDA_CHECK(cudaStreamSynchronize(lane->d2h));
    return;
  }
  const int64_t step = piece_cols(dst.rows);
  auto drain = [&](int64_t c0) {
    const unsigned slot = unsigned(c0 / step) & 1;
    TILEGEMM_CUDA_CHECK(cudaEventSynchronize(lane->down_done[slot]));
    host_copy(out + c0 * dst.ld, dst.ld, lane->down[slot].ptr, dst.rows, dst.rows, std::min(step, dst.cols - c0));
  };
  for (int64_t c0 = 0; c0 < dst.cols; c0 += step) {
    const unsigned slot = unsigned(c0 / step) & 1;
    lane->down[slot].reserve(std::max(kBounceBytes, size_t(dst.rows) * sizeof(float)));
    const int64_t n = std::min(step, dst.cols - c0);
    TILEGEMM_CUDA_CHECK(cudaMemcpyAsync(lane->down[slot].ptr, src + c0 * dst.rows, size_t(dst.rows * n) * sizeof(float),
                                        cudaMemcpyDeviceToHost, lane->d2h));
    TILEGEMM_CUDA_CHECK(cudaEventRecord(lane->down_done[slot], lane->d2h));
    if (c0 > 0) drain(c0 - step);
  }
  if (dst.cols > 0) drain((dst.cols - 1) / step * step);
}

Op op_of(bool trans) { return trans ? Op::T : Op::N; }

void run_staged(const ColMajorCall& call, const OnDevice& on, const Staging& s, Lane* lane,
                int64_t* chunks_final) {
  const StagingBytes bytes = staging_bytes(call, on, s);
  detail::Workspace memory(lane->compute, bytes.total(s.slots()), 0);
  DrainOnExit drain{lane};  // destroyed first: no copy is in flight when the memory is freed
  TILEGEMM_CUDA_CHECK(cudaEventRecord(lane->ready, lane->compute));
  TILEGEMM_CUDA_CHECK(cudaStreamWaitEvent(lane->h2d, lane->ready, 0));
  TILEGEMM_CUDA_CHECK(cudaStreamWaitEvent(lane->d2h, lane->ready, 0));

  char* next = memory.get();
  auto carve = [&](size_t n) { float* p = reinterpret_cast<float*>(next); next += n; return p; };

  // The operand held whole: in place when on the device, else uploaded once.
  const bool whole_on_device = s.split_n ? on.a : on.b;
  Block whole = s.split_n ? stored_a(call) : stored_b(call);
  if (!whole_on_device) {
    float* d = carve(bytes.whole);
    upload(lane, whole, s.split_n ? on.locked_a : on.locked_b, d);
    whole = {d, whole.rows, whole.cols, whole.rows};
  }
  float* streamed_buf[2] = {};
  float* c_buf[2] = {};
  for (int i = 0; i < s.slots(); ++i) {
    if (bytes.streamed > 0) streamed_buf[i] = carve(bytes.streamed);
    if (bytes.c > 0) c_buf[i] = carve(bytes.c);
  }
  const bool streamed_on_device = s.split_n ? on.b : on.a;
  // What the device reads for chunk j (set by upload, used by compute and download).
  struct DeviceChunk { Block streamed, c; };
  DeviceChunk dev[2];

  auto extent_of = [&](int64_t j) { return std::min(s.chunk, s.extent - j * s.chunk); };
  auto upload_chunk = [&](int64_t j) {
    const int slot = int(j & 1);
    const int64_t e0 = j * s.chunk, len = extent_of(j);
    if (j >= 2) {  // the slot's previous chunk must be done with its buffers
      TILEGEMM_CUDA_CHECK(cudaStreamWaitEvent(lane->h2d, lane->computed[slot], 0));
      TILEGEMM_CUDA_CHECK(cudaStreamWaitEvent(lane->h2d, lane->downloaded[slot], 0));
    }
    Block sb = streamed_block(call, s, e0, len);
    if (!streamed_on_device) {
      upload(lane, sb, s.split_n ? on.locked_b : on.locked_a, streamed_buf[slot]);
      sb = {streamed_buf[slot], sb.rows, sb.cols, sb.rows};
    }
    Block cb = c_block(call, s, e0, len);
    if (!on.c) {
      if (call.beta != 0.0f) upload(lane, cb, on.locked_c, c_buf[slot]);  // beta == 0 never reads C
      cb = {c_buf[slot], cb.rows, cb.cols, cb.rows};
    }
    dev[slot] = {sb, cb};
    TILEGEMM_CUDA_CHECK(cudaEventRecord(lane->uploaded[slot], lane->h2d));
  };
  auto compute_chunk = [&](int64_t j) {
    const int slot = int(j & 1);
    const int64_t len = extent_of(j);
    TILEGEMM_CUDA_CHECK(cudaStreamWaitEvent(lane->compute, lane->uploaded[slot], 0));
    const DeviceChunk& d = dev[slot];
    const Block& a = s.split_n ? whole : d.streamed;
    const Block& b = s.split_n ? d.streamed : whole;
    sgemm(Layout::ColMajor, op_of(call.trans_a), op_of(call.trans_b), s.split_n ? call.m : len,
          s.split_n ? len : call.n, call.k, call.alpha, a.ptr, a.ld, b.ptr, b.ld, call.beta,
          const_cast<float*>(d.c.ptr), d.c.ld, lane->compute, product_options());
    TILEGEMM_CUDA_CHECK(cudaEventRecord(lane->computed[slot], lane->compute));
  };
  // Copies chunk j's C back and waits for it, so that *chunks_final is exact if a later step fails.
  auto download_chunk = [&](int64_t j) {
    const int slot = int(j & 1);
    TILEGEMM_CUDA_CHECK(cudaStreamWaitEvent(lane->d2h, lane->computed[slot], 0));
    if (!on.c) download(lane, dev[slot].c.ptr, c_block(call, s, j * s.chunk, extent_of(j)), on.locked_c);
    TILEGEMM_CUDA_CHECK(cudaEventRecord(lane->downloaded[slot], lane->d2h));
    TILEGEMM_CUDA_CHECK(cudaEventSynchronize(lane->downloaded[slot]));
    *chunks_final = j + 1;
  };

  // Chunk j's upload overlaps chunk j-1's product; chunk j-1's download overlaps chunk j's product.
  upload_chunk(0);
  compute_chunk(0);
  for (int64_t j = 1; j < s.count; ++j) {
    upload_chunk(j);
    compute_chunk(j);
    download_chunk(j - 1);
  }
  download_chunk(s.count - 1);
}

}  // namespace

std::optional<GpuFailure> gpu_sgemm(const ColMajorCall& call, const OnDevice& on, GpuPath* path) {
  const bool staged = !on.all();
  *path = staged ? GpuPath::Staged : GpuPath::Direct;
  const Staging plan = plan_staging(call, on);
  int64_t chunks_final = 0;
  try {
    int device = 0;
    TILEGEMM_CUDA_CHECK(cudaGetDevice(&device));
    LaneHandle lane(device);
    if (!staged) {
      sgemm(Layout::ColMajor, op_of(call.trans_a), op_of(call.trans_b), call.m, call.n, call.k,
            call.alpha, call.a, call.lda, call.b, call.ldb, call.beta, call.c, call.ldc, lane->compute,
            product_options());
      TILEGEMM_CUDA_CHECK(cudaStreamSynchronize(lane->compute));
      return std::nullopt;
    }
    run_staged(call, on, plan, lane.operator->(), &chunks_final);
    return std::nullopt;
  } catch (const std::exception& e) {
    GpuFailure failure;
    failure.message = e.what();
    const auto* error = dynamic_cast<const Error*>(&e);
    failure.device_unusable = error == nullptr || error->code() != ErrorCode::OutOfMemory;
    cudaGetLastError();  // clear a non-sticky error so the next call starts clean
    if (!on.any()) failure.cpu_rest = remaining(call, plan, chunks_final * plan.chunk);
    return failure;
  }
}

}  // namespace blas
}  // namespace tilegemm
