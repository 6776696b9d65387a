// Shape parsing and the named presets.
#include <cstdlib>
#include <string>

#include "commands.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace tools {

namespace {
[[noreturn]] void bad(const char* what, const std::string& s, const char* expected) {
  throw Error(ErrorCode::InvalidArgument, std::string(what) + ": malformed value '" + s + "' (expected " + expected + ")");
}
int64_t parse_count(const std::string& tok, const char* what, const std::string& whole, const char* expected) {
  if (tok.empty() || tok.find_first_not_of("0123456789") != std::string::npos || tok.size() > 10)
    bad(what, whole, expected);
  return std::stoll(tok);
}
}  // namespace

Problem parse_shape(const std::string& s, const char* what) {
  const char* expected = "MxNxK with non-negative integers, e.g. 4096x4096x4096";
  Problem p;
  size_t x1 = s.find('x'), x2 = x1 == std::string::npos ? x1 : s.find('x', x1 + 1);
  if (x1 == std::string::npos || x2 == std::string::npos || s.find('x', x2 + 1) != std::string::npos)
    bad(what, s, expected);
  p.m = parse_count(s.substr(0, x1), what, s, expected);
  p.n = parse_count(s.substr(x1 + 1, x2 - x1 - 1), what, s, expected);
  p.k = parse_count(s.substr(x2 + 1), what, s, expected);
  return p;
}

std::vector<int64_t> parse_sizes(const std::string& s, const char* what) {
  const char* expected = "LO:HI:xFACTOR or LO:HI:+STEP, e.g. 256:16384:x2";
  const size_t c1 = s.find(':'), c2 = c1 == std::string::npos ? c1 : s.find(':', c1 + 1);
  if (c1 == std::string::npos || c2 == std::string::npos || c2 + 2 > s.size()) bad(what, s, expected);
  const int64_t lo = parse_count(s.substr(0, c1), what, s, expected);
  const int64_t hi = parse_count(s.substr(c1 + 1, c2 - c1 - 1), what, s, expected);
  const char kind = s[c2 + 1];
  const int64_t step = parse_count(s.substr(c2 + 2), what, s, expected);
  if (lo < 1 || hi < lo || (kind == 'x' && step < 2) || (kind == '+' && step < 1) || (kind != 'x' && kind != '+'))
    bad(what, s, expected);
  std::vector<int64_t> out;
  for (int64_t v = lo; v <= hi; v = kind == 'x' ? v * step : v + step) out.push_back(v);
  return out;
}

std::vector<Problem> preset_shapes(const std::string& name) {
  std::vector<Problem> out;
  auto add = [&](int64_t m, int64_t n, int64_t k) {
    Problem p;
    p.m = m; p.n = n; p.k = k;
    out.push_back(p);
  };
  if (name == "textbook") {
    for (int64_t s = 256; s <= 16384; s *= 2) add(s, s, s);
  } else if (name == "tvm-post") {
    add(1024, 512, 2048);
  } else if (name == "odd") {
    add(1000, 1000, 1000); add(4095, 4097, 4093); add(1, 4096, 4096);
    add(4096, 1, 4096); add(2048, 16, 4096); add(64, 64, 65536);
  } else if (name == "ladder") {  // the acceptance shapes of the FP32 ladder
    add(4096, 4096, 4096); add(8192, 8192, 8192); add(4095, 4097, 4093);
  } else if (name == "small") {
    add(7, 13, 17); add(127, 129, 131); add(1000, 1000, 1000);
  } else {
    throw Error(ErrorCode::InvalidArgument,
                "--preset: unknown preset '" + name + "' (expected textbook, tvm-post, odd, ladder or small)");
  }
  return out;
}

}  // namespace tools
}  // namespace tilegemm
