#include "inventory/quota_render.hpp"

#include <gtest/gtest.h>

#include "support/cluster_fixtures.hpp"

namespace gpua::inventory {
namespace {

using testing::loadPolicy;
using testing::parse;
using testing::policyYaml;

std::string withQuotas(const std::string& quotas) {
  auto yaml = policyYaml();
  const auto begin = yaml.find("  quotas:");
  const auto end = yaml.find("  rollout:");
  return yaml.replace(begin, end - begin, quotas);
}

TEST(QuotaRender, NamedNamespaceGetsResourceLimitsAndPriorityClassScopes) {
  const auto policy = loadPolicy(withQuotas(R"(  quotas:
  - name: vision
    namespaces: {names: [vision]}
    gpuEquivalents: 16
    perClass: {training: 12, inference: 2}
    perResource: {nvidia.com/gpu: 10}
)"));
  const auto r = renderResourceQuotas(*policy, std::nullopt);
  EXPECT_EQ(r.manifests, 3);
  EXPECT_TRUE(r.notes.empty()) << r.notes.front();
  // 16 GE: 10 whole GPUs (capped by perResource), 16*7 1g and 16*7/2 2g slices, 16*4 L4 slices.
  const std::string total = R"(---
apiVersion: v1
kind: ResourceQuota
metadata:
  name: "gpua-vision"
  namespace: "vision"
  labels:
    app.kubernetes.io/managed-by: gpu-admission
  annotations:
    gpu-admission.io/quota: "vision"
    gpu-admission.io/policy-revision: ")" +
                            policy->revision + R"("
spec:
  hard:
    requests.nvidia.com/gpu: "10"
    requests.nvidia.com/gpu.shared: "64"
    requests.nvidia.com/mig-1g.10gb: "112"
    requests.nvidia.com/mig-2g.20gb: "56"
)";
  EXPECT_NE(r.yaml.find(total), std::string::npos) << r.yaml;
  EXPECT_NE(r.yaml.find(R"(  name: "gpua-vision-training"
  namespace: "vision")"),
            std::string::npos)
      << r.yaml;
  EXPECT_NE(r.yaml.find(R"(    requests.nvidia.com/gpu: "12"
  scopeSelector:
    matchExpressions:
    - scopeName: PriorityClass
      operator: In
      values: ["gpu-training"]
)"),
            std::string::npos)
      << r.yaml;
  // inference: 2 GE of 1g.10gb (1/7 each) = 14 slices, 2g.20gb = 7.
  EXPECT_NE(r.yaml.find(R"(    requests.nvidia.com/mig-1g.10gb: "14"
    requests.nvidia.com/mig-2g.20gb: "7"
  scopeSelector:)"),
            std::string::npos)
      << r.yaml;
}

TEST(QuotaRender, LabelSelectedQuotaNeedsNamespaces) {
  const auto policy = loadPolicy(policyYaml());
  const auto without = renderResourceQuotas(*policy, std::nullopt);
  EXPECT_EQ(without.manifests, 0);
  ASSERT_EQ(without.notes.size(), 1u);
  EXPECT_EQ(without.notes[0],
            "quota team-vision selects namespaces by labels: pass --namespaces ns.json (kubectl "
            "get ns -o json) or --namespace NAME=label=value to render it");
  EXPECT_NE(without.yaml.find("# NOTE: quota team-vision selects"), std::string::npos);

  const auto namespaces = namespacesFromJson(parse(R"({"kind":"NamespaceList","items":[
      {"metadata":{"name":"vision-a","labels":{"team":"vision"}}},
      {"metadata":{"name":"vision-b","labels":{"team":"vision"}}},
      {"metadata":{"name":"nlp","labels":{"team":"nlp"}}}]})"));
  const auto with = renderResourceQuotas(*policy, namespaces);
  EXPECT_EQ(with.manifests, 4);  // total + training, in each of the two vision namespaces
  EXPECT_NE(with.yaml.find(R"(namespace: "vision-a")"), std::string::npos);
  EXPECT_NE(with.yaml.find(R"(namespace: "vision-b")"), std::string::npos);
  EXPECT_EQ(with.yaml.find(R"(namespace: "nlp")"), std::string::npos);
  ASSERT_EQ(with.notes.size(), 1u);
  EXPECT_NE(with.notes[0].find("one budget shared by 2 namespaces"), std::string::npos);
}

TEST(QuotaRender, WhatCannotBeExpressedIsSaid) {
  const auto policy = loadPolicy(withQuotas(R"(  quotas:
  - name: dev
    namespaces: {names: [sandbox]}
    scope: perNamespace
    gpuEquivalents: 1.5
    perClass: {interactive: 1}
)"));
  const auto r = renderResourceQuotas(*policy, std::nullopt);
  EXPECT_EQ(r.manifests, 1);
  EXPECT_NE(r.yaml.find(R"(    requests.nvidia.com/gpu: "1"
    requests.nvidia.com/gpu.shared: "6"
)"),
            std::string::npos)
      << r.yaml;
  bool noPriority = false;
  for (const auto& n : r.notes)
    noPriority |= n ==
                  "quota dev: class interactive sets no priorityClassName, so its budget has "
                  "no ResourceQuota scope";
  EXPECT_TRUE(noPriority);
}

TEST(QuotaRender, ExemptNamespacesAreSkipped) {
  auto yaml = withQuotas(R"(  quotas:
  - name: all
    namespaces: {names: [team, kube-system]}
    scope: perNamespace
    gpuEquivalents: 2
)");
  yaml.replace(yaml.find("  pools:"), 0, "  exempt: {namespaces: [kube-system]}\n");
  const auto r = renderResourceQuotas(*loadPolicy(yaml), std::nullopt);
  EXPECT_EQ(r.manifests, 1);
  EXPECT_EQ(r.yaml.find("kube-system\"\n"), std::string::npos);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0], "quota all: namespace kube-system is exempt, not rendered");
}

