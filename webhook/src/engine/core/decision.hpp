// The engine's output: which class, why, what to change, what to tell the user, and whether to
// admit. Adapters (admission/, cli/) turn it into an AdmissionReview response or a report.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/annotation_map.hpp"
#include "engine/core/kept_optional.hpp"
#include "engine/core/patch_op.hpp"
#include "engine/core/recycled_list.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

struct Denial {
  int code = 403;
  std::string reason = "Forbidden";
  std::string message;  // one line, names pod, container, resource, rule and what to do

  void clear() {  // a default Denial, the strings' memory kept (KeptOptional::emplace)
    code = 403;
    reason.assign("Forbidden");
    message.clear();
  }
};

// One broken rule, before the rollout mode decided what it means.
struct Violation {
  std::string rule;     // stable id for metrics: "missing-gpu-request", "max-per-pod", "quota"...
  std::string message;  // the one-line developer message
  // Never denies, whatever the mode: a capacity finding under capacityCheck: warn. In enforce
  // namespaces it becomes a warning; warn and audit namespaces treat it as usual.
  bool advisory = false;
  // The finding needed objects other than the pod and its namespace (a node's labels): the
  // native backstop, which sees only those two, cannot make it (docs/native-backstop.md).
  bool readsOtherObjects = false;

  // For RecycledList: an element handed out again is a default Violation with its memory.
  void clear() {
    rule.clear();
    message.clear();
    advisory = false;
    readsOtherObjects = false;
  }
  void releaseIfLarge(std::size_t bytes) {
    releaseStringIfLarge(rule, bytes);
    releaseStringIfLarge(message, bytes);
  }
};

// The broken rules of a decision, kept from decision to decision (recycled_list.hpp): a
// validator writes a message into `next()` in place, or pushes a finished Violation.
using Violations = RecycledList<Violation>;

// What a pod admitted under live usage must reserve for quotas to hold across webhook replicas
// (engine/context/reservations.hpp): set only for a pod (not a template) with GPUs that at least
// one quota governs, when usage was available and the pod is not denied in enforce mode.
struct QuotaCharge {
  std::vector<std::string> quotas;       // names of the quotas covering the pod's namespace
  std::map<std::string, int64_t> units;  // per GPU resource, as the stored pod holds them
  std::string namespaceName;
  std::string podUid;   // metadata.uid ("" before the apiserver assigned one: /mutate)
  std::string podName;  // metadata.name, else generateName
};

// Lines of text whose strings are reused when a Decision is (recycled_list.hpp).
using TextList = RecycledList<std::string>;

struct Decision {
  enum class Outcome {
    NotApplicable,  // not a pod / workload CREATE the policy cares about (left alone)
    Exempt,         // exempt namespace
    Skipped,        // a skip rule (another system owns the pod)
    NoGpu,          // a pod with no GPU request, no GPU class, nothing to do
    Classified,     // matched (or was assigned) a class
    Unclassified,   // a GPU pod that matched no class
  } outcome = Outcome::NotApplicable;

  // How the engine's messages name the object when it is a pod: `pod "trainer-0"` (empty for
  // other objects).
  std::string subject;
  std::string className;  // empty unless Classified
  std::string reason;     // why: "label gpu-admission.io/class=training (classes[0].match.any[0])"
  policy::Mode mode = policy::Mode::Enforce;  // the rollout mode that applied

  Patch patch;                     // empty when nothing changes (or when denied)
  TextList changes;                // short human list of what the patch does
  TextList warnings;               // for AdmissionResponse.warnings (each one line, short)
  Violations violations;           // every broken rule, whatever the mode
  KeptOptional<Denial> denial;     // set only when a violation is enforced
  AnnotationMap auditAnnotations;  // keys valid for auditAnnotations

  double gpuEquivalents = 0;  // what the stored pod adds (RequestContext::patchApplied)
  // A quota covers this GPU pod but live usage was unavailable, so PolicySet::quotaUnavailable
  // decided (a quota-unavailable denial, or a "not checked" warning).
  bool quotaUnchecked = false;
  std::optional<QuotaCharge> quotaCharge;
  // The priority class the pod runs with (after the class's mutation), when it has a class and
  // the policy has priority tiers; engine::describePriority says what the tiers make of it
  // (`review` prints that; the webhook does not need the words).
  std::string priorityClass;

  bool allowed() const { return !denial.has_value(); }

  // Back to a default-constructed Decision, keeping the memory of its patch, changes and
  // warnings for the next decision made into it (the request path decides into one per thread).
  void clear();
};

// Warn mode lists each violation in Decision.warnings behind this prefix.
inline constexpr std::string_view kWarnModePrefix = "gpu-admission (warn mode): ";

const char* outcomeName(Decision::Outcome o);
using policy::modeName;  // one spelling of the modes, the policy's

}  // namespace gpua::engine
