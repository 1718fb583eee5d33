// Each kind of policy error: exact file:line:column, key path, message and hint.
#include <gtest/gtest.h>

#include "policy_test_support.hpp"

namespace gpua::policy {
namespace {

using testing::doc;
using testing::errorAt;
using testing::expectError;
using testing::load;

const std::string kPoolAndClass =  // lines 5-10
    "  pools:\n"
    "  - {name: p, gpu: H100-80GB}\n"
    "  classes:\n"
    "  - name: c\n"
    "    match: {any: [{labels: {a: b}}]}\n"
    "    pools: [p]\n";

TEST(LoaderErrors, UnknownKeyNamesTheNearestKnownKey) {
  auto r =
      load(doc("  pools:\n"
               "  - name: p\n"
               "    gpu: H100-80GB\n"
               "    nodeselector: {a: b}\n"));
  expectError(r, "spec.pools[0].nodeselector",
              "p.yaml:8:5: spec.pools[0].nodeselector: unknown key 'nodeselector' "
              "(hint: did you mean 'nodeSelector'?)");
}

TEST(LoaderErrors, UnknownKeyFarFromAnyListsTheKnownKeys) {
  auto r = load(doc("  exempt: {colour: blue}\n"));
  expectError(r, "spec.exempt.colour",
              "p.yaml:5:12: spec.exempt.colour: unknown key 'colour' (hint: expected one of: "
              "namespaces, images)");
}

TEST(LoaderErrors, StringWhereIntegerExpected) {
  auto r = load(doc(kPoolAndClass + "    gpus: {maxPerPod: eight}\n"));
  expectError(r, "spec.classes[0].gpus.maxPerPod",
              "p.yaml:11:23: spec.classes[0].gpus.maxPerPod: expected an integer, got \"eight\"");
}

TEST(LoaderErrors, QuotedNumberIsAString) {
  auto r = load(doc(kPoolAndClass + "    maxRunSeconds: \"3600\"\n"));
  expectError(r, "spec.classes[0].maxRunSeconds",
              "p.yaml:11:20: spec.classes[0].maxRunSeconds: expected an integer, got string "
              "\"3600\" (hint: remove the quotes)");
}

TEST(LoaderErrors, IntegerBelowMinimum) {
  auto r = load(doc(kPoolAndClass + "    gpus: {maxPerContainer: 0}\n"));
  expectError(r, "spec.classes[0].gpus.maxPerContainer",
              "p.yaml:11:29: spec.classes[0].gpus.maxPerContainer: must be at least 1, got 0");
}

TEST(LoaderErrors, ScalarWhereListExpected) {
  auto r =
      load(doc("  pools:\n"
               "  - {name: p, gpu: H100-80GB}\n"
               "  classes:\n"
               "  - name: c\n"
               "    match: {any: [{labels: {a: b}}]}\n"
               "    pools: p\n"));
  expectError(r, "spec.classes[0].pools",
              "p.yaml:10:12: spec.classes[0].pools: expected a list, got \"p\" "
              "(hint: write a one-element list: [p])");
}

TEST(LoaderErrors, ListWhereMappingExpected) {
  auto r =
      load(doc("  pools:\n"
               "  - name: p\n"
               "    gpu: H100-80GB\n"
               "    nodeSelector: [a, b]\n"));
  expectError(r, "spec.pools[0].nodeSelector",
              "p.yaml:8:19: spec.pools[0].nodeSelector: expected a mapping, got a list");
}

TEST(LoaderErrors, BooleanMustBeTrueOrFalse) {
  auto r = load(doc(kPoolAndClass + "    priorityClassName: x\n    overridePriorityClass: yes\n"));
  expectError(r, "spec.classes[0].overridePriorityClass",
              "p.yaml:12:28: spec.classes[0].overridePriorityClass: expected true or false, got "
              "\"yes\"");
}

TEST(LoaderErrors, MissingRequiredFieldPointsAtTheMapping) {
  auto r =
      load(doc("  pools:\n"
               "  - name: p\n"
               "    sharing: exclusive\n"));
  expectError(r, "spec.pools[0].gpu",
              "p.yaml:6:5: spec.pools[0].gpu: missing required field 'gpu'");
}

TEST(LoaderErrors, MissingSpec) {
  auto r = load("apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\nmetadata: {name: x}\n");
  expectError(r, "spec", "p.yaml:1:1: spec: missing required field 'spec'");
}

TEST(LoaderErrors, WrongApiVersionAndKind) {
  auto r = load("apiVersion: gpu-admission.io/v2\nkind: Policy\nmetadata: {name: x}\nspec: {}\n");
  expectError(r, "apiVersion",
              "p.yaml:1:13: apiVersion: unsupported apiVersion 'gpu-admission.io/v2' "
              "(hint: use apiVersion: gpu-admission.io/v1)");
  expectError(r, "kind", "p.yaml:2:7: kind: unsupported kind 'Policy' (hint: use kind: GpuPolicy)");
}

TEST(LoaderErrors, ClassNamingAMissingPool) {
  auto r = load(doc(kPoolAndClass + "  - name: d\n"
                                    "    match: {any: [{labelKeys: [x]}]}\n"
                                    "    pools: [p, q]\n"));
  expectError(r, "spec.classes[1].pools[1]",
              "p.yaml:13:16: spec.classes[1].pools[1]: unknown pool 'q' (hint: did you mean "
              "'p'?)");
}

TEST(LoaderErrors, UnclassifiedGpuPodsNamingAMissingClass) {
  auto r = load(doc(kPoolAndClass + "  unclassifiedGpuPods: cc\n"));
  expectError(r, "spec.unclassifiedGpuPods",
              "p.yaml:11:24: spec.unclassifiedGpuPods: unknown class 'cc' (hint: did you mean "
              "'c'?)");
}

TEST(LoaderErrors, UnclassifiedGpuPodsCannotGoToACpuClass) {
  auto r =
      load(doc("  classes:\n"
               "  - name: cpu\n"
               "    match: {any: [{labelKeys: [x]}]}\n"
               "  unclassifiedGpuPods: cpu\n"));
  expectError(r, "spec.unclassifiedGpuPods",
              "p.yaml:8:24: spec.unclassifiedGpuPods: class 'cpu' forbids GPUs, so it cannot take "
              "unclassified GPU pods (hint: name a class with pools, or use deny or allow)");
}

TEST(LoaderErrors, QuotaPerClassNamingAMissingClass) {
  auto r = load(doc(kPoolAndClass + "  quotas:\n"
                                    "  - name: q\n"
                                    "    perClass: {c: 1, training: 2}\n"));
  expectError(r, "spec.quotas[0].perClass.training",
              "p.yaml:13:22: spec.quotas[0].perClass.training: unknown class 'training' "
              "(hint: expected one of: c)");
}

TEST(LoaderErrors, MigProfileTheGpuDoesNotHave) {
  auto r =
      load(doc("  pools:\n"
               "  - name: infer\n"
               "    gpu: A100-80GB\n"
               "    sharing: mig\n"
               "    migProfiles: [1g.10gb, 3g.20gb]\n"));
  expectError(r, "spec.pools[0].migProfiles[1]",
              "p.yaml:9:28: spec.pools[0].migProfiles[1]: MIG profile '3g.20gb' does not exist "
              "on A100-80GB (hint: did you mean '3g.40gb'?)");
}

TEST(LoaderErrors, MigOnAGpuWithoutMig) {
  auto r =
      load(doc("  pools:\n"
               "  - {name: dev, gpu: L4, sharing: mig, migProfiles: [1g.10gb]}\n"));
  expectError(r, "spec.pools[0].sharing",
              "p.yaml:6:35: spec.pools[0].sharing: GPU model L4 does not support MIG (hint: MIG "
              "models: A100-40GB, A100-80GB, H100-80GB, H100-NVL, H200, A30; use exclusive, "
              "time-slicing or mps)");
}

TEST(LoaderErrors, MigPoolWithoutProfiles) {
  auto r =
      load(doc("  pools:\n"
               "  - {name: m, gpu: A30, sharing: mig}\n"));
  expectError(r, "spec.pools[0].migProfiles",
              "p.yaml:6:5: spec.pools[0].migProfiles: a MIG pool needs migProfiles (hint: "
              "profiles of A30: 1g.6gb, 2g.12gb, 4g.24gb)");
}

TEST(LoaderErrors, TimeSlicingNeedsAtLeastTwoReplicas) {
  auto r =
      load(doc("  pools:\n"
               "  - {name: a, gpu: T4, sharing: time-slicing, replicas: 1}\n"
               "  - {name: b, gpu: T4, sharing: mps}\n"));
  expectError(r, "spec.pools[0].replicas",
              "p.yaml:6:57: spec.pools[0].replicas: must be at least 2, got 1");
  expectError(r, "spec.pools[1].replicas",
              "p.yaml:7:5: spec.pools[1].replicas: missing required field 'replicas' for "
              "sharing: mps (hint: set the device plugin's replicas per GPU (at least 2))");
}

TEST(LoaderErrors, FieldsThatDoNotFitTheSharingMode) {
  auto r =
      load(doc("  pools:\n"
               "  - {name: a, gpu: T4, replicas: 4, migProfiles: [1g.5gb]}\n"
               "  - {name: b, gpu: A30, sharing: mig, migProfiles: [1g.6gb], resource: x}\n"));
  expectError(r, "spec.pools[0].replicas",
              "p.yaml:6:34: spec.pools[0].replicas: replicas needs sharing: time-slicing or mps");
  expectError(r, "spec.pools[0].migProfiles",
              "p.yaml:6:50: spec.pools[0].migProfiles: migProfiles needs sharing: mig");
  expectError(r, "spec.pools[1].resource",
              "p.yaml:7:72: spec.pools[1].resource: a MIG pool's resources are named by profile "
              "(nvidia.com/mig-<profile>) (hint: remove resource; classes pick a profile with "
              "gpus.migProfile)");
}

TEST(LoaderErrors, UnknownGpuModel) {
  auto r =
      load(doc("  pools:\n"
               "  - {name: a, gpu: H100-80G}\n"));
  expectError(r, "spec.pools[0].gpu",
              "p.yaml:6:20: spec.pools[0].gpu: unknown GPU model 'H100-80G' (hint: did you mean "
              "'H100-80GB'?)");
}

TEST(LoaderErrors, DuplicateNamesInOneFile) {
  auto r =
      load(doc("  pools:\n"
               "  - {name: p, gpu: H100-80GB}\n"
               "  - {name: p, gpu: L4}\n"
               "  classes:\n"
               "  - {name: c, match: {any: [{labelKeys: [a]}]}}\n"
               "  - {name: c, match: {any: [{labelKeys: [b]}]}}\n"
               "  quotas:\n"
               "  - {name: q, gpuEquivalents: 1}\n"
               "  - {name: q, gpuEquivalents: 2}\n"));
  expectError(r, "spec.pools[1].name",
              "p.yaml:7:12: spec.pools[1].name: duplicate pool 'p' (hint: first defined at "
              "p.yaml:6:12; names must be unique)");
  expectError(r, "spec.classes[1].name",
              "p.yaml:10:12: spec.classes[1].name: duplicate class 'c' (hint: first defined at "
              "p.yaml:9:12; names must be unique)");
  expectError(r, "spec.quotas[1].name",
              "p.yaml:13:12: spec.quotas[1].name: duplicate quota 'q' (hint: first defined at "
              "p.yaml:12:12; names must be unique)");
}

TEST(LoaderErrors, DuplicateKeyInOneMapping) {
  auto r =
      load(doc("  pools:\n"
               "  - name: p\n"
               "    gpu: H100-80GB\n"
               "    gpu: L4\n"));
  expectError(r, "spec.pools[0].gpu",
              "p.yaml:8:5: spec.pools[0].gpu: duplicate key 'gpu' (hint: a YAML mapping holds "
              "each key once; remove one)");
}

TEST(LoaderErrors, EmptyClassMatcher) {
  auto r = load(doc(kPoolAndClass + "  - name: d\n"
                                    "    match: {any: []}\n"
                                    "    pools: [p]\n"));
  expectError(r, "spec.classes[1].match",
              "p.yaml:12:12: spec.classes[1].match: empty matcher: a class must match something "
              "(hint: add rules under match.any (one must hold) or match.all (all must hold))");
}

TEST(LoaderErrors, EmptyMatchRule) {
  auto r =
      load(doc("  skip:\n"
               "  - name: s\n"
               "    match: {labels: {}}\n"));
  expectError(r, "spec.skip[0].match",
              "p.yaml:7:12: spec.skip[0].match: empty matcher: a rule must test at least one "
              "thing (hint: add labels, labelKeys, annotations, annotationKeys, namespaces, "
              "ownerKinds, schedulerNames, resources, images or deviceClasses)");
}

TEST(LoaderErrors, EmptyNamespaceSelector) {
  auto r =
      load(doc("  rollout:\n"
               "  - {namespaces: {names: []}, mode: warn}\n"));
  expectError(r, "spec.rollout[0].namespaces",
              "p.yaml:6:18: spec.rollout[0].namespaces: empty namespace selector (hint: list "
              "names, matchLabels or matchExpressions; omit the key to mean every namespace)");
}

TEST(LoaderErrors, UnknownEnumValues) {
  auto r = load(doc(kPoolAndClass + "    gpus: {request: mandatory}\n"));
  expectError(r, "spec.classes[0].gpus.request",
              "p.yaml:11:21: spec.classes[0].gpus.request: unknown value 'mandatory' "
              "(hint: expected one of: required, optional, forbidden)");
  auto s =
      load(doc("  pools:\n"
               "  - {name: a, gpu: T4, sharing: timeslicing, replicas: 2}\n"
               "  quotaUnavailable: failclosed\n"));
  expectError(s, "spec.pools[0].sharing",
              "p.yaml:6:33: spec.pools[0].sharing: unknown value 'timeslicing' (hint: did you "
              "mean 'time-slicing'?)");
  expectError(s, "spec.quotaUnavailable",
              "p.yaml:7:21: spec.quotaUnavailable: unknown value 'failclosed' (hint: did you "
              "mean 'failClosed'?)");
}

TEST(LoaderErrors, SelectorOperatorRules) {
  auto r =
      load(doc("  exempt:\n"
               "    namespaces:\n"
               "      matchExpressions:\n"
               "      - {key: a, operator: In}\n"
               "      - {key: b, operator: Exists, values: [x]}\n"
               "      - {key: c, operator: in, values: [x]}\n"));
  expectError(r, "spec.exempt.namespaces.matchExpressions[0].values",
              "p.yaml:8:9: spec.exempt.namespaces.matchExpressions[0].values: operator In needs "
              "values");
  expectError(r, "spec.exempt.namespaces.matchExpressions[1].values",
              "p.yaml:9:44: spec.exempt.namespaces.matchExpressions[1].values: operator Exists "
              "takes no values");
  expectError(r, "spec.exempt.namespaces.matchExpressions[2].operator",
              "p.yaml:10:28: spec.exempt.namespaces.matchExpressions[2].operator: unknown value "
              "'in' (hint: did you mean 'In'?)");
}

TEST(LoaderErrors, ClassGpuRequestMustFitItsPools) {
  auto r = load(doc(kPoolAndClass + "    gpus: {request: forbidden}\n"
                                    "  - name: d\n"
                                    "    match: {any: [{labelKeys: [x]}]}\n"
                                    "    gpus: {request: optional}\n"));
  expectError(r, "spec.classes[0].gpus.request",
              "p.yaml:11:21: spec.classes[0].gpus.request: a class that forbids GPUs cannot have "
              "GPU pools (hint: remove pools, or set gpus.request to required or optional)");
  expectError(r, "spec.classes[1].gpus.request",
              "p.yaml:14:21: spec.classes[1].gpus.request: a class that takes GPUs needs pools "
              "(hint: list the pools its pods run on, or set gpus.request: forbidden)");
}

TEST(LoaderErrors, ReservedPriorityClassAndOverrideWithoutName) {
  auto r = load(doc(kPoolAndClass + "    priorityClassName: system-node-critical\n"
                                    "  - name: d\n"
                                    "    match: {any: [{labelKeys: [x]}]}\n"
                                    "    overridePriorityClass: true\n"));
  expectError(r, "spec.classes[0].priorityClassName",
              "p.yaml:11:24: spec.classes[0].priorityClassName: priority classes starting with "
              "'system-' are reserved for Kubernetes components");
  expectError(r, "spec.classes[1].overridePriorityClass",
              "p.yaml:14:28: spec.classes[1].overridePriorityClass: overridePriorityClass needs "
              "priorityClassName");
}

TEST(LoaderErrors, MalformedClassMigProfile) {
  auto r = load(doc(kPoolAndClass + "    gpus: {migProfile: 2g20gb}\n"));
  expectError(r, "spec.classes[0].gpus.migProfile",
              "p.yaml:11:24: spec.classes[0].gpus.migProfile: malformed MIG profile '2g20gb' "
              "(hint: MIG profiles look like <slices>g.<memory>gb, e.g. 2g.20gb)");
}

TEST(LoaderErrors, QuotaWithoutLimit) {
  auto r =
      load(doc("  quotas:\n"
               "  - name: q\n"
               "    namespaces: [a]\n"));
  expectError(r, "spec.quotas[0]",
              "p.yaml:6:5: spec.quotas[0]: quota 'q' sets no limit (hint: set gpuEquivalents, "
              "perClass or perResource)");
}

TEST(LoaderErrors, UnreachableRolloutRule) {
  auto r =
      load(doc("  rollout:\n"
               "  - {mode: warn}\n"
               "  - {namespaces: [a], mode: enforce}\n"));
  expectError(r, "spec.rollout[1]",
              "p.yaml:7:5: spec.rollout[1]: unreachable rollout rule (hint: the rule at "
              "p.yaml:6:5 matches every namespace and comes first; move the catch-all last)");
}

TEST(LoaderErrors, MalformedTemplatePathAndDuplicateKind) {
  auto r =
      load(doc("  templates:\n"
               "  - {apiGroup: kubeflow.org, kind: PyTorchJob, paths: [spec..template]}\n"
               "  - {apiGroup: kubeflow.org, kind: PyTorchJob, paths: [spec.x.template]}\n"));
  expectError(r, "spec.templates[0].paths[0]",
              "p.yaml:6:56: spec.templates[0].paths[0]: malformed template path "
              "'spec..template' (hint: dot-separated keys from the object root, '*' for every "
              "key or element, e.g. spec.pytorchReplicaSpecs.*.template)");
  expectError(r, "spec.templates[1].kind",
              "p.yaml:7:36: spec.templates[1].kind: duplicate template kind "
              "'PyTorchJob.kubeflow.org' (hint: first defined at p.yaml:6:36; names must be "
              "unique)");
}

TEST(LoaderErrors, TemplatePodLabels) {
  auto r =
      load(doc("  templates:\n"
               "  - apiGroup: kubeflow.org\n"
               "    kind: PyTorchJob\n"
               "    paths: [spec.pytorchReplicaSpecs.*.template, spec.extra]\n"
               "    podLabels: {job: $(job), type: $(replica), n: [x]}\n"
               "    podLabelsByPath: {spec.other: {a: b}}\n"
               "    podlabels: {}\n"));
  expectError(r, "spec.templates[0].podLabels.job",
              "p.yaml:9:22: spec.templates[0].podLabels.job: unknown placeholder in '$(job)' "
              "(hint: use $(name) for the object's name or $(replica) for the key a '*' "
              "matched)");
  expectError(r, "spec.templates[0].podLabels.type",
              "p.yaml:9:36: spec.templates[0].podLabels.type: $(replica) needs a '*' in path "
              "'spec.extra' (hint: use $(replica) only for paths with a '*', e.g. "
              "spec.pytorchReplicaSpecs.*.template)");
  expectError(r, "spec.templates[0].podLabels.n",
              "p.yaml:9:51: spec.templates[0].podLabels.n: expected a string, got a list");
  expectError(r, "spec.templates[0].podLabelsByPath.spec.other",
              "p.yaml:10:23: spec.templates[0].podLabelsByPath.spec.other: 'spec.other' is not "
              "one of the kind's paths (hint: each key of podLabelsByPath must be written "
              "exactly as in paths)");
  ASSERT_NE(errorAt(r, "spec.templates[0].podlabels"), nullptr) << testing::allErrors(r);
}

TEST(LoaderErrors, DocumentThatIsNotAMapping) {
  auto r = load("- a\n- b\n");
  expectError(r, "", "p.yaml:1:1: expected a mapping, got a list");
}

TEST(LoaderErrors, EveryErrorIsCollectedNotJustTheFirst) {
  auto r =
      load(doc("  pools:\n"
               "  - {name: a, gpu: X1}\n"
               "  - {name: b, gpu: L4, sharing: mig, migProfiles: [1g.5gb]}\n"
               "  classes:\n"
               "  - {name: c, match: {any: [{labelKeys: [k]}]}, pools: [zz]}\n"
               "  quotaUnavailable: never\n"));
  EXPECT_EQ(r.policy, nullptr);
  EXPECT_NE(errorAt(r, "spec.pools[0].gpu"), nullptr);
  EXPECT_NE(errorAt(r, "spec.pools[1].sharing"), nullptr);
  EXPECT_NE(errorAt(r, "spec.classes[0].pools[0]"), nullptr);
  EXPECT_NE(errorAt(r, "spec.quotaUnavailable"), nullptr);
  EXPECT_EQ(r.errors.size(), 4u) << testing::allErrors(r);
}

}  // namespace
}  // namespace gpua::policy
