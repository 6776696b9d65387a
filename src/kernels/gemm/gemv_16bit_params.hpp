// The parameters of the 16-bit skinny/decode kernel (gemv_16bit.cuh), shared with its host launcher.
#pragma once

namespace tilegemm {
namespace kernels {

struct Gemv16Params {
  const void* x;  // the short operand: rows x k, x_ld elements apart
  const void* w;  // the long operand: lines x k, w_ld elements apart
  void* c;        // C(r, line) at r * c_row + line * c_col elements
  long long x_ld, w_ld, c_row, c_col;
  int rows, lines, k;  // k % 8 == 0
  float alpha, beta;   // beta == 0: C is not read
};

}  // namespace kernels
}  // namespace tilegemm
