// Thread-block clusters a device runs at once (core/cluster_capacity.cu).
#pragma once
#include <cstddef>

namespace tilegemm {
namespace detail {

// Clusters of `size` blocks (1-8) that run at once when each block takes a whole SM: sm_count / size
// for size 1 and before compute capability 9.0, else what the device reports.
int whole_sm_clusters_at_once(int size, int sm_count, int cc_major, size_t smem_per_block_optin);

}  // namespace detail
}  // namespace tilegemm
