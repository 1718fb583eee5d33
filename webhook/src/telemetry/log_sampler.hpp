// Keeps a fixed fraction of routine log lines, spread evenly: rate 0.25 keeps every 4th line,
// 1 keeps all, 0 keeps none. A counter rather than a random draw, so the kept share is exact
// over any window and a test can count it. Thread-safe: one relaxed atomic increment per call.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>

namespace gpua::telemetry {

class LogSampler {
 public:
  explicit LogSampler(double rate = 1.0) : rate_(std::isnan(rate) ? 1.0 : rate) {}

  double rate() const { return rate_; }

  // True for the lines to keep: the n-th call (from 1) is kept when floor(n * rate) grows.
  bool keep() {
    if (rate_ >= 1.0) return true;
    if (rate_ <= 0.0) return false;
    const auto n = static_cast<double>(seen_.fetch_add(1, std::memory_order_relaxed));
    return std::floor((n + 1) * rate_) > std::floor(n * rate_);
  }

 private:
  double rate_;
  std::atomic<uint64_t> seen_{0};
};

}  // namespace gpua::telemetry
