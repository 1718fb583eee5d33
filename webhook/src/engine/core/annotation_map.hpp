// A decision's audit annotations: a few keys, each set once or twice per decision, read in key
// order (the response lists them so, as the std::map this replaces did). The entries live in a
// RecycledList kept in key order, so a decision made into a kept Decision sets them without
// allocating once warm.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "engine/core/recycled_list.hpp"

namespace gpua::engine {

class AnnotationMap {
 public:
  struct Entry {
    std::string first;   // the key (pair-like: `for (const auto& [key, value] : map)`)
    std::string second;  // the value

    void clear() {
      first.clear();
      second.clear();
    }
    // What RecycledList::clear calls: one huge value does not pin its memory.
    void releaseIfLarge(std::size_t bytes) {
      releaseStringIfLarge(first, bytes);
      releaseStringIfLarge(second, bytes);
    }
    friend bool operator==(const Entry&, const Entry&) = default;
  };
  using const_iterator = RecycledList<Entry>::const_iterator;

  AnnotationMap() = default;
  // Later duplicates overwrite earlier ones, as assigning them one by one does.
  AnnotationMap(std::initializer_list<std::pair<std::string_view, std::string_view>> items) {
    for (const auto& [key, value] : items) (*this)[key].assign(value);
  }

  // The value of `key`, added empty (in key order) when absent.
  std::string& operator[](std::string_view key) {
    const auto at = lowerBound(key);
    const auto index = at - entries_.begin();
    if (at != entries_.end() && at->first == key) return at->second;
    Entry& added = entries_.next();
    added.first.assign(key);
    // The new entry is last: rotate it into its place (strings move, nothing is copied).
    std::rotate(entries_.begin() + index, entries_.end() - 1, entries_.end());
    return entries_[static_cast<std::size_t>(index)].second;
  }

  const_iterator find(std::string_view key) const {
    const auto at = lowerBound(key);
    return at != entries_.end() && at->first == key ? at : entries_.end();
  }
  const std::string& at(std::string_view key) const {
    const auto it = find(key);
    if (it == end()) throw std::out_of_range("no audit annotation " + std::string(key));
    return it->second;
  }
  bool contains(std::string_view key) const { return find(key) != end(); }

  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  void clear() { entries_.clear(); }

  friend bool operator==(const AnnotationMap& a, const AnnotationMap& b) {
    return a.entries_ == b.entries_;
  }

 private:
  template <typename Self>
  static auto lowerBoundIn(Self& self, std::string_view key) {
    return std::lower_bound(
        self.entries_.begin(), self.entries_.end(), key,
        [](const Entry& e, std::string_view k) { return std::string_view(e.first) < k; });
  }
  RecycledList<Entry>::iterator lowerBound(std::string_view key) {
    return lowerBoundIn(*this, key);
  }
  const_iterator lowerBound(std::string_view key) const { return lowerBoundIn(*this, key); }

  RecycledList<Entry> entries_;
};

}  // namespace gpua::engine
