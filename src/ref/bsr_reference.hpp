// CPU reference for block-sparse x dense products, for tests and `tilegemm check`: host memory,
// double accumulation, multithreaded, BLAS semantics (beta == 0 never reads Y; alpha == 0, k == 0
// or nnzb == 0 gives Y = beta * Y without reading X or the blocks; m == 0 or n == 0 is a no-op).
// Every Y element is summed in increasing k order, so the result does not depend on the number of
// threads (bitwise reproducible).
//
// Arguments are validated before anything is written (tilegemm::Error(InvalidArgument) naming the
// argument): sizes >= 0 and matching W's shape, W valid (tilegemm::validate), ld >= the row
// length, non-null pointers where elements exist, Y not overlapping X or W's blocks.
// `threads` <= 0 uses std::thread::hardware_concurrency().
#pragma once
#include <cstdint>

#include "tilegemm/bsr.hpp"

namespace tilegemm {
namespace ref {

// Y = alpha * X * W^T + beta * Y: the layer of a network whose weight W is block-sparse.
//   X: m x k row-major, ldx >= max(k, 1).  W: BSR n x k.  Y: m x n row-major, ldy >= max(n, 1).
void bsr_xwt(int64_t m, int64_t n, int64_t k, float alpha, const float* x, int64_t ldx,
             const BsrMatrix& w, float beta, float* y, int64_t ldy, int threads = 0);

// Y = alpha * W * X + beta * Y: cuSPARSE's orientation (bsrmm).
//   W: BSR m x k.  X: k x n row-major, ldx >= max(n, 1).  Y: m x n row-major, ldy >= max(n, 1).
void bsr_wx(int64_t m, int64_t n, int64_t k, float alpha, const BsrMatrix& w, const float* x,
            int64_t ldx, float beta, float* y, int64_t ldy, int threads = 0);

}  // namespace ref
}  // namespace tilegemm
