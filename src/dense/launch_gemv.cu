// Launchers of the GEMV-class kernels through registers (gemv_rows.cuh, gemv_cols.cuh: short-dimension
// bound x 16-byte loads of W), and the dispatch to the one-row and staged kernels, each launched from
// a file of its own (launch_gemv_one_row.cu, launch_gemv_staged.cu) so that each is a module of its
// own: a decode product loads only the one-row kernels' (perf note #67).
#include "core/device_context.hpp"
#include "core/kernel_launch.hpp"
#include "core/with_bool.hpp"
#include "dense/config.hpp"
#include "kernels/gemm/gemv_cols.cuh"
#include "kernels/gemm/gemv_rows.cuh"
#include "dense/launch.hpp"
#include "dense/launch_gemv.cuh"
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

namespace {

template <int kS>
void launch_bound(bool rows, const GemvForm& form, const kernels::GemvParams& p, long long units, cudaStream_t stream,
                  bool after_prologue) {
  // gemv-cols at s = 1 runs gemv_cols_one.cuh (launch_gemv_one_row), gemv-rows at s = 16
  // gemv_rows_staged.cuh (launch_gemv_staged): gemv_cols<1> and gemv_rows<16> are not built.
  void (*kernel)(kernels::GemvParams) = nullptr;
  if constexpr (kS < 16)
    if (rows) with_bool(form.vec_w, [&](auto vec) { kernel = kernels::gemv_rows<kS, decltype(vec)::value>; });
  if constexpr (kS > 1)
    if (!rows) with_cols_w(form, [&](auto w) { kernel = kernels::gemv_cols<kS, decltype(w)::value>; });
  if (!kernel) throw Error(ErrorCode::Internal, "launch_gemv: no registers kernel for this family at s = " + std::to_string(kS));
  launch_kernel(kernel, dim3(static_cast<unsigned>(units)), dim3(kGemvThreads), 0, stream, after_prologue, p);
}

}  // namespace

void launch_gemv(const GemmConfig& c, const GemvForm& f, const kernels::GemvParams& p, long long units,
                 cudaStream_t stream, bool after_prologue) {
  if (gemv_one_row(c)) return launch_gemv_one_row(c.gemv_lanes, f, p, units, stream, after_prologue);
  if (f.staging != GemvStaging::Registers) return launch_gemv_staged(f, p, units, stream, after_prologue);
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
