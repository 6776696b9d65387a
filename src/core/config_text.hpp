// Pieces of the configs' text forms (dense/config.cpp, sparse/config.cpp): "family:AxBxC:wAxB:s4".
#pragma once
#include <string>
#include <vector>

#include "tilegemm/error.hpp"

namespace tilegemm {
namespace detail {

inline std::vector<std::string> split_fields(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char ch : s) {
    if (ch == sep) out.emplace_back();
    else out.back() += ch;
  }
  return out;
}

// The text lowered and without blanks: the form a config text is recognised in (case- and
// blank-insensitive; Registry::parse hands it to the families' claims).
inline std::string lowered_text(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == ' ' || ch == '\t') continue;
    out += (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : ch;
  }
  return out;
}

// The text lowered (config text is case-insensitive) and split at ':'.
inline std::vector<std::string> lowered_fields(std::string text) {
  for (char& ch : text)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  return split_fields(text, ':');
}

// A parser's refusal: Error(InvalidArgument) "<what>: '<text>' is not a <kind> config (<why>; e.g.
// <examples>)".
[[noreturn]] inline void config_text_error(const char* what, const std::string& text, const char* kind,
                                           const std::string& why, const char* examples) {
  throw Error(ErrorCode::InvalidArgument,
              std::string(what) + ": '" + text + "' is not a " + kind + " config (" + why + "; e.g. " + examples + ")");
}

// A positive decimal number of at most 5 digits; -1 when `s` is not one.
inline int small_number(const std::string& s) {
  if (s.empty() || s.size() > 5 || s.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoi(s);
}

// "AxB" or "AxBxC" after `prefix`; false unless every number parses and is positive.
inline bool numbers(const std::string& field, const std::string& prefix, int count, int* out) {
  if (field.compare(0, prefix.size(), prefix) != 0) return false;
  const std::vector<std::string> parts = split_fields(field.substr(prefix.size()), 'x');
  if (static_cast<int>(parts.size()) != count) return false;
  for (int i = 0; i < count; ++i)
    if ((out[i] = small_number(parts[i])) <= 0) return false;
  return true;
}

}  // namespace detail
}  // namespace tilegemm
