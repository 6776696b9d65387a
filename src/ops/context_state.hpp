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
#include "sparse/config.hpp"

namespace tilegemm {
namespace ops {

struct ContextState {
  // Auto's choices per problem, forgotten when the tuning database changes.
  ChoiceCache choices;
  // Config texts of GemmOptions::config (and explicit levels) parsed before: an application that
  // forces a config passes the same text on every call (parsing it was ~2 us of a ~7 us call,
  // tilegemm overhead, H100 host, 2026-11-25). Bounded.
  std::mutex parsed_mutex;
  std::unordered_map<std::string, Config> parsed_configs;
  // The same for BsrOptions::config (the BSR products are not on the operation model yet).
  std::unordered_map<std::string, detail::BsrConfig> parsed_bsr_configs;
};

}  // namespace ops
}  // namespace tilegemm
