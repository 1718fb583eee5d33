#include "engine/core/annotation_map.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gpua::engine {
namespace {

std::vector<std::pair<std::string, std::string>> entries(const AnnotationMap& m) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, value] : m) out.emplace_back(key, value);
  return out;
}

std::vector<std::pair<std::string, std::string>> entries(
    const std::map<std::string, std::string>& m) {
  return {m.begin(), m.end()};
}

// The map it replaces is the reference: the same operations give the same entries in the same
// order (the response writes them in that order).
TEST(AnnotationMap, AgreesWithStdMapOverRandomAssignmentsAndClears) {
  std::mt19937 random(7);
  const std::vector<std::string> keys = {
      "class", "mode", "violation", "violation-rules", "would-change", "a", "z", "m", ""};
  AnnotationMap kept;
  for (int round = 0; round < 200; ++round) {
    std::map<std::string, std::string> want;
    kept.clear();
    const int n = static_cast<int>(random() % 12);
    for (int i = 0; i < n; ++i) {
      const std::string& key = keys[random() % keys.size()];
      const std::string value = "v" + std::to_string(random() % 100);
      want[key] = value;
      kept[key] = value;
    }
    ASSERT_EQ(entries(kept), entries(want)) << "round " << round;
    ASSERT_EQ(kept.size(), want.size());
    for (const auto& key : keys) {
      ASSERT_EQ(kept.contains(key), want.contains(key)) << key;
      if (want.contains(key)) {
        ASSERT_EQ(kept.at(key), want.at(key)) << key;
      }
    }
  }
}

TEST(AnnotationMap, AtOfAnAbsentKeyThrowsAndFindSaysEnd) {
  const AnnotationMap m{{"class", "training"}};
  EXPECT_EQ(m.at("class"), "training");
  EXPECT_THROW((void)m.at("mode"), std::out_of_range);
  EXPECT_EQ(m.find("mode"), m.end());
  EXPECT_NE(m.find("class"), m.end());
}

TEST(AnnotationMap, ALaterDuplicateInTheListWins) {
  const AnnotationMap m{{"k", "first"}, {"k", "second"}};
  EXPECT_EQ(m.size(), 1u);
  EXPECT_EQ(m.at("k"), "second");
}

TEST(AnnotationMap, ClearKeepsTheEntriesMemoryForTheNextUse) {
  AnnotationMap m;
  m["violation"] = std::string(200, 'x');
  const char* memory = m.at("violation").data();
  m.clear();
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.find("violation"), m.end());
  std::string& again = m["violation"];
  EXPECT_TRUE(again.empty());
  EXPECT_EQ(again.data(), memory);
}

}  // namespace
}  // namespace gpua::engine
