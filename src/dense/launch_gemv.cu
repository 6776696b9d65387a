// Launchers of the GEMV-class kernels (gemv_rows.cuh, gemv_cols.cuh): short-dimension bound x
// 16-byte loads of W.
#include "core/kernel_launch.hpp"
#include "core/with_bool.hpp"
#include "dense/config.hpp"
#include "dense/kernels/gemv_cols.cuh"
#include "dense/kernels/gemv_rows.cuh"
#include "dense/launch.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

static_assert(kernels::GemvRowsShape<16>::kThreads == kGemvThreads && kernels::GemvColsShape<1>::kThreads == kGemvThreads &&
                  kernels::GemvRowsShape<1>::kChunk == kGemvRowsChunk && kernels::GemvColsShape<1>::kCols == kGemvColsCols,
              "config.hpp mirrors the GEMV kernels' shapes");
static_assert(kernels::GemvRowsShape<1>::kBlockRows == 32 && kernels::GemvRowsShape<8>::kBlockRows == 16 &&
                  kernels::GemvColsShape<1>::kChunk == 64 && kernels::GemvColsShape<16>::kChunk == 32,
              "gemv_rows_block_rows / gemv_cols_chunk (config.hpp) mirror the kernels' shapes");

namespace {

template <int kS>
void launch_bound(bool rows, bool vec_w, const kernels::GemvParams& p, long long units, cudaStream_t stream,
                  bool after_prologue) {
  with_bool(vec_w, [&](auto vec) {
    constexpr bool kVec = decltype(vec)::value;
    launch_kernel(rows ? kernels::gemv_rows<kS, kVec> : kernels::gemv_cols<kS, kVec>, dim3(static_cast<unsigned>(units)),
                  dim3(kGemvThreads), 0, stream, after_prologue, p);
  });
}

}  // namespace

void launch_gemv(bool rows, int s, bool vec_w, const kernels::GemvParams& p, long long units, cudaStream_t stream,
                 bool after_prologue) {
  switch (s) {
    case 1: return launch_bound<1>(rows, vec_w, p, units, stream, after_prologue);
    case 2: return launch_bound<2>(rows, vec_w, p, units, stream, after_prologue);
    case 4: return launch_bound<4>(rows, vec_w, p, units, stream, after_prologue);
    case 8: return launch_bound<8>(rows, vec_w, p, units, stream, after_prologue);
    case 16: return launch_bound<16>(rows, vec_w, p, units, stream, after_prologue);
    default: throw Error(ErrorCode::Internal, "launch_gemv: no kernel for short dimension bound " + std::to_string(s));
  }
}

}  // namespace detail
}  // namespace tilegemm
