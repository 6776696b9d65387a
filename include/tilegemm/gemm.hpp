// Dense GEMM: C = alpha * op(A) * op(B) + beta * C   (BLAS semantics).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tilegemm/types.hpp"

struct CUstream_st;

namespace tilegemm {

using Stream = CUstream_st*;  // same type as cudaStream_t; nullptr is the legacy default stream

struct GemmOptions {
  // A ladder level, or Auto: the analytic chooser picks a config (docs/shapes.md).
  Kernel kernel = Kernel::Auto;
  // Tile visiting order for levels 4-6; Auto dispatch uses the measured best (docs/ladder.md).
  Raster raster = Raster::Hilbert;
  // A config in its text form runs exactly that config instead of the chooser's pick (kernel must be
  // Auto), e.g. "tiled:64x64x16:w32x32:t8x4:s3:b6:k8:hilbert" or "gemv-cols:s1:k4"
  // (docs/shapes.md lists the families and fields). An unknown or inapplicable config throws
  // Error(InvalidArgument) naming options.config and why, before anything is launched.
  std::string config;
  // Which math Auto may pick from (types.hpp, Math): by default FFMA or 3xTF32 tensor cores (level 7,
  // level 8 on Hopper), both FP32-class; Math::FfmaOnly keeps Auto and its tuned configs on CUDA cores;
  // Math::Tf32 also allows one TF32 product (level 8's wgmma-tf32, whose configs run only under it). A
  // named config or ladder level runs as named.
  Math math = Math::Fp32;
};

// One matrix operand of a typed product: its element type, device pointer, leading dimension (in
// elements) and, for batched products, the distance from one batch's matrix to the next (elements;
// 0 for A or B: every batch reads the same matrix).
struct MatrixArg {
  DType type = DType::F32;
  const void* data = nullptr;
  int64_t ld = 0;
  int64_t batch_stride = 0;
};
struct OutputArg {
  DType type = DType::F32;
  void* data = nullptr;
  int64_t ld = 0;
  int64_t batch_stride = 0;
};
// The fused epilogue's parts (Epilogue): a bias vector of one value per row of C (m values) or per
// column (n), and an activation applied last.
enum class BiasKind : int { None = 0, PerRow, PerColumn };
enum class Activation : int {
  None = 0,
  Relu,      // max(x, 0)
  GeluTanh,  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))  (torch's approximate="tanh")
  GeluErf,   // 0.5 x (1 + erf(x / sqrt(2)))                   (torch's default GELU)
  Silu,      // x / (1 + exp(-x))
};
const char* to_string(BiasKind b);    // "none", "row", "column"
const char* to_string(Activation a);  // "none", "relu", "gelu-tanh", "gelu-erf", "silu"
// The names to_string prints (case-insensitive); tilegemm::Error(InvalidArgument) naming `what` else.
BiasKind parse_bias_kind(const std::string& s, const char* what = "bias_kind");
Activation parse_activation(const std::string& s, const char* what = "activation");

// What is done with the product before it is stored, in this order, in FP32:
//   D = activation(alpha * op(A) op(B) + beta * C + bias), written over C (C's type is D's: the input
//   type or f32; beta == 0 never reads C).
// bias: a contiguous device vector of m (PerRow) or n (PerColumn) values, F32 or C's type, every batch
// adding the same one. The level 8 families apply it in their stores; any other family's product is
// followed by one elementwise pass over C.
struct Epilogue {
  float alpha = 1.0f;
  float beta = 0.0f;
  BiasKind bias_kind = BiasKind::None;
  const void* bias = nullptr;
  DType bias_type = DType::F32;
  Activation activation = Activation::None;
};
// A typed, optionally batched product: for each b < batch,
//   C_b = alpha * op(A_b) * op(B_b) + beta * C_b,  X_b = X.data + b * X.batch_stride elements.
// The BLAS rules of sgemm below hold per batch. batch == 0 is a no-op; batch > 1 needs c.batch_stride
// >= C's stored extent (batches must not overlap). F32 A, B and C run on every layout; bf16 or f16 A
// and B (C the same type or f32) run on ladder level 8 where A and B are both contiguous along k with
// 16-byte aligned rows (docs/api.md). Anything else is refused with Error(InvalidArgument) saying
// which family could not run it and why.
struct GemmArgs {
  Layout layout = Layout::RowMajor;
  Op op_a = Op::N, op_b = Op::N;
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;
  MatrixArg a, b;
  OutputArg c;
  Epilogue epilogue;
};

// The typed entry: checks every field (errors name it, e.g. "args.a.ld = 3 is too small ..."), then
// runs Auto's choice, options.config or options.kernel, as sgemm does. Batches run in one launch on
// ladder level 8 (its families walk the tiles of every batch), else one product per launch, in order,
// on `stream`; Auto weighs both.
void gemm(const GemmArgs& args, Stream stream = nullptr, const GemmOptions& options = {});

// Single-precision GEMM on device pointers, enqueued on `stream`; the same product as gemm() with F32
// operands and batch 1 (argument names in errors are sgemm's: "lda", not "args.a.ld").
//   layout: storage order of A, B and C (one for all three, as in cblas_sgemm).
//   op(A) is m x k, op(B) is k x n, C is m x n. m, n, k >= 0.
//   k == 0 or alpha == 0 gives C = beta * C without reading A or B (they may then be null);
//   m == 0 or n == 0 is a no-op. beta == 0 never reads C.
//   lda/ldb/ldc >= the number of elements in a stored row (row-major) or column (col-major), and >= 1,
//   and <= 2^31 - 1. Matrices may span more than 2^31 elements.
// Every argument is checked before anything is launched; a bad one throws tilegemm::Error naming it,
// and no output is touched.
void sgemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
           const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
           int64_t ldc, Stream stream = nullptr, const GemmOptions& options = {});

// The argument checks sgemm performs that need no device (sizes, leading dimensions, null pointers,
// overlap). Like the reference BLAS, alpha == 0 or k == 0 reads neither A nor B, so they may be null
// then. Throws tilegemm::Error; exposed for tools and tests.
void check_gemm_args(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                     const float* a, int64_t lda, const float* b, int64_t ldb, const float* c,
                     int64_t ldc);

// What sgemm would run for these arguments and why (the library never prints; the tools print this
// when TILEGEMM_LOG_CHOICE=1). The pointers are only looked at for their alignment.
struct GemmChoice {
  std::string config;  // the config's text form (GemmOptions::config), or the ladder level / "scale C"
  std::string family;  // the kernel family that runs it ("simt-tiled", "tf32x3-tiled", "gemv", "ladder", "wgmma",
                       // "wgmma-3xtf32", "wgmma-tf32", "skinny16"; empty for scale/empty)
  // "gemv", "split-k", "stream-k", "small-tile", "big-tile"; "ladder" for an explicit level;
  // "scale" for the quick return C = beta * C (k == 0 or alpha == 0); "empty" for m or n == 0.
  std::string kind;
  bool tuned = false;       // the config is the tuning database's winner (tilegemm/tune.hpp), not the model's
  double predicted_us = 0;  // the analytic model's time (0 when no model applies)
  std::string reason;       // the model's terms: waves, slices, compute/DRAM/L2 times
  std::vector<std::pair<std::string, double>> runners_up;  // the next best configs and their times
};
GemmChoice explain_choice(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                          const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                          const float* c, int64_t ldc, const GemmOptions& options = {});
GemmChoice explain_choice(const GemmArgs& args, const GemmOptions& options = {});

}  // namespace tilegemm
