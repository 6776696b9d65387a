// Launchers of the BSR kernels (one .cu per kernel file) and the problem description dispatch
// hands them. Host code; the public entry points are in bsr_products.cpp.
#pragma once
#include <cuda_runtime_api.h>

#include "sparse/kernels/params.hpp"

namespace tilegemm {
namespace detail {

struct BsrProblem {
  kernels::BsrParams p;
  bool xwt = true;  // orientation (sparse/kernels/params.hpp)
};

void launch_bsr_reduction(const BsrProblem& prob, cudaStream_t stream);
void launch_bsr_small_m(const BsrProblem& prob, cudaStream_t stream);
void launch_bsr_tiled(const BsrProblem& prob, cudaStream_t stream);

}  // namespace detail
}  // namespace tilegemm
