// What the GEMV launchers share (launch_gemv.cu, launch_gemv_one_row.cu): the way a form reads W's
// rows as a template argument.
#pragma once
#include <type_traits>

#include "dense/config.hpp"
#include "kernels/gemm/gemv_common.cuh"

namespace tilegemm {
namespace detail {

// Calls f with std::integral_constant<kernels::GemvColsW, ...> for the form's way of reading W's rows.
template <class F>
void with_cols_w(const GemvForm& form, F&& f) {
  if (form.vec_w) return f(std::integral_constant<kernels::GemvColsW, kernels::GemvColsW::Aligned>{});
  if (form.shift_w) return f(std::integral_constant<kernels::GemvColsW, kernels::GemvColsW::Shifted>{});
  f(std::integral_constant<kernels::GemvColsW, kernels::GemvColsW::Scalar>{});
}

}  // namespace detail
}  // namespace tilegemm
