// namespaceLabelRules lists every rule that needs namespace labels, by key path.
#include "policy/namespace_label_rules.hpp"

#include <gtest/gtest.h>

namespace gpua::policy {
namespace {

NamespaceSelector byLabel(const char* key, const char* value) {
  NamespaceSelector s;
  s.labels.matchLabels[key] = value;
  return s;
}

NamespaceSelector byName(const char* name) {
  NamespaceSelector s;
  s.names.push_back(name);
  return s;
}

TEST(NamespaceLabelRules, NamesEveryLabelSelectorAndNoNameSelector) {
  PolicySet p;
  p.exemptNamespaces.names = {"kube-system"};
  WorkloadClass training;
  training.allowedNamespaces = byLabel("team", "vision");
  MatchRule byNs;
  byNs.namespaces = byLabel("serving", "true");
  MatchRule byNameOnly;
  byNameOnly.namespaces = byName("ml");
  training.match.any = {byNameOnly, byNs};
  p.classes.push_back(training);
  Quota named, labelled;
  named.namespaces = byName("ml");
  labelled.namespaces = byLabel("team", "vision");
  p.quotas = {named, labelled};
  p.rollout = {{byLabel("env", "dev"), Mode::Enforce}, {std::nullopt, Mode::Warn}};
  RuleExemption anywhere, labelledExemption;
  labelledExemption.namespaces = byLabel("team", "infra");
  p.ruleExemptions = {anywhere, labelledExemption};
  NamespaceRule namedRule, labelledRule;
  namedRule.namespaces = byName("prod");
  labelledRule.namespaces = byLabel("tier", "low");
  p.namespaceRules = {namedRule, labelledRule};

  EXPECT_EQ(namespaceLabelRules(p),
            (std::vector<std::string>{
                "spec.classes[0].allowedNamespaces", "spec.classes[0].match.any[1].namespaces",
                "spec.quotas[1].namespaces", "spec.rollout[0].namespaces",
                "spec.ruleExemptions[1].namespaces", "spec.namespaceRules[1].namespaces"}));
}

TEST(NamespaceLabelRules, EmptyForAPolicyThatSelectsNamespacesOnlyByName) {
  PolicySet p;
  p.exemptNamespaces.names = {"kube-system"};
  p.rollout = {{byName("dev"), Mode::Enforce}};
  EXPECT_TRUE(namespaceLabelRules(p).empty());
}

}  // namespace
}  // namespace gpua::policy
