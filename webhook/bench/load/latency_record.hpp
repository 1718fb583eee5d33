// Every latency of a run, kept exactly (a 10 s run at 30,000 requests/s is 2.4 MB), so the
// percentiles are exact rather than bucketed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gpua::load {

class LatencyRecord {
 public:
  void add(int64_t nanos) { samples_.push_back(nanos < 0 ? 0 : nanos); }
  std::size_t count() const { return samples_.size(); }

  // The q-quantile (0..1) in nanoseconds; 0 when empty. Sorts once, lazily.
  int64_t quantile(double q) {
    if (samples_.empty()) return 0;
    if (!sorted_) std::sort(samples_.begin(), samples_.end()), sorted_ = true;
    const auto last = static_cast<double>(samples_.size() - 1);
    return samples_[static_cast<std::size_t>(std::clamp(q, 0.0, 1.0) * last + 0.5)];
  }
  int64_t max() { return quantile(1.0); }

 private:
  std::vector<int64_t> samples_;
  bool sorted_ = false;
};

}  // namespace gpua::load
