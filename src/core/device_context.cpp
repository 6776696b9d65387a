#include "core/device_context.hpp"

#include "core/device_facts.hpp"

#include <atomic>
#include <cstdint>
#include <string>
#include <mutex>

#include "core/cluster_capacity.hpp"
#include "core/cuda_check.hpp"
#include "core/kernel_launch.hpp"
#include "core/workspace.hpp"
#include "ops/context_state.hpp"
#include "tilegemm/device.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

namespace {

constexpr int kMaxDevices = 64;
// Never freed: like the CUDA runtime's own state, contexts (and their pools) live until the process
// exits; destroying a pool from a static destructor could run after the CUDA context is gone.
std::atomic<const DeviceContext*> g_contexts[kMaxDevices];
std::mutex g_create_mutex;

const DeviceContext* create_context() {
  require_supported_device();  // NoDevice / UnsupportedArch, with the device's name in the message
  const DeviceInfo info = current_device_info();
  auto* ctx = new DeviceContext();
  ctx->ops = new ops::ContextState();
  ctx->ordinal = info.ordinal;
  ctx->name = info.name;
  ctx->driver_version = info.driver_version;
  ctx->cc_major = info.cc_major;
  ctx->cc_minor = info.cc_minor;
  ctx->sm_count = info.sm_count;
  ctx->l2_bytes = static_cast<size_t>(info.l2_bytes);
  ctx->smem_per_block_optin = info.smem_per_block_optin;
  ctx->mem_bandwidth_gbs = info.mem_bandwidth_gbs();
  for (int i = 0; i < 4; ++i)
    ctx->whole_sm_clusters[i] =
        whole_sm_clusters_at_once(1 << i, info.sm_count, info.cc_major, info.smem_per_block_optin);
  // The first call on a device may come while this thread captures a graph in global mode, which
  // refuses cudaMemPoolCreate ("operation not permitted when stream is capturing"): the thread's
  // capture mode is relaxed while the pool is made, and restored whatever path leaves.
  struct RelaxedCapture {
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    RelaxedCapture() { cudaThreadExchangeStreamCaptureMode(&mode); }
    ~RelaxedCapture() { cudaThreadExchangeStreamCaptureMode(&mode); }
  } relaxed;
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = info.ordinal;
  TILEGEMM_CUDA_CHECK(cudaMemPoolCreate(&ctx->workspace_pool, &props));
  // Memory freed into the pool stays reserved up to this bound (so repeated calls reuse it without
  // cudaMalloc); above it, the pool returns memory to the device at the next synchronization.
  uint64_t keep = kWorkspacePoolKeepBytes;
  TILEGEMM_CUDA_CHECK(cudaMemPoolSetAttribute(ctx->workspace_pool, cudaMemPoolAttrReleaseThreshold, &keep));
  return ctx;
}

}  // namespace

const DeviceContext& current_device_context() {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    throw Error(ErrorCode::NoDevice, "no CUDA device is visible");
  }
  if (device < 0 || device >= kMaxDevices)
    throw Error(ErrorCode::Internal, "device ordinal " + std::to_string(device) + " is beyond the " +
                                         std::to_string(kMaxDevices) + " devices tilegemm supports");
  if (const DeviceContext* ctx = g_contexts[device].load(std::memory_order_acquire)) return *ctx;
  std::lock_guard<std::mutex> lock(g_create_mutex);
  if (const DeviceContext* ctx = g_contexts[device].load(std::memory_order_acquire)) return *ctx;
  const DeviceContext* ctx = create_context();
  g_contexts[device].store(ctx, std::memory_order_release);
  return *ctx;
}

const DeviceContext* current_device_context_if_any() {
  try {
    return &current_device_context();
  } catch (const Error& e) {
    if (e.code() == ErrorCode::NoDevice || e.code() == ErrorCode::UnsupportedArch) return nullptr;
    throw;
  }
}

void for_each_device_context(const std::function<void(const DeviceContext&)>& fn) {
  for (const auto& slot : g_contexts)
    if (const DeviceContext* ctx = slot.load(std::memory_order_acquire)) fn(*ctx);
}

DeviceFacts current_device_facts() { return device_facts(current_device_context()); }

DeviceFacts device_facts(const DeviceContext& ctx) {
  DeviceFacts d;
  d.ordinal = ctx.ordinal;
  d.sm_count = ctx.sm_count;
  d.cc_major = ctx.cc_major;
  d.cc_minor = ctx.cc_minor;
  d.mem_bandwidth_gbs = ctx.mem_bandwidth_gbs;
  for (int i = 0; i < 4; ++i) d.whole_sm_clusters[i] = ctx.whole_sm_clusters[i];
  return d;
}

void ensure_smem_opt_in(const void* kernel, int bytes) {
  const DeviceContext& ctx = current_device_context();
  std::lock_guard<std::mutex> lock(ctx.opt_in_mutex);
  if (ctx.smem_opted_in.count(kernel)) return;
  TILEGEMM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  ctx.smem_opted_in.insert(kernel);
}

int resident_blocks_per_sm(const void* kernel, int threads, int smem_bytes) {
  const DeviceContext& ctx = current_device_context();
  const auto key = std::make_tuple(kernel, threads, smem_bytes);
  {
    std::lock_guard<std::mutex> lock(ctx.opt_in_mutex);
    const auto it = ctx.resident_blocks.find(key);
    if (it != ctx.resident_blocks.end()) return it->second;
  }
  int n = 0;
  TILEGEMM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, smem_bytes));
  std::lock_guard<std::mutex> lock(ctx.opt_in_mutex);
  return ctx.resident_blocks.emplace(key, n > 0 ? n : 1).first->second;
}

int resident_clusters(const void* kernel, int threads, int smem_bytes, int cluster) {
  const DeviceContext& ctx = current_device_context();
  const auto key = std::make_tuple(kernel, threads, smem_bytes, cluster);
  {
    std::lock_guard<std::mutex> lock(ctx.opt_in_mutex);
    const auto it = ctx.resident_cluster_count.find(key);
    if (it != ctx.resident_cluster_count.end()) return it->second;
  }
  const int n = max_active_clusters(kernel, threads, static_cast<size_t>(smem_bytes), cluster);
  std::lock_guard<std::mutex> lock(ctx.opt_in_mutex);
  return ctx.resident_cluster_count.emplace(key, n > 0 ? n : 1).first->second;
}

}  // namespace detail
}  // namespace tilegemm
