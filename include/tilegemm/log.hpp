// Messages the library has for the application (a tuning database it could not read, an entry it
// ignored). The library never prints: without a callback they are dropped.
#pragma once
#include <functional>
#include <string>

namespace tilegemm {

enum class LogLevel { Warning, Info };

// Installs `callback` (replacing the previous one; an empty function removes it). It may be called
// from any thread that calls into the library, one call at a time.
using LogCallback = std::function<void(LogLevel level, const std::string& message)>;
void set_log_callback(LogCallback callback);

}  // namespace tilegemm
