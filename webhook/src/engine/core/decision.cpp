#include "engine/core/decision.hpp"

namespace gpua::engine {

const char* outcomeName(Decision::Outcome o) {
  switch (o) {
    case Decision::Outcome::NotApplicable:
      return "NotApplicable";
    case Decision::Outcome::Exempt:
      return "Exempt";
    case Decision::Outcome::Skipped:
      return "Skipped";
    case Decision::Outcome::NoGpu:
      return "NoGpu";
    case Decision::Outcome::Classified:
      return "Classified";
    case Decision::Outcome::Unclassified:
      return "Unclassified";
  }
  return "Unknown";
}

void Decision::clear() {
  outcome = Outcome::NotApplicable;
  subject.clear();
  className.clear();
  reason.clear();
  mode = policy::Mode::Enforce;
  patch.clear();
  changes.clear();
  warnings.clear();
  violations.clear();
  denial.reset();
  auditAnnotations.clear();
  gpuEquivalents = 0;
  quotaUnchecked = false;
  quotaCharge.reset();
  priorityClass.clear();
}

}  // namespace gpua::engine
