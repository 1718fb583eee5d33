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
  CaseFileResult read(const std::string& text) {
    return loadCaseFile(dir_.write("t/cases.yaml", text));
  }
  CaseFile load(const std::string& text) {
    auto result = read(text);
    EXPECT_TRUE(result.ok()) << ::testing::PrintToString(errorsOf(text));
    return result.ok() ? std::move(*result.caseFile) : CaseFile{};
  }
  std::string at(const std::string& relative) const { return (dir_.path() / relative).string(); }
  // Every error of the file as printed, relative to the scratch directory; none when it loads.
  std::vector<std::string> errorsOf(const std::string& text) {
    std::vector<std::string> out;
    for (const auto& d : read(text).errors) {
      std::string line = d.format();
      if (line.rfind(dir_.path().string() + "/", 0) == 0)
        line.erase(0, dir_.path().string().size() + 1);
      out.push_back(line);
    }
    return out;
  }
  std::string errorOf(const std::string& text) {
    const auto errors = errorsOf(text);
    EXPECT_EQ(errors.size(), 1u) << ::testing::PrintToString(errors);
    return errors.empty() ? "" : errors.front();
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

// What a policy author gets from `lint`, a policy-test author gets from `test`: the file, the
// line and column, the key path, and the key meant.
TEST_F(CaseFileTest, AMisspeltKeyNamesItsPlaceAndTheKeyMeant) {
  EXPECT_EQ(errorOf(R"(cases:
- name: typo
  pod: {apiVersion: v1, kind: Pod}
  expect: {alowed: true}
)"),
            "t/cases.yaml:4:12: cases[0].expect.alowed: unknown key 'alowed' (hint: did you mean "
            "'allowed'?)");
  EXPECT_EQ(errorsOf("defaults: {namespaceLabel: {a: b}}\ncases: []\n").at(0),
            "t/cases.yaml:1:12: defaults.namespaceLabel: unknown key 'namespaceLabel' (hint: did "
            "you mean 'namespaceLabels'?)");
  EXPECT_EQ(errorsOf("case:\n- name: a\n"),
            (std::vector<std::string>{
                "t/cases.yaml:1:1: case: unknown key 'case' (hint: did you mean 'cases'?)",
                "t/cases.yaml:1:1: cases: missing required field 'cases'"}));
}

TEST_F(CaseFileTest, MisspeltValuesGetTheNearestNameToo) {
  EXPECT_EQ(errorOf("cases:\n- {name: a, pod: {}, expect: {outcome: Clasified}}\n"),
            "t/cases.yaml:2:40: cases[0].expect.outcome: unknown value 'Clasified' (hint: did you "
            "mean 'Classified'?)");
  EXPECT_EQ(errorOf("cases:\n- {name: a, pod: {}, expect: {mode: enforced}}\n"),
            "t/cases.yaml:2:37: cases[0].expect.mode: unknown value 'enforced' (hint: did you "
            "mean 'enforce'?)");
  EXPECT_EQ(errorOf("cases:\n- {name: a, operation: CRAETE, pod: {}, expect: {}}\n"),
            "t/cases.yaml:2:24: cases[0].operation: unknown value 'CRAETE' (hint: did you mean "
            "'CREATE'?)");
  // The runner compares outcome and mode without case, so their case is not an error.
  EXPECT_TRUE(
      errorsOf("cases:\n- {name: a, pod: {}, expect: {outcome: noGPU, mode: WARN}}\n").empty());
}

TEST_F(CaseFileTest, EveryProblemOfTheFileAtOnceInFileOrder) {
  const auto errors = errorsOf(R"(cases:
- name: one
  pod: {}
  expect: {allowed: yes, warningCount: -1}
- name: two
  podFile: nope.json
  expect: {patched: {spec/x: 1}, absent: [/a~2]}
- name: one
  usage: {available: false, namespaces: {a: {gpuEquivalents: "3", byResource: {x: 1.5}}}}
  pod: {}
  expect: {}
)");
  // The missing podFile is no error of the file: it fails its case (see the next test).
  ASSERT_EQ(errors.size(), 7u) << ::testing::PrintToString(errors);
  EXPECT_EQ(errors[0],
            "t/cases.yaml:4:21: cases[0].expect.allowed: expected true or false, got \"yes\"");
  EXPECT_EQ(errors[1],
            "t/cases.yaml:4:40: cases[0].expect.warningCount: must be at least 0, got -1");
  EXPECT_EQ(errors[2],
            "t/cases.yaml:7:22: cases[1].expect.patched[spec/x]: \"spec/x\" is not a JSON pointer "
            "(hint: start it with '/')");
  EXPECT_EQ(errors[3],
            "t/cases.yaml:7:43: cases[1].expect.absent[0]: \"/a~2\" is not a valid JSON pointer "
            "(hint: write '~' as ~0 and '/' inside a key as ~1)");
  EXPECT_EQ(errors[4].rfind("t/cases.yaml:8:9: cases[2].name: duplicate case name 'one' (hint: "
                            "first used at ",
                            0),
            0u)
      << errors[4];
  EXPECT_EQ(errors[5],
            "t/cases.yaml:9:62: cases[2].usage.namespaces.a.gpuEquivalents: expected a number, "
            "got string \"3\" (hint: remove the quotes)");
  EXPECT_EQ(errors[6],
            "t/cases.yaml:9:83: cases[2].usage.namespaces.a.byResource.x: expected an integer, "
            "got \"1.5\"");
}

// Fixture files that cannot be used are errors of the cases that name them, located like the
// file's errors: the file loads, and the runner fails those cases only.
TEST_F(CaseFileTest, UnusableFixturesAreErrorsOfTheirCases) {
  dir_.write("t/pods/bad.json", "{\"kind\": \"Pod\",}");
  std::filesystem::create_directories(at("t/nodes"));
  const auto cf = load(R"(defaults: {usage: {podsFile: usage/gone.json}}
cases:
- {name: gone, podFile: pods/gone.json, expect: {}}
- {name: bad, usage: {}, podFile: pods/bad.json, expect: {}}
- {name: dir, usage: {}, nodes: [nodes], pod: {}, expect: {patchedPod: gone.yaml}}
)");
  ASSERT_EQ(cf.cases.size(), 3u);
  const std::string t = at("t");
  const std::string hint = " (hint: paths are relative to the case file's directory)";
  EXPECT_EQ(
      cf.cases[0].fixtureErrors,
      (std::vector<std::string>{t + "/cases.yaml:1:30: defaults.usage.podsFile: file not found: " +
                                    t + "/usage/gone.json" + hint,
                                t + "/cases.yaml:3:25: cases[0].podFile: file not found: " + t +
                                    "/pods/gone.json" + hint}));
  EXPECT_FALSE(cf.cases[0].object);
  ASSERT_EQ(cf.cases[1].fixtureErrors.size(), 1u);
  EXPECT_EQ(cf.cases[1].fixtureErrors[0].rfind(
                t + "/cases.yaml:4:35: cases[1].podFile: " + t + "/pods/bad.json:1:", 0),
            0u)
      << cf.cases[1].fixtureErrors[0];
  EXPECT_EQ(cf.cases[2].fixtureErrors,
            (std::vector<std::string>{
                t + "/cases.yaml:5:34: cases[2].nodes[0]: not a file: " + t +
                    "/nodes is a directory" + hint,
                t + "/cases.yaml:5:72: cases[2].expect.patchedPod: file not found: " + t +
                    "/gone.yaml" + hint}));
}

// `notPatched` (pointer -> a value the patched object must not hold) is read like `patched`:
// did you mean for the key, file:line:col for a bad pointer or value, and a value that `patched`
// requires at the same pointer is a contradiction.
TEST_F(CaseFileTest, NotPatchedIsReadLikePatched) {
  EXPECT_TRUE(errorsOf("cases:\n- {name: a, pod: {}, expect: {noPatch: true, notPatched: "
                       "{/spec/priorityClassName: gpu-training, /metadata/labels: {a: '1'}}}}\n")
                  .empty());
  EXPECT_EQ(errorOf("cases:\n- {name: a, pod: {}, expect: {notPached: {/a: 1}}}\n"),
            "t/cases.yaml:2:31: cases[0].expect.notPached: unknown key 'notPached' (hint: did you "
            "mean 'notPatched'?)");
  EXPECT_EQ(errorOf("cases:\n- {name: a, pod: {}, expect: {notPatched: {spec/x: 1}}}\n"),
            "t/cases.yaml:2:44: cases[0].expect.notPatched[spec/x]: \"spec/x\" is not a JSON "
            "pointer (hint: start it with '/')");
  EXPECT_EQ(errorOf("cases:\n- {name: a, pod: {}, expect: {notPatched: {/a~2: 1}}}\n"),
            "t/cases.yaml:2:44: cases[0].expect.notPatched[/a~2]: \"/a~2\" is not a valid JSON "
            "pointer (hint: write '~' as ~0 and '/' inside a key as ~1)");
  EXPECT_EQ(errorOf("cases:\n- {name: a, pod: {}, expect: {notPatched: {/a: {b: 1, b: 2}}}}\n"),
            "t/cases.yaml:2:55: cases[0].expect.notPatched[/a]: duplicate key \"b\"");
  EXPECT_EQ(errorOf("cases:\n- {name: a, pod: {}, expect: {patched: {/a: [1]}, notPatched: {/b: "
                    "1, /a: [1]}}}\n"),
            "t/cases.yaml:2:71: cases[0].expect.notPatched[/a]: contradicts patched, which expects "
            "this value at /a (hint: give one of them)");
}

TEST_F(CaseFileTest, StructuralErrors) {
  EXPECT_EQ(errorOf("cases: []\n"),
            "t/cases.yaml:1:8: cases: no cases (hint: add at least one case)");
  EXPECT_EQ(errorOf("cases:\n- name: a\n  expect: {}\n"),
            "t/cases.yaml:2:3: cases[0]: give exactly one of pod (inline) or podFile");
  EXPECT_EQ(errorOf("cases:\n- name: a\n  pod: {}\n  podFile: x.json\n  expect: {}\n"),
            "t/cases.yaml:2:3: cases[0]: give exactly one of pod (inline) or podFile");
  EXPECT_EQ(errorOf("cases:\n- pod: {}\n  expect: {}\n"),
            "t/cases.yaml:2:3: cases[0].name: missing required field 'name'");
  EXPECT_EQ(errorOf("cases:\n- name: a\n  pod: {}\n"),
            "t/cases.yaml:2:3: cases[0].expect: missing required field 'expect'");
  EXPECT_EQ(errorOf("cases:\n- {name: a, pod: [], expect: {}}\n"),
            "t/cases.yaml:2:18: cases[0].pod: expected a mapping, got a list");
  EXPECT_EQ(errorOf("cases:\n- {name: a, pod: {}, expect: {noPatch: true, patched: {/a: 1}}}\n"),
            "t/cases.yaml:2:40: cases[0].expect.noPatch: contradicts patched/patchedPod (hint: "
            "give one of them)");
  EXPECT_EQ(errorOf("cases:\n- {name: a, pod: {}, expect: {ignore: [/a]}}\n"),
            "t/cases.yaml:2:39: cases[0].expect.ignore: applies to patchedPod only (hint: add "
            "patchedPod, or remove ignore)");
  EXPECT_EQ(
      errorOf(
          "cases:\n- {name: a, pod: {}, expect: {noViolations: true, violationsExactly: [x]}}\n"),
      "t/cases.yaml:2:45: cases[0].expect.noViolations: contradicts violationsExactly (hint: give "
      "one of them)");
  EXPECT_EQ(errorOf("cases:\n- {name: a, pod: {a: 1, a: 2}, expect: {}}\n"),
            "t/cases.yaml:2:25: cases[0].pod: duplicate key \"a\"");
  EXPECT_EQ(
      errorOf("cases:\n- {name: a, pod: {}, expect: {violations: {a: b}}}\n"),
      "t/cases.yaml:2:43: cases[0].expect.violations: expected a string or a list of strings");
}

TEST_F(CaseFileTest, FileLevelErrors) {
  EXPECT_EQ(errorOf(""),
            "t/cases.yaml: no cases: the file is empty (hint: a case file is a "
            "mapping with a list `cases:` (docs/policy-testing.md))");
  EXPECT_EQ(errorOf("cases:\n- name: a\n  pod: {\n"),
            "t/cases.yaml:4:1: YAML syntax error: end of map flow not found");
  EXPECT_EQ(errorOf("cases: [{name: a, pod: {}, expect: {}}]\n---\ncases: []\n"),
            "t/cases.yaml:2:1: a second YAML document: a case file is one mapping with `cases:` "
            "(hint: remove the \"---\" line, or move these cases to a file of their own)");
  std::string separators;
  for (int i = 0; i < 9; ++i) separators += "---\n";
  EXPECT_EQ(errorOf(separators), "t/cases.yaml: 9 YAML documents: a case file holds one");
  EXPECT_EQ(errorOf("a: &a [*a]\n").rfind("t/cases.yaml:1:8: alias repeats a node", 0), 0u);
  const std::string missing = at("t/none.yaml");
  const auto result = loadCaseFile(missing);
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].format(), missing + ": cannot read the case file");
}

// A leading "---" and comments before it are not a second document, and lines still count
// from the top of the file.
TEST_F(CaseFileTest, LinesCountFromTheTopOfTheFileAfterALeadingSeparator) {
  EXPECT_EQ(errorOf("# cases for x\n---\ncases:\n- {name: a, pod: {}, expect: {alowed: true}}\n"),
            "t/cases.yaml:4:31: cases[0].expect.alowed: unknown key 'alowed' (hint: did you mean "
            "'allowed'?)");
}

}  // namespace
}  // namespace gpua::authoring
