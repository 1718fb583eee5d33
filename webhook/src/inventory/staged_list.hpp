// The staging every full list needs: a list arrives in pages (limit/continue), and a half-read
// or failed list must never show. Pages go into a staging copy that replaces the live contents
// on commit; watch events change the live contents meanwhile. One mechanism for every ledger
// and resource (pods and namespaces in the usage ledger, nodes and pods in the supply ledger).
#pragma once

#include <utility>

namespace gpua::inventory {

// Contents: any type with clear() (a map, or a struct of maps that a list replaces together).
template <class Contents>
class StagedList {
 public:
  Contents& live() { return live_; }
  const Contents& live() const { return live_; }

  // A list begins: the staging copy starts empty.
  void begin() {
    staged_.clear();
    staging_ = true;
  }
  // Where the pages of the list in progress go.
  Contents& staged() { return staged_; }
  bool staging() const { return staging_; }

  // The list completed: its contents replace the live ones. False when no list was begun
  // (a commit without a begin changes nothing).
  bool commit() {
    if (!staging_) return false;
    staging_ = false;
    live_ = std::move(staged_);
    staged_.clear();
    return true;
  }

 private:
  Contents live_;
  Contents staged_;
  bool staging_ = false;
};

}  // namespace gpua::inventory
