#include <algorithm>
#include <cctype>

#include "tilegemm/bsr_gpu.hpp"
#include "tilegemm/error.hpp"
#include "tilegemm/gemm.hpp"
#include "tilegemm/types.hpp"

namespace tilegemm {

const char* to_string(ErrorCode c) {
  switch (c) {
    case ErrorCode::InvalidArgument: return "invalid argument";
    case ErrorCode::NoDevice: return "no CUDA device";
    case ErrorCode::UnsupportedArch: return "unsupported architecture";
    case ErrorCode::CudaError: return "CUDA error";
    case ErrorCode::CublasError: return "cuBLAS error";
    case ErrorCode::CusparseError: return "cuSPARSE error";
    case ErrorCode::NvrtcError: return "NVRTC error";
    case ErrorCode::OutOfMemory: return "out of memory";
    case ErrorCode::Internal: return "internal error";
  }
  return "unknown error";
}

std::string to_string(Layout v) { return v == Layout::RowMajor ? "row" : "col"; }
const char* to_string(BiasKind b) {
  switch (b) {
    case BiasKind::None: return "none";
    case BiasKind::PerRow: return "row";
    case BiasKind::PerColumn: return "column";
  }
  return "?";
}
const char* to_string(Activation a) {
  switch (a) {
    case Activation::None: return "none";
    case Activation::Relu: return "relu";
    case Activation::GeluTanh: return "gelu-tanh";
    case Activation::GeluErf: return "gelu-erf";
    case Activation::Silu: return "silu";
  }
  return "?";
}
std::string to_string(Op v) { return v == Op::N ? "N" : "T"; }
std::string to_string(Raster v) {
  switch (v) {
    case Raster::RowMajor: return "rowmajor";
    case Raster::Grouped: return "grouped";
    case Raster::Hilbert: return "hilbert";
  }
  return "?";
}
std::string to_string(Kernel v) {
  switch (v) {
    case Kernel::Auto: return "auto";
    case Kernel::Naive: return "01-naive";
    case Kernel::Coalesced: return "02-coalesced";
    case Kernel::SharedTiled: return "03-shared-tiled";
    case Kernel::RegisterTiled: return "04-register-tiled";
    case Kernel::Vectorized: return "05-vectorized";
    case Kernel::WarpTiled: return "06-warp-tiled";
    case Kernel::MmaTf32x3: return "07-mma-tf32x3";
  }
  return "?";
}

namespace {
std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return s;
}
[[noreturn]] void bad_value(const char* what, const std::string& s, const char* expected) {
  throw Error(ErrorCode::InvalidArgument,
              std::string(what) + ": unknown value '" + s + "' (expected " + expected + ")");
}
// Numbered kernel enums (Kernel, BsrKernel): value 0 is "auto"; value i in [1, count] is accepted
// as the name to_string prints ("06-warp-tiled"), its number ("6"), the number's two digits
// ("06") or the name after them ("warp-tiled"), case-insensitive. False when nothing matches.
template <class E>
bool parse_numbered(const std::string& s, int count, E* out) {
  const std::string v = lower(s);
  if (v == "auto" || v == "0") {
    *out = static_cast<E>(0);
    return true;
  }
  for (int i = 1; i <= count; ++i) {
    const E e = static_cast<E>(i);
    const std::string name = to_string(e);
    if (v == name || v == std::to_string(i) || v == name.substr(0, 2) || v == name.substr(3)) {
      *out = e;
      return true;
    }
  }
  return false;
}
}  // namespace

Layout parse_layout(const std::string& s, const char* what) {
  const std::string v = lower(s);
  if (v == "row" || v == "rowmajor" || v == "row-major") return Layout::RowMajor;
  if (v == "col" || v == "colmajor" || v == "col-major" || v == "column") return Layout::ColMajor;
  bad_value(what, s, "row or col");
}
Op parse_op(const std::string& s, const char* what) {
  const std::string v = lower(s);
  if (v == "n") return Op::N;
  if (v == "t") return Op::T;
  bad_value(what, s, "N or T");
}
Raster parse_raster(const std::string& s, const char* what) {
  const std::string v = lower(s);
  if (v == "rowmajor" || v == "row") return Raster::RowMajor;
  if (v == "grouped") return Raster::Grouped;
  if (v == "hilbert") return Raster::Hilbert;
  bad_value(what, s, "rowmajor, grouped or hilbert");
}
Kernel parse_kernel(const std::string& s, const char* what) {
  Kernel k;
  if (parse_numbered(s, kNumLadderLevels, &k)) return k;
  bad_value(what, s, "auto, a level 1-7, or a name such as 06-warp-tiled");
}

std::string to_string(Math v) {
  switch (v) {
    case Math::Fp32: return "fp32";
    case Math::FfmaOnly: return "ffma";
    case Math::Tf32: return "tf32";
  }
  return "?";
}

BiasKind parse_bias_kind(const std::string& s, const char* what) {
  const std::string v = lower(s);
  for (BiasKind b : {BiasKind::None, BiasKind::PerRow, BiasKind::PerColumn})
    if (v == to_string(b)) return b;
  bad_value(what, s, "none, row or column");
}
Activation parse_activation(const std::string& s, const char* what) {
  const std::string v = lower(s);
  for (Activation a : {Activation::None, Activation::Relu, Activation::GeluTanh, Activation::GeluErf, Activation::Silu})
    if (v == to_string(a)) return a;
  bad_value(what, s, "none, relu, gelu-tanh, gelu-erf or silu");
}

Math parse_math(const std::string& s, const char* what) {
  const std::string v = lower(s);
  if (v == "fp32") return Math::Fp32;
  if (v == "ffma") return Math::FfmaOnly;
  if (v == "tf32") return Math::Tf32;
  bad_value(what, s, "fp32 (FFMA or 3xTF32 tensor cores), ffma (CUDA cores only) or tf32 (TF32 tensor cores)");
}

std::string to_string(DType v) {
  switch (v) {
    case DType::F32: return "f32";
    case DType::TF32: return "tf32";
    case DType::F16: return "f16";
    case DType::BF16: return "bf16";
  }
  return "dtype(" + std::to_string(static_cast<int>(v)) + ")";
}

DType parse_dtype(const std::string& s, const char* what) {
  const std::string v = lower(s);
  if (v == "f32" || v == "fp32" || v == "float") return DType::F32;
  if (v == "tf32") return DType::TF32;
  if (v == "f16" || v == "fp16" || v == "half") return DType::F16;
  if (v == "bf16") return DType::BF16;
  bad_value(what, s, "f32, tf32, f16 or bf16");
}

std::string to_string(BsrKernel v) {
  switch (v) {
    case BsrKernel::Auto: return "auto";
    case BsrKernel::Reduction: return "01-reduction";
    case BsrKernel::SmallM: return "02-small-m";
    case BsrKernel::Tiled: return "03-tiled";
    case BsrKernel::TiledTf32x3: return "04-tiled-tf32x3";
  }
  return "bsr-kernel(" + std::to_string(static_cast<int>(v)) + ")";
}

BsrKernel parse_bsr_kernel(const std::string& s, const char* what) {
  BsrKernel k;
  if (parse_numbered(s, kNumBsrKernels, &k)) return k;
  throw Error(ErrorCode::InvalidArgument, std::string(what) + ": unknown BSR kernel '" + s +
                                              "' (expected auto, 1-4, or reduction, small-m, tiled, tiled-tf32x3)");
}

}  // namespace tilegemm
