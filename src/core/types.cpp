#include <algorithm>
#include <cctype>

#include "tilegemm/error.hpp"
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
  const std::string v = lower(s);
  if (v == "auto" || v == "0") return Kernel::Auto;
  for (int level = 1; level <= kNumLadderLevels; ++level) {
    const Kernel k = static_cast<Kernel>(level);
    const std::string name = to_string(k);                  // e.g. "06-warp-tiled"
    if (v == name || v == std::to_string(level) || v == name.substr(0, 2) || v == name.substr(3))
      return k;
  }
  bad_value(what, s, "auto, a level 1-6, or a name such as 06-warp-tiled");
}

}  // namespace tilegemm
