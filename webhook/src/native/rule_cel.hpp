// The building blocks the compiled rules share (rules_cel.cpp, resource_rules_cel.cpp): a
// violation when a condition holds, a message per container, the first container that breaks a
// rule, and the CEL test of a rule scope (`appliesTo`). Each reads the variables of
// podVariables().
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "engine/classify/class_placement.hpp"
#include "policy/policy_set.hpp"

namespace gpua::native {

// The pod's subject in messages ("pod \"name\""), engine/pod/pod_view's subject.
inline constexpr const char* kSubject = "variables.subject";

// One compiled rule: its id (for ruleExemptions) and its CEL list of messages.
struct RuleList {
  std::string_view rule;
  std::string list;
};

// `cond ? [msg] : []`
inline std::string one(const std::string& cond, const std::string& msg) {
  return "(" + cond + " ? [" + msg + "] : [])";
}

// For the app containers then the init containers matching `cond(c)`: `msg(c, init)` each.
inline std::string perContainer(const std::function<std::string(const std::string&)>& cond,
                                const std::function<std::string(const std::string&, bool)>& msg) {
  return "(variables.ctrs.filter(c, " + cond("c") + ").map(c, " + msg("c", false) +
         ") + variables.inits.filter(c, " + cond("c") + ").map(c, " + msg("c", true) + "))";
}

// The first container (app, then init) for which `cond(c)` holds: `msg(c, init)`, else `none`.
inline std::string firstContainer(const std::function<std::string(const std::string&)>& cond,
                                  const std::function<std::string(const std::string&, bool)>& msg,
                                  const std::string& none) {
  return "(variables.ctrs.exists(c, " + cond("c") + ") ? cel.bind(c, variables.ctrs.filter(c, " +
         cond("c") + ")[0], " + msg("c", false) + ") : variables.inits.exists(c, " + cond("c") +
         ") ? cel.bind(c, variables.inits.filter(c, " + cond("c") + ")[0], " + msg("c", true) +
         ") : " + none + ")";
}

// engine::inRuleScope for the pods of class `cls` (variables.cls already tested).
inline std::string scopeTest(policy::RuleScope scope, const policy::WorkloadClass& cls) {
  if (engine::isAllPodsRules(cls)) return scope == policy::RuleScope::AllPods ? "true" : "false";
  switch (scope) {
    case policy::RuleScope::GpuPods:
      return "variables.hasGpu";
    case policy::RuleScope::PlacedPods:
      return engine::placesCpuPods(cls) ? "true" : "variables.hasGpu";
    case policy::RuleScope::ClassPods:
    case policy::RuleScope::AllPods:
      return "true";
  }
  return "true";
}

}  // namespace gpua::native
