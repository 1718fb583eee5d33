// Publishing one kind of snapshot (usage, supply) from the ledgers: when to publish again, and
// what to tell the log. One mechanism for every snapshot the cluster client hands the engine.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

namespace gpua::cluster {

// Whether the watches behind a snapshot are synced and healthy; `reason` says why not.
struct Availability {
  bool available = false;
  std::string reason;
  bool operator==(const Availability&) const = default;
};

// The last publication of one snapshot kind.
class Publication {
 public:
  using Clock = std::chrono::steady_clock;

  // What changes a log line: the first publication, or a different availability or reason.
  bool changes(const Availability& a) const { return !published_ || a != last_; }
  // Due when the availability changed, or the ledgers changed and `minInterval` has passed
  // since the last publication (0: publish every change).
  bool due(const Availability& a, Clock::time_point now,
           Clock::duration minInterval = Clock::duration::zero()) const {
    return changes(a) || (dirty_ && now - at_ >= minInterval);
  }
  void markDirty() { dirty_ = true; }

  // Stores `snapshot` in `slot` under `slotMutex` and records the publication. Returns the log
  // line to write (level, message), empty when the availability did not change.
  template <class Snapshot>
  std::pair<std::string_view, std::string> publish(std::shared_ptr<const Snapshot> snapshot,
                                                   std::shared_ptr<const Snapshot>& slot,
                                                   std::mutex& slotMutex, Availability a,
                                                   Clock::time_point now,
                                                   std::string_view liveMessage,
                                                   std::string_view unavailablePrefix) {
    {
      std::lock_guard lock(slotMutex);
      slot = std::move(snapshot);
    }
    std::pair<std::string_view, std::string> line;
    if (changes(a))
      line = a.available ? std::pair<std::string_view, std::string>{"info", liveMessage}
                         : std::pair<std::string_view, std::string>{
                               "warn", std::string(unavailablePrefix) + a.reason};
    dirty_ = false;
    published_ = true;
    last_ = std::move(a);
    at_ = now;
    return line;
  }

 private:
  bool dirty_ = true;
  bool published_ = false;
  Availability last_;
  Clock::time_point at_{};
};

}  // namespace gpua::cluster
