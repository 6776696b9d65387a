// The library's side of tilegemm/log.hpp: hands a message to the application's callback, if any.
#pragma once
#include <string>

#include "tilegemm/log.hpp"

namespace tilegemm {
namespace detail {

void log(LogLevel level, const std::string& message);
inline void log_warning(const std::string& message) { log(LogLevel::Warning, message); }

}  // namespace detail
}  // namespace tilegemm
