// An immutable value shared between threads and replaced whole: readers take a shared_ptr copy
// and keep a consistent snapshot for as long as they need it, however often it is replaced.
// Used for the policy in force (a request never sees a half-loaded policy).
#pragma once

#include <memory>
#include <mutex>

namespace gpua::server {

template <class T>
class Snapshot {
 public:
  explicit Snapshot(std::shared_ptr<const T> initial = nullptr) : value_(std::move(initial)) {}

  std::shared_ptr<const T> get() const {
    std::lock_guard lock(mutex_);
    return value_;
  }
  void set(std::shared_ptr<const T> next) {
    std::lock_guard lock(mutex_);
    value_ = std::move(next);
  }

 private:
  // A mutex around a pointer copy: simpler than std::atomic<std::shared_ptr> and uncontended
  // in practice (held for two reference-count operations).
  mutable std::mutex mutex_;
  std::shared_ptr<const T> value_;
};

}  // namespace gpua::server
