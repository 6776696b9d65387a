// Launchers of the BSR kernels (one .cu per kernel file) and the problem description dispatch
// hands them. Host code; the public entry points are in bsr_products.cpp.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sparse/kernels/params.hpp"

namespace tilegemm {
namespace detail {

struct BsrProblem {
  kernels::BsrParams p;
  bool xwt = true;  // orientation (sparse/kernels/params.hpp)
  const std::vector<int32_t>* row_lengths = nullptr;  // block counts in p.row_order's order
  long long nnzb = 0;
};

void launch_bsr_reduction(const BsrProblem& prob, cudaStream_t stream);
void launch_bsr_small_m(const BsrProblem& prob, cudaStream_t stream);
void launch_bsr_tiled(const BsrProblem& prob, cudaStream_t stream);
void launch_bsr_tiled_tf32x3(const BsrProblem& prob, cudaStream_t stream);
// The schedule-th (1-based) entry of bsr_tiled_schedule_names() (tiled_candidates.cu).
void launch_bsr_tiled_candidate(const BsrProblem& prob, int schedule, cudaStream_t stream);
std::vector<std::string> bsr_tiled_schedule_names_impl();
int bsr_tiled_schedule_count();

}  // namespace detail
}  // namespace tilegemm
