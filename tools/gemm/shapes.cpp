// Shape parsing and the named presets.
#include "shapes.hpp"

#include <string>

#include "tilegemm/error.hpp"

namespace tilegemm {
namespace tools {

namespace {

[[noreturn]] void malformed(const char* what, const std::string& s, const char* expected) {
  throw Error(ErrorCode::InvalidArgument,
              std::string(what) + ": malformed value '" + s + "' (expected " + expected + ")");
}

// A decimal count in [0, kMaxDim]. Digits only (no sign, no spaces), so "-1" is malformed, and the
// range is checked on the digit string before conversion, so huge numbers cannot overflow.
int64_t parse_count(const std::string& tok, const char* what, const std::string& whole, const char* expected) {
  if (tok.empty() || tok.find_first_not_of("0123456789") != std::string::npos) malformed(what, whole, expected);
  const size_t first = tok.find_first_not_of('0');
  const std::string digits = first == std::string::npos ? "0" : tok.substr(first);
  if (digits.size() > 10 || std::stoll(digits) > kMaxDim)
    throw Error(ErrorCode::InvalidArgument, std::string(what) + ": value '" + whole + "' out of range (each number "
                                                "must be at most " + std::to_string(kMaxDim) + ")");
  return std::stoll(digits);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts(1);
  for (char ch : s) {
    if (ch == sep) parts.emplace_back();
    else parts.back() += ch;
  }
  return parts;
}

}  // namespace

Problem parse_shape(const std::string& s, const char* what) {
  const char* expected = "MxNxK with non-negative integers, e.g. 4096x4096x4096";
  const std::vector<std::string> parts = split(s, 'x');
  if (parts.size() != 3) malformed(what, s, expected);
  Problem p;
  p.m = parse_count(parts[0], what, s, expected);
  p.n = parse_count(parts[1], what, s, expected);
  p.k = parse_count(parts[2], what, s, expected);
  return p;
}

std::vector<int64_t> parse_sizes(const std::string& s, const char* what) {
  const char* expected = "LO:HI:xFACTOR or LO:HI:+STEP with 1 <= LO <= HI, e.g. 256:16384:x2";
  const std::vector<std::string> parts = split(s, ':');
  if (parts.size() != 3 || parts[2].size() < 2 || (parts[2][0] != 'x' && parts[2][0] != '+'))
    malformed(what, s, expected);
  const int64_t lo = parse_count(parts[0], what, s, expected);
  const int64_t hi = parse_count(parts[1], what, s, expected);
  const bool geometric = parts[2][0] == 'x';
  const int64_t step = parse_count(parts[2].substr(1), what, s, expected);
  if (lo < 1 || hi < lo || step < (geometric ? 2 : 1)) malformed(what, s, expected);
  std::vector<int64_t> out;
  // lo, hi, step <= kMaxDim < 2^31, so v * step and v + step stay far from int64 overflow.
  for (int64_t v = lo; v <= hi; v = geometric ? v * step : v + step) {
    if (out.size() == kMaxSweepSizes)
      throw Error(ErrorCode::InvalidArgument, std::string(what) + ": '" + s + "' gives more than " +
                                                  std::to_string(kMaxSweepSizes) + " sizes");
    out.push_back(v);
  }
  return out;
}

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> names = {"textbook", "tvm-post", "odd", "ladder", "small", "models", "batched"};
  return names;
}

std::vector<Problem> preset_shapes(const std::string& name) {
  std::vector<Problem> out;
  auto add = [&](int64_t m, int64_t n, int64_t k) {
    Problem p;
    p.m = m; p.n = n; p.k = k;
    out.push_back(p);
  };
  auto add_ops = [&](int64_t m, int64_t n, int64_t k, Op op_a, Op op_b) {  // ops fixed by the preset
    add(m, n, k);
    out.back().op_a = op_a;
    out.back().op_b = op_b;
    out.back().ops_fixed = true;
  };
  if (name == "textbook") {  // the textbook chapter's square sweep
    for (int64_t s = 256; s <= 16384; s *= 2) add(s, s, s);
  } else if (name == "tvm-post") {  // the TVM blog post's shape
    add(1024, 512, 2048);
  } else if (name == "odd") {  // non-multiples of any tile, degenerate and skinny products
    add(1000, 1000, 1000); add(4095, 4097, 4093); add(1, 4096, 4096);
    add(4096, 1, 4096); add(2048, 16, 4096); add(64, 64, 65536);
  } else if (name == "ladder") {  // the acceptance shapes of the FP32 ladder
    add(4096, 4096, 4096); add(8192, 8192, 8192); add(4095, 4097, 4093);
  } else if (name == "small") {
    add(7, 13, 17); add(127, 129, 131); add(1000, 1000, 1000);
  } else if (name == "models") {  // the products of real models (FP32, row-major NN unless noted)
    add(4096, 14336, 4096); add(4096, 4096, 14336); add(4096, 6144, 4096);  // Llama-3-8B MLP/attention
    add(1, 14336, 4096); add(1, 4096, 14336); add(8, 6144, 4096);           // decode, 1 and 8 tokens
    add(1024, 2304, 768); add(1024, 768, 3072);                              // GPT-2
    add(4096, 4096, 1024); add(4096, 1024, 4096);                            // BERT-large
    add(25088, 128, 1152); add(6272, 512, 4608);                             // ResNet-50 im2col
    add(512, 512, 65536); add(256, 1024, 131072);                            // weight gradients (K-heavy)
    add(65536, 64, 64); add(4096, 1, 14336);                                 // tall, GEMV
    add(2501, 3499, 1777);                                                   // odd, all three op pairs
    add_ops(2501, 3499, 1777, Op::N, Op::T);
    add_ops(2501, 3499, 1777, Op::T, Op::T);
  } else if (name == "batched") {  // strided batches, each beside one product of the same FLOPs
    auto add_batch = [&](int64_t batch, int64_t m, int64_t n, int64_t k) {
      add(m, n, k);
      out.back().batch = batch;
    };
    add_batch(16, 1024, 1024, 1024); add_batch(8, 4096, 4096, 128); add(4096, 4096, 1024);
    add_batch(64, 512, 512, 512); add(2048, 2048, 2048);
    // Attention of 32 heads of 128 over 2048 tokens: Q K^T (K stored as rows: NT), then P V.
    add_batch(32, 2048, 2048, 128); out.back().op_b = Op::T; out.back().ops_fixed = true;
    add_batch(32, 2048, 128, 2048);
  } else if (name == "seed-sparse" || name == "transformer-sparse") {  // sparse_options.hpp
    throw Error(ErrorCode::InvalidArgument, "--preset: '" + name + "' is a sparse preset: add --sparse");
  } else {
    throw Error(ErrorCode::InvalidArgument,
                "--preset: unknown preset '" + name + "' (expected " + join_alternatives(preset_names()) + ")");
  }
  return out;
}

std::pair<Op, Op> parse_trans(const std::string& s, const char* what) {
  if (s.size() != 2 || s.find_first_not_of("NnTt") != std::string::npos)
    throw Error(ErrorCode::InvalidArgument,
                std::string(what) + ": unknown value '" + s + "' (expected NN, NT, TN or TT)");
  return {parse_op(s.substr(0, 1), what), parse_op(s.substr(1, 1), what)};
}

}  // namespace tools
}  // namespace tilegemm
