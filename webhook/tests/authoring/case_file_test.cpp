// Reading case files: what a valid file gives (defaults, relative paths, inline and file
// objects, expectations), and the errors a policy-test author gets for a file that is wrong.
#include "authoring/case_file.hpp"

#include <gtest/gtest.h>

#include "authoring_test_support.hpp"

namespace gpua::authoring {
namespace {

using testing::ScratchDir;
using testing::trainingPod;

class CaseFileTest : public ::testing::Test {
 protected:
  CaseFile load(const std::string& text) { return loadCaseFile(dir_.write("t/cases.yaml", text)); }
  std::string at(const std::string& relative) const { return (dir_.path() / relative).string(); }
  // The error a file gives, "" when it loads.
  std::string errorOf(const std::string& text) {
    try {
      load(text);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
  ScratchDir dir_;
};

TEST_F(CaseFileTest, AFullCaseFile) {
  dir_.write("t/pods/w.json", trainingPod());
  const auto cf = load(R"(policies: [own]
defaults:
  namespace: team-a
  namespaceLabels: {env: dev}
  usage: {podsFile: usage/pods.json, namespaces: {team-a: {gpuEquivalents: 1.5, byClass: {training: 1}, byResource: {nvidia.com/gpu: 1}}}}
  nodes: nodes/cluster.json
cases:
- name: from a file
  podFile: pods/w.json
  expect:
    allowed: true
    outcome: Classified
    class: training
    mode: warn
    messageContains: one
    warningsContain: [a, b]
    violations: max-per-pod
    notViolations: [quota]
    warningCount: 2
    auditAnnotations: {class: training, gone: null}
    patched: {/spec/priorityClassName: gpu-training, /spec/x: 1}
    absent: [/spec/priority]
- name: inline
  namespace: other
  operation: UPDATE
  usage: {available: false, reason: API down}
  pod: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: c}]}}
  expect:
    noViolations: true
    noWarnings: true
    noPatch: true
- name: whole object
  podFile: pods/w.json
  expect: {patchedPod: expected/w.yaml, ignore: [/metadata/annotations]}
)");
  EXPECT_EQ(cf.policies, std::vector<std::string>{at("t/own")});
  ASSERT_EQ(cf.cases.size(), 3u);
  const TestCase& a = cf.cases[0];
  EXPECT_EQ(a.name, "from a file");
  EXPECT_EQ(a.namespaceName, "team-a");
  EXPECT_EQ(a.namespaceLabels.at("env"), "dev");
  EXPECT_EQ(a.operation, "CREATE");
  EXPECT_TRUE(a.usage.given);
  EXPECT_EQ(a.usage.podsFiles, std::vector<std::string>{at("t/usage/pods.json")});
  EXPECT_DOUBLE_EQ(a.usage.namespaces.at("team-a").gpuEquivalents, 1.5);
  EXPECT_EQ(a.usage.namespaces.at("team-a").byResource.at("nvidia.com/gpu"), 1);
  EXPECT_EQ(a.nodesFiles, std::vector<std::string>{at("t/nodes/cluster.json")});
  ASSERT_TRUE(a.object);
  EXPECT_STREQ((*a.object)["metadata"]["name"].GetString(), "worker-0");
  EXPECT_EQ(a.expect.allowed, true);
  EXPECT_EQ(a.expect.outcome, "Classified");
  EXPECT_EQ(a.expect.className, "training");
  EXPECT_EQ(a.expect.mode, "warn");
  EXPECT_EQ(a.expect.messageContains, std::vector<std::string>{"one"});
  EXPECT_EQ(a.expect.warningsContain, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(a.expect.violations, std::vector<std::string>{"max-per-pod"});
  EXPECT_EQ(a.expect.notViolations, std::vector<std::string>{"quota"});
  EXPECT_EQ(a.expect.warningCount, 2u);
  ASSERT_EQ(a.expect.auditAnnotations.size(), 2u);
  EXPECT_EQ(a.expect.auditAnnotations[1].second, std::nullopt);
  ASSERT_EQ(a.expect.patched.size(), 2u);
  EXPECT_STREQ(a.expect.patched[0].second->GetString(), "gpu-training");
  EXPECT_TRUE(a.expect.patched[1].second->IsInt());  // kubectl's YAML: a plain 1 is a number
  EXPECT_EQ(a.expect.absent, std::vector<std::string>{"/spec/priority"});

  const TestCase& b = cf.cases[1];
  EXPECT_EQ(b.namespaceName, "other");
  EXPECT_EQ(b.namespaceLabels.at("env"), "dev");  // from the defaults
  EXPECT_EQ(b.operation, "UPDATE");
  EXPECT_FALSE(b.usage.available);
  EXPECT_EQ(b.usage.reason, "API down");
  EXPECT_STREQ((*b.object)["kind"].GetString(), "Pod");
  ASSERT_TRUE(b.expect.violationsExactly);
  EXPECT_TRUE(b.expect.violationsExactly->empty());
  EXPECT_TRUE(b.expect.noWarnings);
  EXPECT_TRUE(b.expect.noPatch);

  const TestCase& c = cf.cases[2];
  EXPECT_EQ(c.expect.patchedPodFile, at("t/expected/w.yaml"));
  EXPECT_EQ(c.expect.ignore, std::vector<std::string>{"/metadata/annotations"});
}

// Cases keep their values alive when the file they came from is gone.
TEST_F(CaseFileTest, CasesOutliveTheirFile) {
  TestCase kept;
  {
    const auto cf = load(R"(cases:
- name: inline
  pod: {apiVersion: v1, kind: Pod, metadata: {name: p}}
  expect: {patched: {/a: {b: [1, 2]}}}
)");
    kept = cf.cases.at(0);
  }
  EXPECT_STREQ((*kept.object)["metadata"]["name"].GetString(), "p");
  EXPECT_EQ((*kept.expect.patched.at(0).second)["b"][1].GetInt(), 2);
}

TEST_F(CaseFileTest, StructuralErrorsNameTheFile) {
  for (const char* text : {
           "cases: []\n",
           "defaults: {namespace: x}\n",
           "cases:\n- name: a\n  expect: {}\n",
           "cases:\n- name: a\n  pod: {}\n  podFile: x.json\n  expect: {}\n",
           "cases:\n- pod: {}\n  expect: {}\n",
           "cases:\n- name: a\n  pod: {}\n",
           "cases:\n- {name: a, pod: {}, expect: {}}\n- {name: a, pod: {}, expect: {}}\n",
           "cases:\n- name: a\n  podFile: missing.json\n  expect: {}\n",
           "cases:\n- {name: a, pod: {}, expect: {noPatch: true, patched: {/a: 1}}}\n",
           "cases:\n- {name: a, pod: {}, expect: {ignore: [/a]}}\n",
           "cases:\n- {name: a, pod: {}, expect: {noViolations: true, violationsExactly: [x]}}\n",
           "cases:\n- {name: a, pod: {}, expect: {patched: {spec: 1}}}\n",
       }) {
    const std::string error = errorOf(text);
    EXPECT_EQ(error.rfind(at("t/cases.yaml") + ":", 0), 0u) << text << "\n-> " << error;
  }
}

}  // namespace
}  // namespace gpua::authoring
