// A config: the kernel family that runs it and the family's own record of named fields (its tile
// shape, splits, ...), never an index into a table. Its text form ("tiled:128x256x32:...",
// "gemv-cols:s4:k8", "ladder:06-warp-tiled") is the family's print(); Registry::parse dispatches a
// text to the family that claims its prefix. Copies share the record (a pointer copy: Auto's cached
// choice is copied on every call).
#pragma once
#include <memory>
#include <string>
#include <utility>

namespace tilegemm {
namespace ops {

class Family;

class Config {
 public:
  Config() = default;
  template <class Fields>
  Config(const Family& family, Fields fields)
      : family_(&family), fields_(std::make_shared<const Holder<Fields>>(std::move(fields))) {}

  const Family* family() const { return family_; }
  bool empty() const { return family_ == nullptr; }
  // The record the family stored; only the family that made the config asks for it, with its type.
  template <class Fields>
  const Fields& fields() const {
    return static_cast<const Holder<Fields>&>(*fields_).value;
  }
  std::string text() const;  // family()->print(*this); "" for an empty config

  // Same family and same text.
  bool operator==(const Config& o) const;
  bool operator!=(const Config& o) const { return !(*this == o); }

 private:
  struct Base {
    virtual ~Base() = default;
  };
  template <class T>
  struct Holder : Base {
    explicit Holder(T v) : value(std::move(v)) {}
    T value;
  };
  const Family* family_ = nullptr;
  std::shared_ptr<const Base> fields_;
};

}  // namespace ops
}  // namespace tilegemm
