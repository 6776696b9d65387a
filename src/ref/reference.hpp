// CPU reference GEMM for tests and `tilegemm check`: same semantics as tilegemm::sgemm, on host memory,
// accumulating in double, multithreaded over blocks of C.
#pragma once
#include <cmath>
#include <cstdint>

#include "tilegemm/types.hpp"

namespace tilegemm {
namespace ref {

// How far an FP32 product of K-term sums may sit from the exact one, per unit of max|A| * max|B|:
// four FP32 roundings (1.2e-7 each, a margin over 2^-23) per term, K + 2 terms. Tests and the tools'
// verification scale it (by the inputs' magnitudes; by 2 when both sides of a comparison are FP32).
inline double fp32_gemm_error_bound(int64_t k) { return 4.0 * 1.2e-7 * static_cast<double>(k + 2); }

// The unit roundoff of an output type (bf16 2^-8, f16 2^-11, f32 2^-24): a result rounded to it is off
// by at most this much relative to the value.
inline double unit_roundoff(DType t) {
  return t == DType::BF16 ? std::ldexp(1.0, -8) : t == DType::F16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -24);
}

// C = alpha * op(A) * op(B) + beta * C on host pointers, with the layout/op/ld conventions of
// tilegemm::sgemm. beta == 0 never reads C; k == 0 or alpha == 0 gives C = beta * C without reading
// A or B. `threads` <= 0 uses std::thread::hardware_concurrency().
// Arguments are validated with tilegemm::check_gemm_args (throws tilegemm::Error).
void sgemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
           const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
           int64_t ldc, int threads = 0);

// The same product, written to a dense row-major m x n double array `out` (ld = n), without alpha/beta:
// out = op(A) * op(B). For tolerance checks that want the exact-ish value.
void gemm_f64(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, const float* a,
              int64_t lda, const float* b, int64_t ldb, double* out, int threads = 0);

}  // namespace ref
}  // namespace tilegemm
