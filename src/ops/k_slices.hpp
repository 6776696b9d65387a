// Split-K's cut of a product's k range: whole k steps of `step` (a kernel's k per stage) per slice,
// none empty (fewer slices than asked when k has fewer steps, or when the steps do not divide
// evenly). Level 8's split-K (families/wgmma, 64) and the skinny tensor-core kernel
// (families/skinny16, 128) cut k the same way.
#pragma once
#include <cstdint>

namespace tilegemm {
namespace ops {

struct KSlices {
  int splits = 1, steps_per_split = 1;
};
inline KSlices k_slices(int64_t k, int splits, int step) {
  const int64_t steps = (k + step - 1) / step;
  const int64_t per = (steps + splits - 1) / splits;
  return {static_cast<int>((steps + per - 1) / per), static_cast<int>(per)};
}

}  // namespace ops
}  // namespace tilegemm
