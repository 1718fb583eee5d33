#include "kube/json.hpp"

#include <gtest/gtest.h>

namespace gpua::kube::json {
namespace {

rapidjson::Document parsed(const char* text) {
  rapidjson::Document d;
  d.Parse(text);
  return d;
}

TEST(KubeJson, MistypedOrMissingFieldsReadAsAbsent) {
  const auto d = parsed(R"({"metadata":{"name":"x","labels":[]},"spec":7})");
  EXPECT_EQ(path(d, "metadata", "name"), "x");
  EXPECT_EQ(path(d, "spec", "nodeName"), "");
  EXPECT_EQ(member(d, "status"), nullptr);
  EXPECT_EQ(objectMember(&d, "spec"), nullptr);
  EXPECT_EQ(arrayMember(member(d, "metadata"), "labels")->Size(), 0u);
  EXPECT_EQ(stringMember(nullptr, "a"), "");
  EXPECT_TRUE(labelsOf(d).empty());
}

TEST(KubeJson, LabelsOfKeepsStringValuesAndTheFirstOfDuplicates) {
  const auto d = parsed(R"({"metadata":{"labels":{"a":"1","n":2,"a":"3","b":""}}})");
  const Labels labels = labelsOf(d);
  EXPECT_EQ(labels, (Labels{{"a", "1"}, {"b", ""}}));
}

}  // namespace
}  // namespace gpua::kube::json
