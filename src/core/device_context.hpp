// The per-device state of the library, in one place: what the dispatch needs to know about a device
// (queried once) and the memory pool product calls draw their scratch memory from. Host code only.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>
#include <map>
#include <set>
#include <tuple>
#include <string>
#include <functional>
#include <unordered_map>


namespace tilegemm {
namespace ops {
struct ContextState;
}
namespace detail {

struct DeviceContext {
  int ordinal = 0;
  std::string name;        // "NVIDIA H100 80GB HBM3"
  int driver_version = 0;  // cudaDriverGetVersion
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  size_t l2_bytes = 0;
  size_t smem_per_block_optin = 0;
  double mem_bandwidth_gbs = 0;  // from bus width and memory clock (tilegemm::DeviceInfo)
  int whole_sm_clusters[4] = {};  // DeviceFacts::whole_sm_clusters
  // Stream-ordered pool for per-call scratch memory (split-K partials): see core/workspace.hpp.
  cudaMemPool_t workspace_pool = nullptr;
  // Kernels whose dynamic shared-memory limit was raised on this device (ensure_smem_opt_in).
  mutable std::mutex opt_in_mutex;
  mutable std::set<const void*> smem_opted_in;
  // Blocks of a kernel resident per SM (kernel, threads, shared bytes) -> count (resident_blocks_per_sm).
  mutable std::map<std::tuple<const void*, int, int>, int> resident_blocks;
  // Clusters of a kernel resident on the device at once (kernel, threads, shared bytes, cluster
  // size) -> count (resident_clusters).
  mutable std::map<std::tuple<const void*, int, int, int>, int> resident_cluster_count;
  // The tuning database's entries for this device (problem key -> config text), read on the first
  // Auto choice that needs them (tune/tuned_table.hpp); tuned_loaded is cleared to read it again.
  mutable std::mutex tuned_mutex;
  mutable bool tuned_loaded = false;
  mutable std::unordered_map<std::string, std::string> tuned_configs;
  // The operation model's state: Auto's choices, parsed config texts (ops/context_state.hpp). Made
  // with the context, never freed (like it).
  ops::ContextState* ops = nullptr;
  // Run-time compiled kernels loaded on this device (name expression -> cudaKernel_t, jit/jit.hpp).
  mutable std::mutex jit_mutex;
  mutable std::unordered_map<std::string, const void*> jit_kernels;
};

// The context of the current device, created on its first use (thread-safe) and kept for the life of
// the process. Throws Error(NoDevice) without a device and Error(UnsupportedArch) when this build
// has no code for it (nothing is cached then, so the next call checks again).
const DeviceContext& current_device_context();
// The current device's context if one can be created, else nullptr (no device, or no code for it):
// for paths that work without a device and only use its caches when there is one.
const DeviceContext* current_device_context_if_any();
// Calls `fn` on every context created so far (all devices).
void for_each_device_context(const std::function<void(const DeviceContext&)>& fn);

// Raises `kernel`'s dynamic shared-memory limit to `bytes` on the current device, once per kernel and
// device (launches above 48 KB need the opt-in; a second GPU needs its own).
void ensure_smem_opt_in(const void* kernel, int bytes);
template <class Kernel>
void ensure_smem_opt_in(Kernel* kernel, int bytes) {
  ensure_smem_opt_in(reinterpret_cast<const void*>(kernel), bytes);
}
// Thread blocks of `kernel` that fit on one SM of the current device (at least 1), remembered per
// device (after ensure_smem_opt_in when smem_bytes > 48 KB).
int resident_blocks_per_sm(const void* kernel, int threads, int smem_bytes);
template <class Kernel>
int resident_blocks_per_sm(Kernel* kernel, int threads, int smem_bytes) {
  return resident_blocks_per_sm(reinterpret_cast<const void*>(kernel), threads, smem_bytes);
}
// Clusters of `cluster` blocks of `kernel` resident on the current device at once (at least 1; the
// GPCs' SM counts decide it, not only SMs / cluster), remembered per device.
int resident_clusters(const void* kernel, int threads, int smem_bytes, int cluster);
template <class Kernel>
int resident_clusters(Kernel* kernel, int threads, int smem_bytes, int cluster) {
  return resident_clusters(reinterpret_cast<const void*>(kernel), threads, smem_bytes, cluster);
}

}  // namespace detail
}  // namespace tilegemm
