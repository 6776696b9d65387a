// Launchers of the GEMV-class kernels (gemv_rows.cuh, gemv_cols.cuh: short-dimension bound x 16-byte
// loads of W; gemv_cols_one.cuh: lanes per W row x 16-byte loads of W; gemv_rows_staged.cuh: how X
// is staged).
#include "core/device_context.hpp"
#include "core/kernel_launch.hpp"
#include "core/with_bool.hpp"
#include "dense/config.hpp"
#include "dense/kernels/gemv_cols.cuh"
#include "dense/kernels/gemv_cols_one.cuh"
#include "dense/kernels/gemv_rows.cuh"
#include "dense/kernels/gemv_rows_staged.cuh"
#include "dense/launch.hpp"
#include "tilegemm/error.hpp"

#include <type_traits>

namespace tilegemm {
namespace detail {

static_assert(kernels::GemvRowsShape<8>::kThreads == kGemvThreads && kernels::GemvColsShape<2>::kThreads == kGemvThreads &&
                  kernels::GemvRowsShape<1>::kChunk == kGemvRowsChunk && kernels::GemvColsShape<2>::kCols == kGemvColsCols,
              "config.hpp mirrors the GEMV kernels' shapes");
static_assert(kernels::GemvRowsShape<1>::kBlockRows == 32 && kernels::GemvRowsShape<8>::kBlockRows == 16 &&
                  kernels::GemvColsShape<2>::kChunk == 64 && kernels::GemvColsShape<16>::kChunk == 32,
              "gemv_rows_block_rows / gemv_cols_chunk (config.hpp) mirror the kernels' shapes");
static_assert(kernels::GemvColsOneShape<8>::kThreads == kGemvColsOneThreads &&
                  kernels::GemvColsOneShape<8>::kStep == 512 && kernels::GemvColsOneShape<32>::kStep == 128,
              "kGemvColsOneThreads / gemv_cols_one_step (config.hpp) mirror gemv_cols_one.cuh");
static_assert(kernels::GemvStagedShape<16>::kSmemBytes == kGemvStagedSmemBytes &&
                  kernels::GemvStagedShape<16>::kBlockRows == 32 && kGemvRowsChunk % kernels::GemvStagedShape<16>::kBK == 0 &&
                  kernels::GemvStagedShape<16>::kThreads == kGemvThreads && kernels::GemvStagedShape<16>::kPerLane == 2 &&
                  kernels::GemvStagedShape<16>::kLine * kernels::GemvStagedShape<16>::kBlockRows == kGemvStagedRowGroup,
              "gemv_rows_staged.cuh at s = 16 has gemv-rows:s16's blocks, slices and partial tiles (config.hpp)");

namespace {

using kernels::GemvColsW;

// Calls f with std::integral_constant<GemvColsW, ...> for the form's way of reading W's rows.
template <class F>
void with_cols_w(const GemvForm& form, F&& f) {
  if (form.vec_w) return f(std::integral_constant<GemvColsW, GemvColsW::Aligned>{});
  if (form.shift_w) return f(std::integral_constant<GemvColsW, GemvColsW::Shifted>{});
  f(std::integral_constant<GemvColsW, GemvColsW::Scalar>{});
}

template <int kS>
void launch_bound(bool rows, const GemvForm& form, const kernels::GemvParams& p, long long units, cudaStream_t stream,
                  bool after_prologue) {
  // gemv-cols at s = 1 runs gemv_cols_one.cuh (launch_one_row), gemv-rows at s = 16
  // gemv_rows_staged.cuh (launch_staged): gemv_cols<1> and gemv_rows<16> are not built.
  void (*kernel)(kernels::GemvParams) = nullptr;
  if constexpr (kS < 16)
    if (rows) with_bool(form.vec_w, [&](auto vec) { kernel = kernels::gemv_rows<kS, decltype(vec)::value>; });
  if constexpr (kS > 1)
    if (!rows) with_cols_w(form, [&](auto w) { kernel = kernels::gemv_cols<kS, decltype(w)::value>; });
  if (!kernel) throw Error(ErrorCode::Internal, "launch_gemv: no registers kernel for this family at s = " + std::to_string(kS));
  launch_kernel(kernel, dim3(static_cast<unsigned>(units)), dim3(kGemvThreads), 0, stream, after_prologue, p);
}

void launch_one_row(int lanes, const GemvForm& form, const kernels::GemvParams& p, long long units,
                    cudaStream_t stream, bool after_prologue) {
  with_cols_w(form, [&](auto w) {
    constexpr GemvColsW kW = decltype(w)::value;
    void (*kernel)(kernels::GemvParams) = lanes == 8 ? kernels::gemv_cols_one<8, kW>
                  : lanes == 16 ? kernels::gemv_cols_one<16, kW>
                  : lanes == 32 ? kernels::gemv_cols_one<32, kW>
                                : nullptr;
    if (!kernel) throw Error(ErrorCode::Internal, "launch_gemv: no one-row kernel for " + std::to_string(lanes) + " lanes");
    launch_kernel(kernel, dim3(static_cast<unsigned>(units)), dim3(kGemvColsOneThreads), 0, stream, after_prologue, p);
  });
}

void launch_staged(const GemvForm& f, const kernels::GemvParams& p, long long units, cudaStream_t stream,
                   bool after_prologue) {
  using kernels::GemvXStage;
  with_bool(f.vec_w, [&](auto vec_w) {
    with_bool(f.vec_x, [&](auto vec_x) {
      constexpr bool kVecW = decltype(vec_w)::value, kVecX = decltype(vec_x)::value;
      void (*kernel)(kernels::GemvParams) = f.staging == GemvStaging::XRowsAlongK
                                                ? kernels::gemv_rows_staged<16, GemvXStage::KRows, kVecW, kVecX>
                                                : kernels::gemv_rows_staged<16, GemvXStage::SRows, kVecW, kVecX>;
      ensure_smem_opt_in(reinterpret_cast<const void*>(kernel), kGemvStagedSmemBytes);
      launch_kernel(kernel, dim3(static_cast<unsigned>(units)), dim3(kGemvThreads), kGemvStagedSmemBytes, stream,
                    after_prologue, p);
    });
  });
}

}  // namespace

void launch_gemv(const GemmConfig& c, const GemvForm& f, const kernels::GemvParams& p, long long units,
                 cudaStream_t stream, bool after_prologue) {
  if (gemv_one_row(c)) return launch_one_row(c.gemv_lanes, f, p, units, stream, after_prologue);
  if (f.staging != GemvStaging::Registers) return launch_staged(f, p, units, stream, after_prologue);
  const bool rows = c.family == GemmFamily::GemvRows;
  switch (c.gemv_s) {
    case 1: return launch_bound<1>(rows, f, p, units, stream, after_prologue);
    case 2: return launch_bound<2>(rows, f, p, units, stream, after_prologue);
    case 4: return launch_bound<4>(rows, f, p, units, stream, after_prologue);
    case 8: return launch_bound<8>(rows, f, p, units, stream, after_prologue);
    case 16: return launch_bound<16>(rows, f, p, units, stream, after_prologue);
    default: throw Error(ErrorCode::Internal, "launch_gemv: no kernel for short dimension bound " + std::to_string(c.gemv_s));
  }
}

}  // namespace detail
}  // namespace tilegemm
