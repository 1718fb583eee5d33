#include "engine/mutate/json_patch_apply.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using testing::parse;
using testing::toJson;
using K = PatchOp::Kind;

std::string applied(const std::string& doc, const Patch& patch) {
  rapidjson::Document d = parse(doc);
  auto error = applyPatch(d, patch);
  return error ? "ERROR: " + *error : toJson(d);
}

TEST(ApplyPatch, AddsMemberToExistingObject) {
  EXPECT_EQ(applied(R"({"a":{}})", {{K::Add, "/a/b", "1"}}), R"({"a":{"b":1}})");
}

TEST(ApplyPatch, AddToMissingParentFails) {
  const std::string r = applied(R"({"a":{}})", {{K::Add, "/a/x/b", "1"}});
  EXPECT_EQ(r.rfind("ERROR: op 0 (add /a/x/b)", 0), 0u) << r;
}

TEST(ApplyPatch, AddOnExistingMemberReplacesIt) {
  EXPECT_EQ(applied(R"({"a":1})", {{K::Add, "/a", "2"}}), R"({"a":2})");
}

TEST(ApplyPatch, RemoveAndReplaceOfMissingMemberFail) {
  EXPECT_NE(applied(R"({"a":1})", {{K::Remove, "/b", ""}}).find("member does not exist"),
            std::string::npos);
  EXPECT_NE(applied(R"({"a":1})", {{K::Replace, "/b", "1"}}).find("member does not exist"),
            std::string::npos);
}

TEST(ApplyPatch, RemoveAndReplaceExistingMembers) {
  EXPECT_EQ(applied(R"({"a":1,"b":2})", {{K::Remove, "/a", ""}, {K::Replace, "/b", "3"}}),
            R"({"b":3})");
}

TEST(ApplyPatch, DashAppendsAndIndexInserts) {
  EXPECT_EQ(applied(R"({"l":[1,2]})", {{K::Add, "/l/-", "3"}}), R"({"l":[1,2,3]})");
  EXPECT_EQ(applied(R"({"l":[1,2]})", {{K::Add, "/l/0", "0"}}), R"({"l":[0,1,2]})");
  EXPECT_EQ(applied(R"({"l":[1,2]})", {{K::Add, "/l/2", "3"}}), R"({"l":[1,2,3]})");
  EXPECT_NE(applied(R"({"l":[1,2]})", {{K::Add, "/l/3", "3"}}).find("out of range"),
            std::string::npos);
}

TEST(ApplyPatch, ArrayRemoveReplaceAndBadIndexes) {
  EXPECT_EQ(applied(R"({"l":[1,2,3]})", {{K::Remove, "/l/1", ""}}), R"({"l":[1,3]})");
  EXPECT_EQ(applied(R"({"l":[1,2,3]})", {{K::Replace, "/l/2", "9"}}), R"({"l":[1,2,9]})");
  EXPECT_NE(applied(R"({"l":[1]})", {{K::Remove, "/l/1", ""}}).find("ERROR"), std::string::npos);
  EXPECT_NE(applied(R"({"l":[1,2]})", {{K::Remove, "/l/01", ""}}).find("ERROR"), std::string::npos);
  EXPECT_NE(applied(R"({"l":[1]})", {{K::Remove, "/l/-", ""}}).find("ERROR"), std::string::npos);
}

TEST(ApplyPatch, UnescapesTokens) {
  EXPECT_EQ(applied(R"({"r":{"nvidia.com/gpu":1,"a~b":2}})",
                    {{K::Remove, "/r/nvidia.com~1gpu", ""}, {K::Replace, "/r/a~0b", "3"}}),
            R"({"r":{"a~b":3}})");
  EXPECT_NE(applied(R"({"a":1})", {{K::Remove, "/a~2", ""}}).find("malformed"), std::string::npos);
  EXPECT_NE(applied(R"({"a":1})", {{K::Remove, "a", ""}}).find("malformed"), std::string::npos);
}

TEST(ApplyPatch, OpsApplyInOrder) {
  // The second op only works because the first created its parent.
  EXPECT_EQ(
      applied(R"({})", {{K::Add, "/a", "{}"}, {K::Add, "/a/b", "[]"}, {K::Add, "/a/b/-", "1"}}),
      R"({"a":{"b":[1]}})");
  const std::string r = applied(R"({})", {{K::Add, "/a/b", "1"}, {K::Add, "/a", "{}"}});
  EXPECT_EQ(r.rfind("ERROR: op 0", 0), 0u) << r;
}

TEST(ApplyPatch, RejectsInvalidValueAndScalarParent) {
  EXPECT_NE(applied(R"({"a":1})", {{K::Add, "/b", "{"}}).find("not valid JSON"), std::string::npos);
  EXPECT_NE(applied(R"({"a":1})", {{K::Add, "/a/b", "1"}}).find("ERROR"), std::string::npos);
}

TEST(ApplyPatch, EmptyPathReplacesRoot) {
  EXPECT_EQ(applied(R"({"a":1})", {{K::Replace, "", "[1]"}}), "[1]");
}

TEST(ApplyPatch, EmptyKeyToken) {
  EXPECT_EQ(applied(R"({"":{}})", {{K::Add, "//x", "1"}}), R"({"":{"x":1}})");
}

}  // namespace
}  // namespace gpua::engine
