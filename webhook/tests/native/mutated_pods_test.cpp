// The webhook is a no-op on a pod the compiled MutatingAdmissionPolicies mutated: the apiserver
// runs admission policies before webhooks, so the webhook's mutating call sees their output.
// mutated/<name>.stored.json is what a real apiserver (v1.37.2, the test control plane) stored
// for mutated/<name>.pod.json with only the compiled policies of policies/ installed (the
// webhook configurations removed) in a namespace labelled env=dev and
// gpu-admission.io/serving=true; the live suite (TestLive/NativeBackstop) checks the same on
// every pod of its differential.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <fstream>
#include <sstream>

#include "engine/decide.hpp"
#include "kube/json_parse.hpp"
#include "policy/loader.hpp"

namespace gpua::native {
namespace {

rapidjson::Document readJson(const std::string& name) {
  std::ifstream in(std::string(GPUA_NATIVE_MUTATED_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  rapidjson::Document d;
  // The one parse entry point: it pads the text for RapidJSON's SIMD reader.
  EXPECT_TRUE(kube::parseJson(text.str(), d).ok()) << name;
  return d;
}

engine::Decision decideIn(const rapidjson::Value& pod, const policy::PolicySet& p) {
  engine::RequestContext ctx;
  ctx.namespaceName = "nbe";
  ctx.namespaceLabels = {{"env", "dev"}, {"gpu-admission.io/serving", "true"}};
  engine::UsageSnapshot usage;
  usage.available = true;
  return engine::decide(pod, ctx, p, usage);
}

class MutatedPods : public testing::TestWithParam<const char*> {};

TEST_P(MutatedPods, TheWebhookWritesNothingOnWhatTheCompiledMutationsStored) {
  const auto loaded = policy::loadPolicyPaths({GPUA_POLICIES_DIR});
  ASSERT_TRUE(loaded.ok());
  const policy::PolicySet& p = *loaded.policy;
  rapidjson::Document stored = readJson(std::string(GetParam()) + ".stored.json");
  // The compiled annotations policy writes the revision it was compiled from
  // (mutations_cel_test: TheAnnotationsNameThePolicyRevision); the fixture keeps the revision
  // of its day, so it is set to today's before the engine compares.
  const std::string revision = p.name + "@" + p.revision;
  stored["metadata"]["annotations"]["gpu-admission.io/policy"].SetString(
      revision.c_str(), static_cast<rapidjson::SizeType>(revision.size()), stored.GetAllocator());
  const engine::Decision after = decideIn(stored, p);
  EXPECT_TRUE(after.violations.empty());
  EXPECT_TRUE(after.patch.empty()) << after.patch.size() << " ops, first at "
                                   << (after.patch.empty() ? "" : after.patch.front().path);
  // The pod as the user wrote it is mutated by the webhook: the fixture shows a change.
  EXPECT_FALSE(decideIn(readJson(std::string(GetParam()) + ".pod.json"), p).patch.empty());
}

INSTANTIATE_TEST_SUITE_P(StoredByTheApiserver, MutatedPods,
                         testing::Values("training", "inference", "interactive"));

}  // namespace
}  // namespace gpua::native
