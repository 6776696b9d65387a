// Split-K's cut of a product's k range: whole 64-wide k steps per slice, none empty (fewer slices
// than asked when k has fewer steps, or when the steps do not divide evenly). Level 8's split-K
// (families/wgmma) and the skinny tensor-core kernel (families/skinny16) cut k the same way.
#pragma once
#include <cstdint>

namespace tilegemm {
namespace ops {

struct KSlices {
  int splits = 1, steps_per_split = 1;
};
inline KSlices k64_slices(int64_t k, int splits) {
  const int64_t steps = (k + 63) / 64;
  const int64_t per = (steps + splits - 1) / splits;
  return {static_cast<int>((steps + per - 1) / per), static_cast<int>(per)};
}

}  // namespace ops
}  // namespace tilegemm
