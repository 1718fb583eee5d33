// Fuzz-ish robustness: every node of a few pods replaced by other JSON shapes, removed, or its
// container truncated. decide() must never throw, and whenever it admits, its patch applies.
#include <gtest/gtest.h>

#include <functional>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

const char* kReplacements[] = {
    "null",
    "0",
    "-1",
    "1e308",
    "18446744073709551615",
    "0.5",
    "true",
    "\"\"",
    "\"\\u0000\\n\\u00e9\\ud83d\\ude00\"",
    "[]",
    "{}",
    "[[[[{}]]]]",
    "{\"a\":{\"b\":[1,\"x\"]}}",
};

const char* kSeeds[] = {
    R"({"metadata":{"name":"p","labels":{"gpu-admission.io/class":"inference"},"annotations":{"a":"b"}},)"
    R"("spec":{"priorityClassName":"default-priority","priority":0,"activeDeadlineSeconds":99999,)"
    R"("nodeSelector":{"zone":"a"},"tolerations":[{"key":"x","operator":"Exists"}],)"
    R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"In","values":["v"]}]}]}}},)"
    R"("initContainers":[{"name":"i","resources":{"requests":{"nvidia.com/gpu":"1"}}}],)"
    R"("containers":[{"name":"c","env":[{"name":"A"}],"resources":{"requests":{"nvidia.com/gpu":1},"limits":{"nvidia.com/gpu":1}}},{"name":"s"}]}})",
    R"({"metadata":{"generateName":"g-","labels":{"notebook-name":"nb"}},)"
    R"("spec":{"resourceClaims":[{"name":"x"}],"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu.shared":1,"nvidia.com/mig-1g.10gb":1}}}]}})",
    R"({"metadata":{"name":"cpu"},"spec":{"nodeSelector":{"gpu-admission.io/pool":"dev"},"containers":[{"name":"c"}]}})",
};

// Calls fn(pointerToken path) for every node of `v`.
void forEachPath(const rapidjson::Value& v, const std::string& path,
                 const std::function<void(const std::string&)>& fn) {
  fn(path);
  if (v.IsObject()) {
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it)
      forEachPath(it->value, path + "/" + escapePointerToken(it->name.GetString()), fn);
  } else if (v.IsArray()) {
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i)
      forEachPath(v[i], path + "/" + std::to_string(i), fn);
  }
}

std::vector<policy::PolicySet> policies() {
  auto assign = makePolicy();
  assign.unclassifiedGpuPods.action = policy::UnclassifiedGpuPods::Action::AssignClass;
  assign.unclassifiedGpuPods.className = "training";
  auto warn = makePolicy();
  warn.rollout = {{std::nullopt, policy::Mode::Warn}};
  warn.pools[0].runtimeClassName = "nvidia";
  return {makePolicy(), assign, warn};
}

void checkVariant(rapidjson::Document& doc, const policy::PolicySet& p, const std::string& what) {
  Decision d;
  ASSERT_NO_THROW(d = decide(doc, podContext(), p, emptyUsage())) << what;
  if (!d.allowed()) {
    EXPECT_TRUE(d.patch.empty()) << what;
    return;
  }
  const auto error = applyPatch(doc, d.patch);
  ASSERT_FALSE(error.has_value()) << what << ": " << *error << "\n" << serializePatch(d.patch);
  Decision again;
  ASSERT_NO_THROW(again = decide(doc, podContext(), p, emptyUsage()));
  EXPECT_TRUE(again.patch.empty()) << what << ": " << serializePatch(again.patch);
}

TEST(Robustness, EveryNodeReplacedOrRemoved) {
  const auto ps = policies();
  int variants = 0;
  for (const char* seed : kSeeds) {
    rapidjson::Document base = parse(seed);
    forEachPath(base, "", [&](const std::string& path) {
      if (path.empty()) return;
      for (const char* replacement : kReplacements) {
        for (const auto& p : ps) {
          rapidjson::Document doc = parse(seed);
          rapidjson::Document value = parse(replacement);
          rapidjson::Pointer(path.c_str()).Set(doc, value);
          checkVariant(doc, p, path + " = " + replacement);
          ++variants;
        }
      }
      for (const auto& p : ps) {
        rapidjson::Document doc = parse(seed);
        rapidjson::Pointer(path.c_str()).Erase(doc);
        checkVariant(doc, p, "remove " + path);
      }
    });
  }
  EXPECT_GT(variants, 1000);
}

TEST(Robustness, NonObjectRootsAndEmptyObjects) {
  for (const char* root : {"null", "[]", "1", "\"pod\"", "{}", R"({"spec":null})",
                           R"({"spec":{"containers":{}}})", R"({"metadata":[],"spec":[]})"}) {
    for (const auto& p : policies()) {
      rapidjson::Document doc = parse(root);
      Decision d;
      ASSERT_NO_THROW(d = decide(doc, podContext(), p, emptyUsage())) << root;
      EXPECT_TRUE(d.patch.empty()) << root;
    }
  }
}

// Decision::subject names the pod judged, whatever was decided into the same Decision before
// (its memory is lent to the pod view and given back): a long name (messages cut names at 80
// characters), a generateName, none.
TEST(DecisionSubject, NamesEachPodDecidedIntoOneDecision) {
  const auto policy = makePolicy();
  const std::string longName(80, 'n');
  const std::vector<std::pair<std::string, std::string>> pods = {
      {R"({"metadata":{"name":")" + longName + R"("},"spec":{"containers":[{"name":"c"}]}})",
       "pod \"" + longName + "\""},
      {R"({"metadata":{"generateName":"web-"},"spec":{"containers":[{"name":"c"}]}})",
       "pod \"web-\" (generateName)"},
      {R"({"metadata":{},"spec":{"containers":[{"name":"c"}]}})", "pod (no name)"},
      {gpuPod(R"({"gpu-admission.io/class":"training"})", R"({"limits":{"nvidia.com/gpu":"1"}})"),
       "pod \"trainer-0\""},
  };
  Decision kept;
  for (int round = 0; round < 2; ++round) {
    for (const auto& [json, subject] : pods) {
      rapidjson::Document doc = parse(json);
      decide(doc, podContext(), policy, emptyUsage(), noSupply(), kept);
      EXPECT_EQ(kept.subject, subject) << json;
    }
  }
}

TEST(Robustness, ManyContainersWithHugeQuantities) {
  std::string pod =
      R"({"metadata":{"name":"big","labels":{"gpu-admission.io/class":"training"}},"spec":{"containers":[)";
  for (int i = 0; i < 500; ++i)
    pod += std::string(i ? "," : "") + R"({"name":"c)" + std::to_string(i) +
           R"(","resources":{"limits":{"nvidia.com/gpu":"9007199254740992"}}})";
  pod += "]}}";
  rapidjson::Document doc = parse(pod);
  const Decision d = decide(doc, podContext(), makePolicy(), emptyUsage());
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "max-per-pod");
}

TEST(Robustness, WorkloadWithHostileTemplates) {
  RequestContext ctx = podContext();
  ctx.group = "kubeflow.org";
  ctx.kind = "PyTorchJob";
  for (const char* job : {R"({"spec":{"pytorchReplicaSpecs":[1,{"template":7},{"template":{}}]}})",
                          R"({"spec":{"pytorchReplicaSpecs":{"A":{"template":{"spec":"x"}}}}})",
                          R"({"spec":null})", "[]"}) {
    rapidjson::Document doc = parse(job);
    ASSERT_NO_THROW(decide(doc, ctx, makePolicy(), emptyUsage())) << job;
  }
}

}  // namespace
}  // namespace gpua::engine
