// Interned names (namespaces, classes, pools, nodes, resources): each ledger files its records
// under small ids, so a record of 100,000 pods does not hold 100,000 copies of a few names.
// Ids are never reused or freed: the names a cluster uses are few and long-lived.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gpua::inventory {

class StringTable {
 public:
  uint32_t intern(std::string_view s) {
    auto it = ids_.find(std::string(s));
    if (it != ids_.end()) return it->second;
    const auto id = static_cast<uint32_t>(strings_.size());
    strings_.emplace_back(s);
    ids_.emplace(strings_.back(), id);
    return id;
  }
  const std::string& operator[](uint32_t id) const { return strings_[id]; }
  // The id of a name interned before, if it was.
  std::optional<uint32_t> find(const std::string& s) const {
    const auto it = ids_.find(s);
    return it == ids_.end() ? std::nullopt : std::optional<uint32_t>(it->second);
  }

 private:
  std::vector<std::string> strings_;
  std::unordered_map<std::string, uint32_t> ids_;
};

}  // namespace gpua::inventory
