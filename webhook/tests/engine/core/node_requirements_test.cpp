// Selector intersection: can any node's labels satisfy every requirement at once?
#include "engine/core/node_requirements.hpp"

#include <gtest/gtest.h>

namespace gpua::engine {
namespace {

using Op = NodeOperator;

NodeRequirement req(std::string_view key, Op op, std::vector<std::string_view> values = {}) {
  return {key, op, std::move(values), false};
}

// Whether the requirements contradict, and on which key.
std::string conflict(const std::vector<NodeRequirement>& reqs) {
  std::vector<const NodeRequirement*> ptrs;
  for (const auto& r : reqs) ptrs.push_back(&r);
  const auto c = findContradiction(ptrs);
  return c ? std::string(c->key) : std::string();
}

TEST(NodeRequirements, InAgainstIn) {
  EXPECT_EQ(conflict({req("k", Op::In, {"a"}), req("k", Op::In, {"b"})}), "k");
  EXPECT_EQ(conflict({req("k", Op::In, {"a", "b"}), req("k", Op::In, {"b", "c"})}), "");
  EXPECT_EQ(conflict({req("k", Op::In, {"a"}), req("other", Op::In, {"b"})}), "");
}

TEST(NodeRequirements, NotIn) {
  EXPECT_EQ(conflict({req("k", Op::In, {"a"}), req("k", Op::NotIn, {"a"})}), "k");
  EXPECT_EQ(conflict({req("k", Op::In, {"a", "b"}), req("k", Op::NotIn, {"a"})}), "");
  // Absent labels satisfy NotIn; so do all the values not listed.
  EXPECT_EQ(conflict({req("k", Op::NotIn, {"a"}), req("k", Op::DoesNotExist)}), "");
  EXPECT_EQ(conflict({req("k", Op::NotIn, {"a"}), req("k", Op::Exists)}), "");
}

TEST(NodeRequirements, ExistsAndDoesNotExist) {
  EXPECT_EQ(conflict({req("k", Op::Exists), req("k", Op::DoesNotExist)}), "k");
  EXPECT_EQ(conflict({req("k", Op::In, {"a"}), req("k", Op::DoesNotExist)}), "k");
  EXPECT_EQ(conflict({req("k", Op::Exists), req("k", Op::In, {"a"})}), "");
  EXPECT_EQ(conflict({req("k", Op::DoesNotExist), req("k", Op::DoesNotExist)}), "");
}

TEST(NodeRequirements, GtAndLt) {
  EXPECT_EQ(conflict({req("n", Op::Gt, {"4"}), req("n", Op::Lt, {"5"})}), "n");
  EXPECT_EQ(conflict({req("n", Op::Gt, {"4"}), req("n", Op::Lt, {"6"})}), "");
  EXPECT_EQ(conflict({req("n", Op::Gt, {"4"}), req("n", Op::In, {"3", "4"})}), "n");
  EXPECT_EQ(conflict({req("n", Op::Gt, {"4"}), req("n", Op::In, {"3", "8"})}), "");
  EXPECT_EQ(conflict({req("n", Op::Lt, {"8"}), req("n", Op::In, {"eight"})}), "n");
  EXPECT_EQ(conflict({req("n", Op::Gt, {"1"}), req("n", Op::DoesNotExist)}), "n");
  // Label values cannot be negative, and a bound that is no integer matches nothing.
  EXPECT_EQ(conflict({req("n", Op::Lt, {"0"})}), "n");
  EXPECT_EQ(conflict({req("n", Op::Lt, {"1"})}), "");
  EXPECT_EQ(conflict({req("n", Op::Gt, {"many"})}), "n");
  // NotIn cannot exclude an integer: "07" still satisfies Gt 6 when "7" is excluded.
  EXPECT_EQ(
      conflict({req("n", Op::Gt, {"6"}), req("n", Op::Lt, {"8"}), req("n", Op::NotIn, {"7"})}), "");
  EXPECT_EQ(conflict({req("n", Op::Gt, {"9223372036854775807"})}), "n");
}

TEST(NodeRequirements, FieldsAreNotLabels) {
  NodeRequirement name{"metadata.name", Op::In, {"n1"}, true};
  NodeRequirement other{"metadata.name", Op::In, {"n2"}, true};
  NodeRequirement label = req("metadata.name", Op::In, {"n2"});
  EXPECT_FALSE(findContradiction(std::vector<const NodeRequirement*>{&name, &label}));
  EXPECT_TRUE(findContradiction(std::vector<const NodeRequirement*>{&name, &other}));
}

TEST(NodeRequirements, MalformedIsNeverAConflict) {
  // The apiserver rejects these pods; nothing is concluded from them.
  EXPECT_EQ(conflict({req("k", Op::In), req("k", Op::In, {"a"})}), "");
  EXPECT_EQ(conflict({req("k", Op::Gt, {"1", "2"}), req("k", Op::DoesNotExist)}), "");
  EXPECT_EQ(conflict({req("k", Op::Exists, {"x"}), req("k", Op::DoesNotExist)}), "");
}

TEST(NodeRequirements, SatisfiedByLabels) {
  const kube::Labels labels{{"k", "a"}, {"n", "8"}};
  EXPECT_TRUE(satisfiedBy(req("k", Op::In, {"a", "b"}), labels, "node-1"));
  EXPECT_FALSE(satisfiedBy(req("k", Op::NotIn, {"a"}), labels, "node-1"));
  EXPECT_TRUE(satisfiedBy(req("missing", Op::NotIn, {"a"}), labels, "node-1"));
  EXPECT_TRUE(satisfiedBy(req("k", Op::Exists), labels, "node-1"));
  EXPECT_TRUE(satisfiedBy(req("missing", Op::DoesNotExist), labels, "node-1"));
  EXPECT_TRUE(satisfiedBy(req("n", Op::Gt, {"7"}), labels, "node-1"));
  EXPECT_FALSE(satisfiedBy(req("n", Op::Lt, {"8"}), labels, "node-1"));
  EXPECT_FALSE(satisfiedBy(req("k", Op::Gt, {"1"}), labels, "node-1"));
  EXPECT_TRUE(satisfiedBy({"metadata.name", Op::In, {"node-1"}, true}, labels, "node-1"));
}

TEST(NodeRequirements, Describe) {
  EXPECT_EQ(describe(req("k", Op::In, {"a", "b"})), "k In [a, b]");
  EXPECT_EQ(describe(req("k", Op::DoesNotExist)), "k DoesNotExist");
  EXPECT_EQ(describe(req("n", Op::Gt, {"3"})), "n Gt [3]");
}

// Pools (policy::NodeRequirement) and pods (engine) read Gt/Lt operands with the same rule,
// Go's strconv.ParseInt: a leading '+' is a sign, a second sign or a blank is not a number.
TEST(NodeRequirements, PoolAndPodReadGtOperandsAlike) {
  const kube::Labels labels{{"nvidia.com/gpu.count", "+8"}};
  const policy::NodeRequirement pool{"nvidia.com/gpu.count", Op::Gt, {"+4"}};
  EXPECT_TRUE(pool.matches(labels));
  EXPECT_TRUE(satisfiedBy(req("nvidia.com/gpu.count", Op::Gt, {"+4"}), labels, "n1"));
  for (const std::string bad : {"+-4", "++4", "+", " 4"}) {
    const policy::NodeRequirement p{"nvidia.com/gpu.count", Op::Gt, {bad}};
    EXPECT_FALSE(p.matches(labels)) << bad;
    EXPECT_FALSE(satisfiedBy(req("nvidia.com/gpu.count", Op::Gt, {bad}), labels, "n1")) << bad;
  }
}

}  // namespace
}  // namespace gpua::engine
