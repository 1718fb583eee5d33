// `gpu-admission whatif`: a table per namespace and class over a small pod list.
#include <gtest/gtest.h>

#include <string>

#include "cli_harness.hpp"

namespace gpua::cli::test {
namespace {

constexpr const char* kPods = R"({"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "v1", "kind": "Pod",
   "metadata": {"name": "w-0", "namespace": "team-a",
                "labels": {"training.kubeflow.org/job-name": "w"}},
   "spec": {"containers": [{"name": "c", "image": "i",
                            "resources": {"limits": {"nvidia.com/gpu": 2}}}]}},
  {"apiVersion": "v1", "kind": "Pod",
   "metadata": {"name": "web", "namespace": "team-a"},
   "spec": {"containers": [{"name": "c", "image": "nginx"}]}},
  {"apiVersion": "v1", "kind": "Pod",
   "metadata": {"name": "mystery", "namespace": "team-b"},
   "spec": {"containers": [{"name": "c", "image": "cuda",
                            "resources": {"limits": {"nvidia.com/gpu": 1}}}]}},
  {"apiVersion": "v1", "kind": "Pod",
   "metadata": {"name": "dns", "namespace": "kube-system"},
   "spec": {"containers": [{"name": "c", "image": "coredns"}]}}
]})";

constexpr const char* kNamespaces = R"({"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-b", "labels": {"env": "dev"}}}
]})";

class WhatifTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("policies/policy.yaml", kTestPolicy);
    dir_.write("pods.json", kPods);
    dir_.write("ns.json", kNamespaces);
  }
  ScratchDir dir_;
};

bool hasRow(const std::string& out, const std::string& ns, const std::string& cls,
            const std::string& counts) {
  for (std::size_t start = 0; start < out.size();) {
    auto end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    std::string line = out.substr(start, end - start);
    // Collapse runs of spaces so the test does not depend on column widths.
    std::string flat;
    for (char c : line)
      if (!(c == ' ' && !flat.empty() && flat.back() == ' ')) flat += c;
    if (flat == ns + " " + cls + " " + counts || flat == ns + " " + cls + " " + counts + " ")
      return true;
    start = end + 1;
  }
  return false;
}

TEST_F(WhatifTest, TablePerNamespaceAndClass) {
  const auto r = runCli({"whatif", "--pods", "pods.json", "--policies", "policies"}, dir_.path());
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  // Columns: PODS MUTATED DENIED WARNED UNCHANGED ERROR.
  EXPECT_TRUE(hasRow(r.out, "team-a", "training", "1 1 0 0 0 0")) << r.out;
  EXPECT_TRUE(hasRow(r.out, "team-a", "(NoGpu)", "1 0 0 0 1 0")) << r.out;
  EXPECT_TRUE(hasRow(r.out, "team-b", "(Unclassified)", "1 0 1 0 0 0")) << r.out;
  EXPECT_TRUE(hasRow(r.out, "kube-system", "(Exempt)", "1 0 0 0 1 0")) << r.out;
  EXPECT_NE(r.out.find("denied team-b/mystery: "), std::string::npos) << r.out;
}

TEST_F(WhatifTest, NamespaceLabelsDriveTheRolloutMode) {
  const auto r = runCli({"whatif", "--pods", "pods.json", "--namespaces", "ns.json", "--policies",
                         "policies", "-o", "json"},
                        dir_.path());
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  auto d = parseJson(r.out);
  bool found = false;
  for (const auto& p : d["pods"].GetArray()) {
    if (std::string(p["name"].GetString()) != "mystery") continue;
    found = true;
    // env=dev is warn mode in the test policy: admitted with a warning instead of denied.
    EXPECT_STRNE(p["verdict"].GetString(), "denied");
    EXPECT_GT(p["warnings"].GetUint64(), 0u);
    EXPECT_TRUE(p["brokeRules"].GetBool());
  }
  EXPECT_TRUE(found) << r.out;
}

TEST_F(WhatifTest, NotAListExitsTwo) {
  dir_.write("bad.json", R"({"kind": "Pod"})");
  const auto r = runCli({"whatif", "--pods", "bad.json", "--policies", "policies"}, dir_.path());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("bad.json: not a pod list"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpua::cli::test
