// The guard rules' CEL (native/guard_rules_cel): what each rule compiles to for a small policy,
// where violationList() places it (the engine's order), namespace exemptions per rule, and that
// a rule the policy does not use compiles nothing. That the CEL decides and words like the
// webhook on a real apiserver is the live suite's (TestLive/NativeBackstop).
#include "native/guard_rules_cel.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "native/cel_text.hpp"
#include "native/mutations_cel.hpp"
#include "native/rules_cel.hpp"
#include "native_test_support.hpp"
#include "policy/rule_ids.hpp"

namespace gpua::native {
namespace {

using testing::load;
namespace rules = policy::rules;

std::string policyWith(const std::string& spec, const std::string& classes = "") {
  return "apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\nmetadata: {name: t}\nspec:\n"
         "  pools:\n"
         "  - {name: h100, gpu: H100-80GB, nodeSelector: {pool: h100},\n"
         "     taints: [{key: nvidia.com/gpu, effect: NoSchedule}], runtimeClassName: nvidia}\n"
         "  cpuPools:\n"
         "  - {name: etl, nodeSelector: {pool: etl}, runtimeClassName: gvisor}\n"
         "  classes:\n"
         "  - {name: train, match: {any: [{labels: {c: train}}]}, pools: [h100]}\n"
         "  - {name: etl, match: {any: [{labels: {c: etl}}]}, gpus: {request: forbidden},\n"
         "     cpuPools: [etl]}\n" +
         classes + spec;
}

// Where `needle` starts in `hay` (npos fails the test).
std::size_t at(const std::string& hay, const std::string& needle, std::size_t from = 0) {
  const auto pos = hay.find(needle, from);
  EXPECT_NE(pos, std::string::npos) << "no " << needle;
  return pos;
}

const RuleList* find(const std::vector<RuleList>& lists, const std::string& rule) {
  const auto it = std::find_if(lists.begin(), lists.end(), [&](const RuleList& l) {
    return l.rule == rule && !l.list.empty();
  });
  return it == lists.end() ? nullptr : &*it;
}

const char* const kGuards =
    "  fieldGuards:\n"
    "    forbidNodeName: true\n"
    "    forbidNodeSelector: true\n"
    "    forbidNodeAffinity: true\n"
    "    forbidTolerations: [nvidia.com/gpu, node-role.kubernetes.io/control-plane]\n";

TEST(GuardRulesCel, EveryGuardRuleIsCompiledAndKnown) {
  const auto& ids = compiledRuleIds();
  for (const char* id :
       {rules::kNodeNameForbidden, rules::kNodeSelectorForbidden, rules::kNodeAffinityForbidden,
        rules::kTolerationForbidden, rules::kRuntimeClassNotAllowed, rules::kRequiredLabelMissing,
        rules::kPriorityClassMissing, rules::kNodeSelectorConflict, rules::kCheckpointMissing,
        rules::kCheckpointDangling, rules::kCheckpointInvalid})
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
}

TEST(GuardRulesCel, PlacementGuardsComeAfterTheDeviceGuardAndBeforeUnclassifiedAndClassRules) {
  const std::string list = violationList(load(policyWith(kGuards)));
  const auto devices = at(list, "sets \" + e.name");
  const auto name = at(list, "sets spec.nodeName");
  const auto selector = at(list, "selects nodes by spec.nodeSelector (");
  const auto affinity = at(list, "sets node affinity (");
  const auto toleration = at(list, "tolerates the taint");
  // field_guards.cpp's order: nodeName, nodeSelector, node affinity, tolerations.
  EXPECT_LT(devices, name);
  EXPECT_LT(name, selector);
  EXPECT_LT(selector, affinity);
  EXPECT_LT(affinity, toleration);
  EXPECT_LT(toleration, at(list, "matches no GPU class of policy"));
  EXPECT_LT(toleration, at(list, R"((variables.cls == "train" ? )", toleration));
  // The policy's words, quoted as the engine quotes them.
  EXPECT_NE(list.find(R"(which policy \"t\" forbids (fieldGuards.forbidNodeName): remove )"
                      R"(spec.nodeName and let the scheduler place the pod)"),
            std::string::npos);
  EXPECT_NE(list.find(R"(" tolerates every taint, nvidia.com/gpu included")"), std::string::npos);
}

TEST(GuardRulesCel, WhatTheClassWritesForItsPodsNeverCounts) {
  const auto guards = placementGuards(load(policyWith(kGuards)));
  ASSERT_EQ(guards.size(), 4u);
  // A GPU pod of train: its pool's label, requirement and toleration; a CPU pod of etl: its CPU
  // pool's; a pod of no class: none.
  const auto* selector = find(guards, rules::kNodeSelectorForbidden);
  ASSERT_NE(selector, nullptr);
  EXPECT_NE(selector->list.find(R"((variables.cls == "train" ? (variables.hasGpu ? [["pool", )"
                                R"("h100"]] : []) : (variables.cls == "etl" ? (variables.hasGpu )"
                                R"(? [] : [["pool", "etl"]]) : []))"),
            std::string::npos)
      << selector->list;
  const auto* affinity = find(guards, rules::kNodeAffinityForbidden);
  ASSERT_NE(affinity, nullptr);
  EXPECT_NE(affinity->list.find(R"([["pool", "In", "h100"]])"), std::string::npos);
  EXPECT_NE(affinity->list.find(R"(o.kind == "DaemonSet")"), std::string::npos);
  const auto* toleration = find(guards, rules::kTolerationForbidden);
  ASSERT_NE(toleration, nullptr);
  EXPECT_NE(toleration->list.find(R"([["nvidia.com/gpu", "Exists", "", "NoSchedule"]])"),
            std::string::npos);
  // The keys the webhook lists are those of the apiserver's JSON: sorted.
  EXPECT_NE(selector->list.find("size(ss.filter(j, j < s)) == i"), std::string::npos);
}

TEST(GuardRulesCel, AGuardOffCompilesNothing) {
  EXPECT_TRUE(placementGuards(load(policyWith(""))).empty());
  const auto one = placementGuards(load(policyWith("  fieldGuards: {forbidNodeName: true}\n")));
  EXPECT_NE(find(one, rules::kNodeNameForbidden), nullptr);
  EXPECT_EQ(find(one, rules::kNodeSelectorForbidden), nullptr);
  EXPECT_EQ(find(one, rules::kNodeAffinityForbidden), nullptr);
  EXPECT_EQ(find(one, rules::kTolerationForbidden), nullptr);
  const std::string list = violationList(load(policyWith("")));
  EXPECT_EQ(list.find("sets spec.nodeName"), std::string::npos);
  EXPECT_EQ(list.find("names runtimeClassName"), std::string::npos);
  EXPECT_EQ(list.find("requires a checkpoint"), std::string::npos);
  EXPECT_EQ(list.find("sets spec.nodeSelector "), std::string::npos);
}

TEST(GuardRulesCel, ANamespaceExemptionDropsOnlyItsGuard) {
  const std::string list = violationList(load(policyWith(
      std::string(kGuards) +
      "  ruleExemptions:\n  - {rules: [node-selector-forbidden], namespaces: {names: [arm]}}\n")));
  EXPECT_NE(list.find(R"(((variables.nsName in ["arm"]) ? [] : cel.bind(ns, )"), std::string::npos);
  EXPECT_EQ(list.find(R"(((variables.nsName in ["arm"]) ? [] : (has(object.spec.nodeName))"),
            std::string::npos);
}

const char* const kAllowed =
    "  - {name: gated, match: {any: [{labels: {c: gated}}]}, pools: [h100],\n"
    "     allowedRuntimeClasses: [nvidia-cdi], requiredLabels: [team, {key: cost, values: [a, "
    "b]}],\n"
    "     requirePriorityClass: true, allowedPriorityClasses: [gpu-low]}\n";

const char* const kNamespaceRules =
    "  namespaceRules:\n"
    "  - namespaces: [prod]\n"
    "    priorityClassNames: [gpu-low, gpu-high]\n"
    "    runtimeClassNames: [nvidia]\n"
    "    requiredLabels: [app]\n"
    "  - namespaces: {matchLabels: {tier: all}}\n"
    "    appliesTo: allPods\n"
    "    requiredLabels: [owner]\n"
    "    requirePriorityClass: true\n";

TEST(GuardRulesCel, AllowedValuesFollowTheClassChecksInTheEnginesOrder) {
  const auto p = load(policyWith(kNamespaceRules, kAllowed));
  const std::string list = violationList(p);
  const auto gated = at(list, R"((variables.cls == "gated" ? )");
  // validate_class.cpp: the class's priority class check, then allowed_values.cpp: the class's
  // runtime class and labels, each namespace rule's priority class, runtime class and labels,
  // then a priority class required.
  const auto priority = at(list, "names priorityClassName", gated);
  const auto runtime = at(list, "\" names runtimeClassName \"", gated);
  const auto labels = at(list, R"(", but " + "class gated" + " requires it)", gated);
  const auto nsPriority = at(list, "would run with priorityClassName", gated);
  const auto nsRuntime = at(list, "would run with runtimeClassName", gated);
  const auto nsLabels = at(list, R"(requires it: set metadata.labels " + [(("app" in )", gated);
  const auto missing = at(list, "names no priorityClassName, but", gated);
  EXPECT_LT(priority, runtime);
  EXPECT_LT(runtime, labels);
  EXPECT_LT(labels, nsPriority);
  EXPECT_LT(nsPriority, nsRuntime);
  EXPECT_LT(nsRuntime, nsLabels);
  EXPECT_LT(nsLabels, missing);
  // The class's runtime classes: its pool's, then the ones it allows; its labels, one finding.
  EXPECT_NE(list.find(R"(!(rc in ["nvidia", "nvidia-cdi"]))", gated), std::string::npos);
  EXPECT_NE(list.find(R"(" but class gated allows only nvidia, nvidia-cdi: set )"
                      R"(spec.runtimeClassName: nvidia")",
                      gated),
            std::string::npos);
  EXPECT_NE(list.find(R"x("cost (one of a, b)")x", gated), std::string::npos);
  EXPECT_NE(list.find(R"("label cost=" + "\"" + )", gated), std::string::npos);
}

TEST(GuardRulesCel, ThePodsNoClassTakesAreJudgedByTheAllPodsRulesLast) {
  const std::string list = violationList(load(policyWith(kNamespaceRules)));
  const auto targeting = at(list, "targets GPU pool h100 (");
  // Only the allPods rule (scope allPods) judges them: its labels and its priority class.
  const auto allPods = at(list, R"(((variables.cls == "" && !variables.hasGpu) ? )", targeting);
  EXPECT_NE(list.find(R"(("owner" in variables.labels))", allPods), std::string::npos);
  EXPECT_NE(list.find("names no priorityClassName, but", allPods), std::string::npos);
  EXPECT_EQ(list.find(R"(("app" in variables.labels))", allPods), std::string::npos)
      << "the placedPods rule does not judge a pod no class takes";
  // unclassifiedGpuPods: allow judges the GPU pods of no class too.
  const std::string allow = violationList(
      load(policyWith(std::string(kNamespaceRules) + "  unclassifiedGpuPods: allow\n")));
  EXPECT_NE(allow.find(R"((variables.cls == "" ? )"), std::string::npos);
}

TEST(GuardRulesCel, NodeSelectorConflictsOnlyWhereTheClassKeepsOrDenies) {
  const char* const classes =
      "  - {name: keep, match: {any: [{labels: {c: keep}}]}, pools: [h100],\n"
      "     placement: {via: nodeSelector, onConflict: keep}}\n"
      "  - {name: over, match: {any: [{labels: {c: over}}]}, pools: [h100],\n"
      "     placement: {via: nodeSelector, onConflict: overwrite}}\n";
  const auto p = load(policyWith("", classes));
  EXPECT_EQ(nodeSelectorConflict(p, p.classes[0]), "") << "placement by node affinity";
  EXPECT_EQ(nodeSelectorConflict(p, p.classes[3]), "") << "overwrite";
  const std::string keep = nodeSelectorConflict(p, p.classes[2]);
  EXPECT_NE(keep.find(R"(("pool" in ns && ns["pool"] != "h100" ? [)"), std::string::npos) << keep;
  EXPECT_NE(
      keep.find(R"(" but class keep places its pods on pool h100, which needs pool=\"h100\": )"
                R"(remove that nodeSelector entry (the webhook sets it) or set it to \"h100\"")"),
      std::string::npos);
  // After the allowed values, before the checkpoints.
  const std::string list = violationList(p);
  EXPECT_LT(at(list, R"((variables.cls == "keep" ? )"), at(list, "\" sets spec.nodeSelector \""));
}

TEST(GuardRulesCel, CheckpointsByClassOrByPriorityTier) {
  const char* const classes =
      "  - {name: ckpt, match: {any: [{labels: {c: ckpt}}]}, pools: [h100],\n"
      "     requireCheckpoint: {volumes: [checkpoints]}}\n"
      "  - {name: tiered, match: {any: [{labels: {c: tiered}}]}, pools: [h100],\n"
      "     priorityClassName: gpu-training}\n";
  const auto p =
      load(policyWith("  priorityTiers:\n"
                      "  - {name: gpu-training, value: 10000, requireCheckpoint: {volumes: []}}\n",
                      classes));
  const auto byClass = checkpoints(p, p.classes[2]);
  ASSERT_EQ(byClass.size(), 3u);
  EXPECT_EQ(std::string(byClass[0].rule), rules::kCheckpointMissing);
  EXPECT_NE(byClass[0].list.find(
                R"(" is in class ckpt, which requires a checkpoint, and can be preempted, but )"
                R"(declares no checkpoint: annotate the pod gpu-admission.io/checkpoint: )"),
            std::string::npos)
      << byClass[0].list;
  EXPECT_NE(byClass[0].list.find(R"(v.name in ["checkpoints"])"), std::string::npos);
  EXPECT_NE(byClass[1].list.find(R"(.startsWith("pvc:"))"), std::string::npos);
  EXPECT_NE(byClass[1].list.find("cv.substring(4)"), std::string::npos);
  EXPECT_NE(byClass[2].list.find(".matches(\"(?s)^[A-Za-z][A-Za-z0-9+.-]*://.\")"),
            std::string::npos);
  // The tier of the priority class the pod runs with: the class's unless it names another.
  const auto byTier = checkpoints(p, p.classes[3]);
  EXPECT_NE(byTier[0].list.find(R"(cel.bind(tn, ((has(object.spec.priorityClassName) ? )"),
            std::string::npos)
      << byTier[0].list;
  EXPECT_NE(byTier[0].list.find(R"(tn == "gpu-training" ? )"), std::string::npos);
  EXPECT_NE(byTier[0].list.find("runs in priority tier gpu-training, which requires a checkpoint,"),
            std::string::npos);
  // A pod of another class naming the tier's priority class itself is judged too.
  EXPECT_NE(checkpoints(p, p.classes[0])[0].list.find(R"(tn == "gpu-training" ? )"),
            std::string::npos);
  // No rule, no checks.
  const auto none = load(policyWith(""));
  for (const auto& l : checkpoints(none, none.classes[0])) EXPECT_EQ(l.list, "") << l.rule;
}

TEST(GuardRulesCel, APlacementThatOverwritesWhatTheGuardReadsWaitsForTheCompiledRules) {
  const char* const classes =
      "  - {name: over, match: {any: [{labels: {c: over}}]}, pools: [h100],\n"
      "     placement: {via: nodeSelector, onConflict: overwrite}}\n";
  auto placement = [](const policy::PolicySet& p) {
    for (const auto& m : compiledMutations(p))
      if (m.name == "placement") return m;
    ADD_FAILURE() << "no placement mutation";
    return CompiledMutation{};
  };
  // The webhook judges an enforce pod as written: the value the class would overwrite is the
  // pod's own nodeSelector entry, which node-selector-forbidden refuses.
  const auto guarded =
      placement(load(policyWith("  fieldGuards: {forbidNodeSelector: true}\n", classes)));
  ASSERT_FALSE(guarded.variables.empty());
  EXPECT_EQ(guarded.variables.back().name, "violations");
  EXPECT_EQ(guarded.patch.rfind(
                R"(variables.mode == "enforce" && size(variables.violations) > 0 ? [] : )", 0),
            0u);
  // Without the guard (or without an overwriting class) nothing the rules read is changed.
  EXPECT_TRUE(placement(load(policyWith("", classes))).variables.empty());
  EXPECT_TRUE(
      placement(load(policyWith("  fieldGuards: {forbidNodeSelector: true}\n"))).variables.empty());
}

TEST(GuardRulesCel, SortedStringsAndTheFirstNonEmptyOne) {
  EXPECT_EQ(cel::firstNonEmpty("xs"),
            R"(cel.bind(hs, xs.filter(h, h != ""), size(hs) > 0 ? hs[0] : ""))");
  EXPECT_EQ(cel::sortedStrings("xs", 3),
            "cel.bind(ss, xs, size(ss) <= 1 || size(ss) > 3 ? ss : [0, 1, 2].filter(i, i < "
            "size(ss)).map(i, ss.filter(s, size(ss.filter(j, j < s)) == i)[0]))");
}

}  // namespace
}  // namespace gpua::native