// The engine exempts a namespace that is listed OR whose labels match; a quota must not land in
// a namespace the webhook never judges, nor skip one it does.
TEST(QuotaRender, ExemptionIsAListedNameOrMatchingLabels) {
  auto yaml = withQuotas(R"(  quotas:
  - name: all
    namespaces: {names: [kube-system, infra, team]}
    scope: perNamespace
    gpuEquivalents: 2
)");
  yaml.replace(yaml.find("  pools:"), 0,
               "  exempt: {namespaces: {names: [kube-system], matchLabels: {exempt: \"yes\"}}}\n");
  const auto namespaces = namespacesFromJson(parse(R"({"kind":"NamespaceList","items":[
      {"metadata":{"name":"kube-system"}},
      {"metadata":{"name":"infra","labels":{"exempt":"yes"}}},
      {"metadata":{"name":"team"}}]})"));
  const auto r = renderResourceQuotas(*loadPolicy(yaml), namespaces);
  EXPECT_EQ(r.manifests, 1) << r.yaml;
  EXPECT_NE(r.yaml.find(R"(namespace: "team")"), std::string::npos) << r.yaml;
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_EQ(r.notes[0], "quota all: namespace kube-system is exempt, not rendered");
  EXPECT_EQ(r.notes[1], "quota all: namespace infra is exempt, not rendered");
}

TEST(QuotaRender, NamespaceSpecs) {
  const auto ns = parseNamespaceSpec("team-a=team=vision,env=dev");
  EXPECT_EQ(ns.name, "team-a");
  EXPECT_EQ(ns.labels.at("team"), "vision");
  EXPECT_EQ(ns.labels.at("env"), "dev");
  EXPECT_TRUE(parseNamespaceSpec("plain").labels.empty());
  EXPECT_THROW(parseNamespaceSpec("=x"), NamespaceSpecError);
  EXPECT_THROW(parseNamespaceSpec("a=novalue"), NamespaceSpecError);
}

}  // namespace
}  // namespace gpua::inventory
