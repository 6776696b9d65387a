// Turns a run-time flag into a template argument (launchers choosing a kernel instantiation).
#pragma once
#include <type_traits>

namespace tilegemm {
namespace detail {

// Calls f(std::bool_constant<v>{}).
template <class F>
void with_bool(bool v, F&& f) {
  if (v) f(std::true_type{});
  else f(std::false_type{});
}

}  // namespace detail
}  // namespace tilegemm
