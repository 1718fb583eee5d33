#include "engine/verdict.hpp"

#include <algorithm>

#include "engine/core/text.hpp"
#include "engine/validate/quota_check.hpp"

namespace gpua::engine {

namespace {

constexpr std::size_t kWarningBytes = 480;       // one warning, cut on a UTF-8 boundary
constexpr std::size_t kAllWarningsBytes = 4000;  // the apiserver keeps 4 KiB per request
constexpr std::size_t kChangeSummaryBytes = 120;

// "gpu-admission: class training: node affinity pool train-h100, toleration nvidia.com/gpu"
std::string more(std::size_t n) {
  return " (+" + std::to_string(n) + " more)";
}

// more(n).size() without building it.
std::size_t moreSize(std::size_t n) {
  std::size_t digits = 1;
  for (; n >= 10; n /= 10) ++digits;
  return 9 + digits;
}

void appendChangeSummary(std::string& out, const Decision& d) {
  out.append("gpu-admission: class ").append(d.className).append(": ");
  const std::size_t n = d.changes.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t itemSize = (i > 0 ? 2 : 0) + d.changes[i].size();
    const std::size_t after = i + 1 < n ? moreSize(n - i - 1) : 0;
    if (i > 0 && out.size() + itemSize + after > kChangeSummaryBytes) {
      out += more(n - i);
      return;
    }
    if (i > 0) out += ", ";
    out += d.changes[i];
  }
}

// In place: each warning made one line, and the list cut where it passes the total budget.
void capWarnings(TextList& warnings) {
  std::size_t total = 0;
  for (std::size_t i = 0; i < warnings.size(); ++i) {
    auto& w = warnings[i];
    if (!text::isOneLine(w, kWarningBytes)) w = text::oneLine(w, kWarningBytes);
    if (total + w.size() > kAllWarningsBytes) {
      warnings.resize(i);
      return;
    }
    total += w.size();
  }
}

std::string firstWithCount(const std::vector<const Violation*>& list) {
  std::string msg = list.front()->message;
  if (list.size() > 1) msg += " (and " + std::to_string(list.size() - 1) + " more)";
  return msg;
}

// The class and every violation, whatever the mode, for the apiserver's audit log.
void recordViolations(Decision& d) {
  if (!d.className.empty()) d.auditAnnotations["class"] = d.className;
  if (d.violations.empty()) return;
  std::vector<const Violation*> all;
  all.reserve(d.violations.size());
  for (const auto& v : d.violations) all.push_back(&v);
  std::string rules;
  for (const auto* v : all) rules += (rules.empty() ? "" : ",") + v->rule;
  d.auditAnnotations["violation"] = text::oneLine(firstWithCount(all), 1000);
  d.auditAnnotations["violation-rules"] = rules;
  d.auditAnnotations["mode"] = modeName(d.mode);
}

// Observe mode: what would have been done goes into the audit annotations and the decision log
// (`changes` stays for it), and nothing reaches the pod or the user.
void observeOnly(Decision& d) {
  if (!d.changes.empty()) {
    d.auditAnnotations["would-change"] = text::oneLine(text::join(d.changes, "; "), 1000);
    d.auditAnnotations["mode"] = modeName(d.mode);
  }
  d.patch.clear();
  d.warnings.clear();
}

}  // namespace

policy::Mode rolloutMode(const policy::PolicySet& policy, std::string_view namespaceName,
                         const kube::Labels& namespaceLabels) {
  for (const auto& rule : policy.rollout)
    if (!rule.namespaces || rule.namespaces->matches(namespaceName, namespaceLabels))
      return rule.mode;
  return policy::Mode::Enforce;
}

void applyVerdict(Decision& d) {
  if (d.mode == policy::Mode::Observe) {
    recordViolations(d);
    return observeOnly(d);
  }
  std::vector<const Violation*> enforced;
  std::vector<const Violation*> all;
  all.reserve(d.violations.size());
  for (const auto& v : d.violations) {
    all.push_back(&v);
    const bool enforce = d.mode == policy::Mode::Enforce && !v.advisory;
    if (enforce || v.rule == kQuotaUnavailableRule) enforced.push_back(&v);
  }
  recordViolations(d);
  if (!enforced.empty()) {
    d.denial = Denial{403, "Forbidden", text::oneLine(firstWithCount(enforced), 2000)};
    d.patch.clear();
    d.changes.clear();
    d.warnings.clear();
    return;
  }
  // The verdict's warnings go first, the engine's notices (already in d.warnings) after them:
  // appended, then rotated to the front, so each string is written where it stays.
  const std::size_t notices = d.warnings.size();
  if (!d.changes.empty()) appendChangeSummary(d.warnings.next(), d);
  const auto prefixed = [&](std::string_view prefix, const Violation& v) {
    d.warnings.next().append(prefix).append(v.message);
  };
  if (d.mode == policy::Mode::Warn)
    for (const auto* v : all) prefixed(kWarnModePrefix, *v);
  if (d.mode == policy::Mode::Enforce)  // only advisory ones are left: nothing was enforced
    for (const auto* v : all) prefixed("gpu-admission (capacity warning): ", *v);
  std::rotate(d.warnings.begin(), d.warnings.begin() + static_cast<std::ptrdiff_t>(notices),
              d.warnings.end());
  capWarnings(d.warnings);
}

}  // namespace gpua::engine
