// The operation model's part of a device's state (core/device_context.hpp holds one per device, made
// with the context): Auto's remembered choices and the config texts parsed for options.config. Kept
// behind a pointer so that the kernels' launch code, which includes device_context.hpp, does not
// recompile when the operation model changes.
#pragma once
#include <mutex>
#include <string>
#include <unordered_map>

#include "ops/choose.hpp"
#include "ops/config.hpp"

namespace tilegemm {
namespace ops {

// Config texts parsed before, to records of type T (bounded): an application that forces a config
// passes the same text on every call (parsing it was ~2 us of a ~7 us call, tilegemm overhead, H100
// host, 2026-11-25).
template <class T>
class ParsedTexts {
 public:
  // The record of `text`, parsed by `parse(text)` on a miss (which may throw: nothing is kept then).
  template <class Parse>
  T get(const std::string& text, const Parse& parse) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto it = parsed_.find(text);
      if (it != parsed_.end()) return it->second;
    }
    T record = parse(text);
    std::lock_guard<std::mutex> lock(mutex_);
    if (parsed_.size() >= kMaxEntries) parsed_.clear();
    parsed_.emplace(text, record);
    return record;
  }

 private:
  static constexpr size_t kMaxEntries = 64;
  std::mutex mutex_;
  std::unordered_map<std::string, T> parsed_;
};

struct ContextState {
  // Auto's choices per problem, forgotten when the tuning database changes.
  ChoiceCache choices;
  // GemmOptions::config texts (and explicit levels as ladder configs), and BsrOptions::config texts.
  ParsedTexts<Config> gemm_configs;
  ParsedTexts<Config> bsr_configs;
};

}  // namespace ops
}  // namespace tilegemm
