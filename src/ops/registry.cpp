#include "ops/registry.hpp"

#include <algorithm>

#include "core/config_text.hpp"
#include "tilegemm/error.hpp"

namespace tilegemm {
namespace ops {

// The built-in families, in Auto's enumeration order: one line each, naming the factory
// make_<name>_family() defined in src/ops/families/<name>/.
#define TILEGEMM_BUILT_IN_FAMILIES(X) \
  X(simt_tiled)                       \
  X(tf32x3_tiled)                     \
  X(gemv)                             \
  X(ladder)                           \
  X(bsr_small_m)                      \
  X(bsr_tiled)                        \
  X(bsr_tf32x3)                       \
  X(bsr_reduction)                    \
  X(wgmma)                            \
  X(wgmma_tf32x3)                     \
  X(wgmma_tf32)                       \
  X(skinny16)

#define TILEGEMM_DECLARE_FAMILY(name) std::unique_ptr<Family> make_##name##_family();
TILEGEMM_BUILT_IN_FAMILIES(TILEGEMM_DECLARE_FAMILY)
#undef TILEGEMM_DECLARE_FAMILY

Registry& registry() {
  static Registry* r = [] {
    auto* built = new Registry();  // never freed: configs point at its families until the process ends
#define TILEGEMM_ADD_FAMILY(name) built->add(make_##name##_family());
    TILEGEMM_BUILT_IN_FAMILIES(TILEGEMM_ADD_FAMILY)
#undef TILEGEMM_ADD_FAMILY
    return built;
  }();
  return *r;
}

void Registry::add(std::unique_ptr<Family> family) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& f : families_)
    if (f->name() == family->name())
      throw Error(ErrorCode::Internal, "kernel family '" + std::string(family->name()) + "' is registered twice");
  families_.push_back(std::move(family));
}

void Registry::remove(const Family* family) {
  std::lock_guard<std::mutex> lock(mutex_);
  families_.erase(std::remove_if(families_.begin(), families_.end(),
                                 [&](const std::unique_ptr<Family>& f) { return f.get() == family; }),
                  families_.end());
}

std::vector<const Family*> Registry::families() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<const Family*> out;
  for (const auto& f : families_) out.push_back(f.get());
  return out;
}

std::vector<const Family*> Registry::families(OpKind kind) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<const Family*> out;
  for (const auto& f : families_)
    if (f->serves(kind)) out.push_back(f.get());
  return out;
}

const Family* Registry::find(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& f : families_)
    if (f->name() == name) return f.get();
  return nullptr;
}

Config Registry::parse(const std::string& text, const char* what, OpKind kind) const {
  const std::string lowered = detail::lowered_text(text);
  std::string prefixes;
  for (const Family* f : families(kind)) {
    if (f->claims(lowered)) return f->parse(text, what);
    prefixes += (prefixes.empty() ? "" : ", ") + std::string(f->name());
  }
  const std::string prefix = lowered.substr(0, lowered.find(':'));
  throw Error(ErrorCode::InvalidArgument,
              std::string(what) + ": '" + text + "' is not a " + (kind == OpKind::Gemm ? "GEMM" : "BSR") +
                  " config (unknown family '" + prefix + "'; the " + to_string(kind) + " families: " + prefixes + ")");
}

std::string Config::text() const { return family_ ? family_->print(*this) : std::string(); }

bool Config::operator==(const Config& o) const {
  if (family_ != o.family_) return false;
  return family_ == nullptr || fields_ == o.fields_ || text() == o.text();
}

}  // namespace ops
}  // namespace tilegemm
