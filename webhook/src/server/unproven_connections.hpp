// Connections that have not sent the header of a first request yet, oldest first, so that at a
// connection cap they make room for new ones instead of locking out the apiserver and the
// kubelet (connections that never send a byte were enough to refuse every new client).
//
// Two kinds are kept apart because they cost differently: a bare socket (no byte received, no
// TLS state: about a kilobyte) may be evicted at any time; a connection that has begun its TLS
// handshake holds tens of kilobytes and is evicted only once it has had `talkingGrace` to
// finish, so a client that completes its handshake promptly always gets in, and a flood of
// handshakes is not turned into a churn of TLS state. Not thread-safe: the owner locks.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>

namespace gpua::server {

template <class Connection>
class UnprovenConnections {
 public:
  using Clock = std::chrono::steady_clock;

  // Registers a new bare connection; returns its key (never 0).
  uint64_t add(std::weak_ptr<Connection> c, const std::string& source, Clock::time_point now) {
    const uint64_t key = next_++;
    bare_.add(key, {std::move(c), source, now});
    return key;
  }

  // The connection's first bytes arrived: it now holds TLS state.
  void talk(uint64_t key) {
    if (auto entry = bare_.remove(key)) talking_.add(key, std::move(*entry));
  }

  // Proven (a request header arrived) or closed.
  void drop(uint64_t key) {
    if (!bare_.remove(key)) talking_.remove(key);
  }

  // The oldest evictable connection (of `source`, when given), taken off the lists; null when
  // there is none.
  std::shared_ptr<Connection> takeOldest(const std::string* source, Clock::time_point now,
                                         Clock::duration talkingGrace) {
    for (;;) {
      const uint64_t b = bare_.oldest(source);
      uint64_t t = talking_.oldest(source);
      if (t != 0 && talking_.acceptedAt(t) + talkingGrace > now) t = 0;
      if (b == 0 && t == 0) return nullptr;
      const bool fromBare = t == 0 || (b != 0 && b < t);
      auto entry = (fromBare ? bare_ : talking_).remove(fromBare ? b : t);
      if (auto c = entry->connection.lock()) return c;  // else already closing: next one
    }
  }

  std::size_t size() const { return bare_.size() + talking_.size(); }

 private:
  struct Entry {
    std::weak_ptr<Connection> connection;
    std::string source;
    Clock::time_point acceptedAt;
  };

  // Entries by key (accept order), and the keys of each source.
  class Pool {
   public:
    void add(uint64_t key, Entry e) {
      bySource_[e.source].insert(key);
      entries_.emplace(key, std::move(e));
    }
    std::unique_ptr<Entry> remove(uint64_t key) {
      const auto it = entries_.find(key);
      if (it == entries_.end()) return nullptr;
      const auto s = bySource_.find(it->second.source);
      s->second.erase(key);
      if (s->second.empty()) bySource_.erase(s);
      auto out = std::make_unique<Entry>(std::move(it->second));
      entries_.erase(it);
      return out;
    }
    uint64_t oldest(const std::string* source) const {
      if (source == nullptr) return entries_.empty() ? 0 : entries_.begin()->first;
      const auto s = bySource_.find(*source);
      return s == bySource_.end() ? 0 : *s->second.begin();
    }
    Clock::time_point acceptedAt(uint64_t key) const { return entries_.at(key).acceptedAt; }
    std::size_t size() const { return entries_.size(); }

   private:
    std::map<uint64_t, Entry> entries_;
    std::unordered_map<std::string, std::set<uint64_t>> bySource_;
  };

  Pool bare_, talking_;
  uint64_t next_ = 1;
};

}  // namespace gpua::server
