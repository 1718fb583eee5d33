// An optional whose value keeps its memory when it is reset: a Decision decided into again and
// again (the request path keeps one per thread) writes its denial's message into the same
// string each time. The value type offers clear() (back to its default, memory kept).
#pragma once

#include <utility>

namespace gpua::engine {

template <typename T>
class KeptOptional {
 public:
  KeptOptional() = default;
  KeptOptional(const T& value) : value_(value), engaged_(true) {}  // NOLINT: as std::optional
  KeptOptional& operator=(const T& value) {
    value_ = value;
    engaged_ = true;
    return *this;
  }
  KeptOptional& operator=(T&& value) {
    value_ = std::move(value);
    engaged_ = true;
    return *this;
  }

  // A default value, engaged, in the kept memory.
  T& emplace() {
    value_.clear();
    engaged_ = true;
    return value_;
  }
  void reset() { engaged_ = false; }

  bool has_value() const { return engaged_; }
  explicit operator bool() const { return engaged_; }
  // As with std::optional, only while engaged.
  T& operator*() { return value_; }
  const T& operator*() const { return value_; }
  T* operator->() { return &value_; }
  const T* operator->() const { return &value_; }

 private:
  T value_{};
  bool engaged_ = false;
};

}  // namespace gpua::engine
