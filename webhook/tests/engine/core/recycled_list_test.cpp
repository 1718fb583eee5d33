#include "engine/core/recycled_list.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/core/decision.hpp"

namespace gpua::engine {
namespace {

using Texts = RecycledList<std::string>;

std::vector<std::string> visible(const Texts& list) {
  return {list.begin(), list.end()};
}

TEST(RecycledList, NextHandsOutAnEmptyElementThatKeepsItsMemory) {
  Texts list;
  list.next() = std::string(100, 'a');
  const char* memory = list[0].data();
  list.clear();
  EXPECT_TRUE(list.empty());
  std::string& again = list.next();
  EXPECT_TRUE(again.empty());
  EXPECT_GE(again.capacity(), 100u);
  EXPECT_EQ(again.data(), memory);
  EXPECT_EQ(list.size(), 1u);
}

TEST(RecycledList, SparesAreNeverVisible) {
  Texts list{"a", "b", "c"};
  list.clear();
  list.push_back("x");
  EXPECT_EQ(visible(list), std::vector<std::string>{"x"});
  EXPECT_EQ(list, std::vector<std::string>{"x"});
  const Texts copy = list;  // copies what is visible only
  EXPECT_EQ(visible(copy), std::vector<std::string>{"x"});
  list.resize(0);
  EXPECT_TRUE(list.empty());
  EXPECT_EQ(std::span<const std::string>(list).size(), 0u);
}

TEST(RecycledList, MovedFromListIsEmptyAndUsable) {
  Texts a{"one", "two"};
  Texts b{"old"};
  b = std::move(a);
  EXPECT_EQ(visible(b), (std::vector<std::string>{"one", "two"}));
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): the contract under test
  a.push_back("three");
  EXPECT_EQ(visible(a), std::vector<std::string>{"three"});
}

TEST(RecycledList, EraseIfKeepsTheOrderOfTheRest) {
  Texts list{"keep1", "drop", "keep2", "drop", "keep3"};
  list.eraseIf([](const std::string& s) { return s == "drop"; });
  EXPECT_EQ(visible(list), (std::vector<std::string>{"keep1", "keep2", "keep3"}));
}

TEST(RecycledList, ClearLetsGoOfAHugeRequestsMemory) {
  Texts list;
  for (int i = 0; i < 200; ++i) list.next().append(20, 'x');
  list.next() = std::string(1u << 20, 'y');
  list.clear();
  std::size_t kept = 0, largest = 0;
  for (int i = 0; i < 300; ++i) {
    std::string& s = list.next();
    if (s.capacity() > 15) ++kept;
    largest = std::max(largest, s.capacity());
  }
  EXPECT_LE(largest, 64u << 10);        // the megabyte string was released
  EXPECT_EQ(kept, Texts::kKeptSpares);  // the first 64 of the 200 kept their memory
}

// A Decision cleared after a full decision is a default one, field by field: the request path
// decides into one Decision per thread and nothing of the last decision may remain.
TEST(DecisionClear, IsADefaultDecisionAgain) {
  Decision d;
  d.outcome = Decision::Outcome::Classified;
  d.subject = "pod \"trainer-0\"";
  d.className = "training";
  d.reason = "label";
  d.mode = policy::Mode::Warn;
  d.patch.push_back({PatchOp::Kind::Replace, "/spec/a", "1"});
  d.changes.push_back("toleration x");
  d.warnings.push_back("w");
  d.violations.push_back({"rule", "message", true, true});
  d.denial = Denial{403, "Forbidden", "no"};
  d.auditAnnotations["class"] = "training";
  d.gpuEquivalents = 2;
  d.quotaUnchecked = true;
  d.quotaCharge = QuotaCharge{{"q"}, {{"nvidia.com/gpu", 2}}, "ns", "uid", "name"};
  d.priorityClass = "gpu-training";
  d.clear();
  const Decision fresh;
  EXPECT_EQ(d.outcome, fresh.outcome);
  EXPECT_EQ(d.subject, fresh.subject);
  EXPECT_EQ(d.className, fresh.className);
  EXPECT_EQ(d.reason, fresh.reason);
  EXPECT_EQ(d.mode, fresh.mode);
  EXPECT_TRUE(d.patch.empty());
  EXPECT_TRUE(d.changes.empty());
  EXPECT_TRUE(d.warnings.empty());
  EXPECT_TRUE(d.violations.empty());
  EXPECT_FALSE(d.denial.has_value());
  EXPECT_TRUE(d.auditAnnotations.empty());
  EXPECT_EQ(d.gpuEquivalents, fresh.gpuEquivalents);
  EXPECT_EQ(d.quotaUnchecked, fresh.quotaUnchecked);
  EXPECT_FALSE(d.quotaCharge.has_value());
  EXPECT_EQ(d.priorityClass, fresh.priorityClass);
  // A patch op handed out again is empty and an Add, whatever it was.
  const PatchOp& op = d.patch.next();
  EXPECT_EQ(op, PatchOp{});
}

}  // namespace
}  // namespace gpua::engine
