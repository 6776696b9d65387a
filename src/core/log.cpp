#include "core/log.hpp"

#include <mutex>
#include <utility>

namespace tilegemm {

namespace {
std::mutex g_log_mutex;
LogCallback& callback_slot() {
  static auto* slot = new LogCallback();  // never destroyed: a message may come during static teardown
  return *slot;
}
}  // namespace

void set_log_callback(LogCallback callback) {
  std::lock_guard<std::mutex> lock(g_log_mutex);
  callback_slot() = std::move(callback);
}

namespace detail {

void log(LogLevel level, const std::string& message) {
  std::lock_guard<std::mutex> lock(g_log_mutex);
  if (callback_slot()) callback_slot()(level, message);
}

}  // namespace detail
}  // namespace tilegemm
