// Resolution rules: what a valid policy turns into, and the pool combinations that are refused.
#include <gtest/gtest.h>

#include "policy_test_support.hpp"

namespace gpua::policy {
namespace {

using testing::doc;
using testing::errorAt;
using testing::expectError;
using testing::load;

const std::string kPools =
    "  pools:\n"
    "  - {name: h100, gpu: H100-80GB}\n"
    "  - {name: h100b, gpu: H100-80GB, resource: nvidia.com/gpu}\n"
    "  - {name: a100, gpu: A100-80GB, sharing: mig, migProfiles: [1g.10gb, 2g.20gb, 3g.40gb]}\n"
    "  - {name: h100mig, gpu: H100-80GB, sharing: mig, migProfiles: [2g.20gb]}\n"
    "  - {name: a30, gpu: A30, sharing: mig, migProfiles: [1g.6gb, 2g.12gb]}\n"
    "  - {name: l4, gpu: L4, sharing: time-slicing, replicas: 4, resource: nvidia.com/gpu.shared}\n"
    "  - {name: t4, gpu: T4, sharing: mps, replicas: 2}\n"
    "  - {name: l4x8, gpu: L4, sharing: time-slicing, replicas: 8, resource: "
    "nvidia.com/gpu.shared}\n"
    "  classes:\n";

// A class line "  - {name: c, match: ..., <rest>}" appended to kPools.
std::string classWith(const std::string& rest, const std::string& name = "c") {
  return "  - {name: " + name + ", match: {any: [{labelKeys: [k]}]}, " + rest + "}\n";
}

const WorkloadClass& onlyClass(const LoadResult& r) {
  EXPECT_TRUE(r.ok()) << testing::allErrors(r);
  static const WorkloadClass none;
  return r.ok() ? r.policy->classes.at(0) : none;
}

TEST(LoaderResolve, ExclusivePoolsGiveWholeGpus) {
  auto r = load(doc(kPools + classWith("pools: [h100, h100b]")));
  const auto& c = onlyClass(r);
  EXPECT_EQ(c.resolvedResource, "nvidia.com/gpu");
  EXPECT_DOUBLE_EQ(c.gpuEquivalentPerUnit, 1.0);
  EXPECT_FALSE(c.sharedResource);
  EXPECT_EQ(c.gpus.request, GpuRequest::Required);  // default with pools
}

TEST(LoaderResolve, MigProfileGivesTheMigResourceAndSliceFraction) {
  auto r = load(doc(kPools + classWith("pools: [a100, h100mig], gpus: {migProfile: 2g.20gb}")));
  const auto& c = onlyClass(r);
  EXPECT_EQ(c.resolvedResource, "nvidia.com/mig-2g.20gb");
  EXPECT_DOUBLE_EQ(c.gpuEquivalentPerUnit, 2.0 / 7.0);
  EXPECT_FALSE(c.sharedResource);
}

TEST(LoaderResolve, A30SlicesAreQuarters) {
  auto r = load(doc(kPools + classWith("pools: [a30], gpus: {migProfile: 2g.12gb}")));
  EXPECT_DOUBLE_EQ(onlyClass(r).gpuEquivalentPerUnit, 0.5);
}

TEST(LoaderResolve, TimeSlicedPoolGivesItsResourceAndOneOverReplicas) {
  auto r = load(doc(kPools + classWith("pools: [l4]")));
  const auto& c = onlyClass(r);
  EXPECT_EQ(c.resolvedResource, "nvidia.com/gpu.shared");
  EXPECT_DOUBLE_EQ(c.gpuEquivalentPerUnit, 0.25);
  EXPECT_TRUE(c.sharedResource);
}

TEST(LoaderResolve, MpsPoolDefaultsToNvidiaGpuResource) {
  auto r = load(doc(kPools + classWith("pools: [t4]")));
  const auto& c = onlyClass(r);
  EXPECT_EQ(c.resolvedResource, "nvidia.com/gpu");
  EXPECT_DOUBLE_EQ(c.gpuEquivalentPerUnit, 0.5);
  EXPECT_TRUE(c.sharedResource);
}

TEST(LoaderResolve, ClassWithoutPoolsForbidsGpusAndHasNoResource) {
  auto r = load(doc(kPools + classWith("maxRunSeconds: 60")));
  const auto& c = onlyClass(r);
  EXPECT_EQ(c.gpus.request, GpuRequest::Forbidden);
  EXPECT_TRUE(c.resolvedResource.empty());
  EXPECT_EQ(c.maxRunSeconds, 60);
}

TEST(LoaderResolve, MixingExclusiveAndTimeSlicedPoolsIsAnError) {
  auto r = load(doc(kPools + classWith("pools: [h100, l4]")));
  ASSERT_FALSE(r.ok());
  const Diagnostic* d = errorAt(r, "spec.classes[0].pools[1]");
  ASSERT_NE(d, nullptr) << testing::allErrors(r);
  EXPECT_EQ(d->message, "class mixes exclusive pool 'h100' with time-slicing pool 'l4'");
  EXPECT_EQ(d->hint,
            "a whole GPU and a time-slice are different resources; split it into two classes");
  EXPECT_EQ(d->line, 15);
}

TEST(LoaderResolve, SlicedPoolsMustAgreeOnResourceAndReplicas) {
  auto r = load(doc(kPools + classWith("pools: [l4, l4x8]")));
  ASSERT_FALSE(r.ok());
  const Diagnostic* d = errorAt(r, "spec.classes[0].pools[1]");
  ASSERT_NE(d, nullptr) << testing::allErrors(r);
  EXPECT_EQ(d->message,
            "pool 'l4x8' (nvidia.com/gpu.shared, replicas 8) differs from pool 'l4' "
            "(nvidia.com/gpu.shared, replicas 4)");
}

TEST(LoaderResolve, MigPoolWithoutClassProfileIsAnError) {
  auto r = load(doc(kPools + classWith("pools: [a100]")));
  ASSERT_FALSE(r.ok());
  const Diagnostic* d = errorAt(r, "spec.classes[0].pools[0]");
  ASSERT_NE(d, nullptr) << testing::allErrors(r);
  EXPECT_EQ(d->format(),
            "p.yaml:15:57: spec.classes[0].pools[0]: pool 'a100' is a MIG pool but the class "
            "sets no gpus.migProfile (hint: set gpus.migProfile to one of: 1g.10gb, 2g.20gb, "
            "3g.40gb)");
}

TEST(LoaderResolve, ClassProfileMustBeOfferedByEveryPool) {
  auto r =
      load(doc(kPools + classWith("pools: [a100, h100mig, h100], gpus: {migProfile: 3g.40gb}")));
  ASSERT_FALSE(r.ok());
  const Diagnostic* notOffered = errorAt(r, "spec.classes[0].pools[1]");
  const Diagnostic* notMig = errorAt(r, "spec.classes[0].pools[2]");
  ASSERT_NE(notOffered, nullptr) << testing::allErrors(r);
  ASSERT_NE(notMig, nullptr) << testing::allErrors(r);
  EXPECT_EQ(notOffered->message, "pool 'h100mig' (mig) does not offer MIG profile 3g.40gb");
  EXPECT_EQ(notMig->message, "pool 'h100' (exclusive) does not offer MIG profile 3g.40gb");
  EXPECT_EQ(errorAt(r, "spec.classes[0].pools[0]"), nullptr);
}

TEST(LoaderResolve, UnclassifiedGpuPodsResolvesTheClassIndex) {
  auto r = load(doc(kPools + classWith("pools: [h100]", "a") + classWith("pools: [l4]", "b") +
                    "  unclassifiedGpuPods: b\n"));
  ASSERT_TRUE(r.ok()) << testing::allErrors(r);
  const auto& u = r.policy->unclassifiedGpuPods;
  EXPECT_EQ(u.action, UnclassifiedGpuPods::Action::AssignClass);
  EXPECT_EQ(u.className, "b");
  EXPECT_EQ(u.classIndex, 1u);
}

TEST(LoaderResolve, UnclassifiedGpuPodsDenyAllowAndDefault) {
  auto deny = load(doc("  unclassifiedGpuPods: deny\n"));
  auto allow = load(doc("  unclassifiedGpuPods: allow\n"));
  auto unset = load(doc("  pools: []\n"));
  ASSERT_TRUE(deny.ok() && allow.ok() && unset.ok());
  EXPECT_EQ(deny.policy->unclassifiedGpuPods.action, UnclassifiedGpuPods::Action::Deny);
  EXPECT_EQ(allow.policy->unclassifiedGpuPods.action, UnclassifiedGpuPods::Action::Allow);
  EXPECT_EQ(unset.policy->unclassifiedGpuPods.action, UnclassifiedGpuPods::Action::Deny);
}

TEST(LoaderResolve, EveryFieldReachesThePolicySet) {
  auto r = load(doc(
      "  exempt: {namespaces: {names: [kube-system], matchLabels: {exempt: \"yes\"}}}\n"
      "  pools:\n"
      "  - name: p\n"
      "    gpu: H100-80GB\n"
      "    nodeSelector: {gpu-admission.io/pool: p}\n"
      "    taints: [{key: nvidia.com/gpu, effect: NoSchedule}, {key: dedicated, value: ml}]\n"
      "    runtimeClassName: nvidia\n"
      "  classes:\n"
      "  - name: c\n"
      "    match:\n"
      "      any: [{labels: {a: b}}, {labelKeys: [k]}]\n"
      "      all:\n"
      "      - annotations: {x: y}\n"
      "        annotationKeys: [z]\n"
      "        namespaces: {matchExpressions: [{key: env, operator: NotIn, values: [prod]}]}\n"
      "        ownerKinds: [Job]\n"
      "        schedulerNames: [default-scheduler]\n"
      "        resources: [nvidia.com/gpu]\n"
      "    allowedNamespaces: [ml, research]\n"
      "    pools: [p]\n"
      "    priorityClassName: gpu-training\n"
      "    overridePriorityClass: true\n"
      "    allowedPriorityClasses: [gpu-low]\n"
      "    gpus: {request: optional, maxPerPod: 8, maxPerContainer: 4}\n"
      "    maxRunSeconds: 3600\n"
      "  skip:\n"
      "  - {name: hami, match: {resources: [nvidia.com/gpumem*]}}\n"
      "  - {name: kueue, match: {labelKeys: [kueue.x-k8s.io/queue-name]}, action: validateOnly}\n"
      "  quotas:\n"
      "  - name: q\n"
      "    namespaces: {matchLabels: {team: a}}\n"
      "    scope: perNamespace\n"
      "    gpuEquivalents: 2.5\n"
      "    perClass: {c: 2}\n"
      "    perResource: {nvidia.com/gpu: 2}\n"
      "  rollout:\n"
      "  - {namespaces: {matchLabels: {env: dev}}, mode: enforce}\n"
      "  - {mode: audit}\n"
      "  templates:\n"
      "  - {apiGroup: kubeflow.org, kind: PyTorchJob, paths: "
      "[spec.pytorchReplicaSpecs.*.template]}\n"
      "  - {kind: Pod, paths: [spec]}\n"
      "  priorityClasses: {globalDefault: default-priority}\n"
      "  quotaUnavailable: failClosed\n"));
  ASSERT_TRUE(r.ok()) << testing::allErrors(r);
  const PolicySet& p = *r.policy;
  EXPECT_EQ(p.name, "test");
  EXPECT_TRUE(p.hasExemptions);
  EXPECT_TRUE(p.exemptNamespaces.covers("kube-system", {}));  // a listed name, or ...
  EXPECT_TRUE(p.exemptNamespaces.covers("infra", {{"exempt", "yes"}}));  // ... matching labels
  EXPECT_FALSE(p.exemptNamespaces.covers("infra", {}));

  const Pool& pool = p.pools.at(0);
  EXPECT_EQ(pool.sharing, Sharing::Exclusive);
  EXPECT_EQ(pool.nodeSelector.at("gpu-admission.io/pool"), "p");
  ASSERT_EQ(pool.taints.size(), 2u);
  EXPECT_EQ(pool.taints[0].effect, "NoSchedule");
  EXPECT_EQ(pool.taints[1].value, "ml");
  EXPECT_EQ(pool.taints[1].effect, "");
  EXPECT_EQ(pool.runtimeClassName, "nvidia");

  const WorkloadClass& c = p.classes.at(0);
  ASSERT_EQ(c.match.any.size(), 2u);
  EXPECT_EQ(c.match.any[0].labels.at("a"), "b");
  ASSERT_EQ(c.match.all.size(), 1u);
  const MatchRule& all = c.match.all[0];
  EXPECT_EQ(all.annotations.at("x"), "y");
  EXPECT_EQ(all.annotationKeys, std::vector<std::string>{"z"});
  ASSERT_TRUE(all.namespaces.has_value());
  EXPECT_FALSE(all.namespaces->matches("n", {{"env", "prod"}}));
  EXPECT_TRUE(all.namespaces->matches("n", {{"env", "dev"}}));
  EXPECT_EQ(all.ownerKinds, std::vector<std::string>{"Job"});
  EXPECT_EQ(all.schedulerNames, std::vector<std::string>{"default-scheduler"});
  EXPECT_EQ(all.resources, std::vector<std::string>{"nvidia.com/gpu"});
  ASSERT_TRUE(c.allowedNamespaces.has_value());
  EXPECT_EQ(c.allowedNamespaces->names, (std::vector<std::string>{"ml", "research"}));
  EXPECT_EQ(c.priorityClassName, "gpu-training");
  EXPECT_TRUE(c.overridePriorityClass);
  EXPECT_EQ(c.allowedPriorityClasses, std::vector<std::string>{"gpu-low"});
  EXPECT_EQ(c.gpus.request, GpuRequest::Optional);
  EXPECT_EQ(c.gpus.maxPerPod, 8);
  EXPECT_EQ(c.gpus.maxPerContainer, 4);
  EXPECT_EQ(c.maxRunSeconds, 3600);

  ASSERT_EQ(p.skip.size(), 2u);
  EXPECT_EQ(p.skip[0].action, SkipRule::Action::Skip);
  EXPECT_EQ(p.skip[1].action, SkipRule::Action::ValidateOnly);
  const Quota& q = p.quotas.at(0);
  EXPECT_EQ(q.scope, Quota::Scope::PerNamespace);
  EXPECT_EQ(q.gpuEquivalents, 2.5);
  EXPECT_EQ(q.perClass.at("c"), 2.0);
  EXPECT_EQ(q.perResource.at("nvidia.com/gpu"), 2);
  ASSERT_EQ(p.rollout.size(), 2u);
  EXPECT_EQ(p.rollout[0].mode, Mode::Enforce);
  EXPECT_EQ(p.rollout[1].mode, Mode::Audit);
  EXPECT_FALSE(p.rollout[1].namespaces.has_value());
  ASSERT_EQ(p.templateKinds.size(), 2u);
  EXPECT_EQ(p.templateKinds[0].templatePaths,
            std::vector<std::string>{"spec.pytorchReplicaSpecs.*.template"});
  EXPECT_EQ(p.templateKinds[1].apiGroup, "");
  EXPECT_EQ(p.globalDefaultPriorityClass, "default-priority");
  EXPECT_EQ(p.quotaUnavailable, QuotaUnavailable::FailClosed);
}

TEST(LoaderResolve, TemplateKindPodLabels) {
  auto r =
      load(doc("  templates:\n"
               "  - apiGroup: ray.io\n"
               "    kind: RayJob\n"
               "    paths: [spec.head.template, spec.workers.*.template]\n"
               "    podLabels: {ray.io/originated-from-crd: RayJob, ray.io/cr: $(name)}\n"
               "    podLabelsByPath:\n"
               "      spec.head.template: {ray.io/node-type: head}\n"
               "      spec.workers.*.template: {ray.io/node-type: worker, group: g-$(replica)}\n"));
  ASSERT_TRUE(r.ok()) << testing::allErrors(r);
  const TemplateKind& t = r.policy->templateKinds.at(0);
  EXPECT_EQ(t.podLabels.at("ray.io/originated-from-crd"), "RayJob");
  EXPECT_EQ(t.podLabels.at("ray.io/cr"), "$(name)");  // filled in by the engine
  ASSERT_EQ(t.podLabelsByPath.size(), 2u);
  EXPECT_EQ(t.podLabelsByPath.at("spec.head.template").at("ray.io/node-type"), "head");
  EXPECT_EQ(t.podLabelsByPath.at("spec.workers.*.template").at("group"), "g-$(replica)");
}

TEST(LoaderResolve, DefaultsOfAnAlmostEmptyPolicy) {
  auto r = load(doc("  pools: []\n"));
  ASSERT_TRUE(r.ok()) << testing::allErrors(r);
  const PolicySet& p = *r.policy;
  EXPECT_FALSE(p.hasExemptions);
  EXPECT_TRUE(p.rollout.empty());
  EXPECT_FALSE(p.globalDefaultPriorityClass.has_value());
  EXPECT_EQ(p.quotaUnavailable, QuotaUnavailable::FailOpen);
  EXPECT_EQ(p.sourceFiles, std::vector<std::string>{"p.yaml"});
}

TEST(LoaderResolve, MutateTemplatesNamesJudgedWorkloadKinds) {
  const std::string templates =
      "  templates:\n"
      "  - {apiGroup: kubeflow.org, kind: PyTorchJob, paths: "
      "[spec.pytorchReplicaSpecs.*.template]}\n"
      "  - {apiGroup: example.com, kind: Deployment, paths: [spec.template]}\n";
  auto ok = load(doc(templates + "  mutateTemplates: [batch/Job, PyTorchJob, apps/Deployment]\n"));
  ASSERT_NE(ok.policy, nullptr) << testing::allErrors(ok);
  EXPECT_TRUE(ok.policy->mutatesTemplates("batch", "Job"));
  EXPECT_TRUE(ok.policy->mutatesTemplates("kubeflow.org", "PyTorchJob"));
  EXPECT_TRUE(ok.policy->mutatesTemplates("apps", "Deployment"));
  EXPECT_FALSE(ok.policy->mutatesTemplates("example.com", "Deployment"));
  auto bad = load(doc(templates + "  mutateTemplates: [Deployment, apps/Deploymnt]\n"));
  expectError(bad, "spec.mutateTemplates[0]",
              "p.yaml:8:21: spec.mutateTemplates[0]: 'Deployment' names several kinds (hint: "
              "write it with its API group, e.g. 'apps/Deployment')");
  expectError(bad, "spec.mutateTemplates[1]",
              "p.yaml:8:33: spec.mutateTemplates[1]: 'apps/Deploymnt' is not a workload kind "
              "whose templates are judged (hint: did you mean 'apps/Deployment'?)");
}

}  // namespace
}  // namespace gpua::policy
