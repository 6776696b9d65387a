// The kernel families the library knows, in Auto's enumeration order (ties in the estimate go to the
// family registered first). The built-in families are added on first use by registry.cpp, one line
// each; tests add a test-only family through the same add().
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "ops/config.hpp"
#include "ops/family.hpp"
#include "ops/problem.hpp"

namespace tilegemm {
namespace ops {

class Registry {
 public:
  // Appends `family`; its name must not be taken (Error(Internal) otherwise).
  void add(std::unique_ptr<Family> family);
  // Removes and destroys a family added before (configs of it must no longer be used).
  void remove(const Family* family);
  std::vector<const Family*> families() const;
  std::vector<const Family*> families(OpKind kind) const;
  const Family* find(std::string_view name) const;  // nullptr when unknown
  // The config `text` names, parsed by the family of `kind` that claims it. Throws
  // Error(InvalidArgument) starting with `what`: "<what>: '<text>' is not a GEMM config (unknown
  // family ...)" when no family claims it, else the family's own message.
  Config parse(const std::string& text, const char* what, OpKind kind) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Family>> families_;
};

// The process's registry, built-in families added on the first call.
Registry& registry();

// Adds a family for the life of the object (tests).
class ScopedFamily {
 public:
  explicit ScopedFamily(std::unique_ptr<Family> family) : family_(family.get()) { registry().add(std::move(family)); }
  ~ScopedFamily() { registry().remove(family_); }
  ScopedFamily(const ScopedFamily&) = delete;
  ScopedFamily& operator=(const ScopedFamily&) = delete;
  const Family* get() const { return family_; }

 private:
  const Family* family_;
};

}  // namespace ops
}  // namespace tilegemm
