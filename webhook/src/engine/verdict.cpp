#include "engine/verdict.hpp"

#include <algorithm>
#include <cstdio>

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

// The first of the violations `pick` takes, and how many more it takes: "<message> (and 2
// more)", as one line of at most maxBytes, appended to `out` (in place: no joined copy unless
// the message must be cleaned or cut).
template <typename Pick>
void appendFirstWithCount(std::string& out, const Violations& violations, Pick pick,
                          std::size_t maxBytes) {
  const Violation* first = nullptr;
  std::size_t more = 0;
  for (const auto& v : violations) {
    if (!pick(v)) continue;
    if (first == nullptr) {
      first = &v;
    } else {
      ++more;
    }
  }
  if (first == nullptr) return;
  char suffix[48] = "";
  if (more > 0) std::snprintf(suffix, sizeof suffix, " (and %zu more)", more);
  const std::string_view tail(suffix);
  if (first->message.size() + tail.size() <= maxBytes &&
      text::isOneLine(first->message, maxBytes - tail.size())) {
    out.append(first->message).append(tail);
    return;
  }
  out += text::oneLine(first->message + std::string(tail), maxBytes);
}

bool any(const Violation&) {
  return true;
}

// The class and every violation, whatever the mode, for the apiserver's audit log.
void recordViolations(Decision& d) {
  if (!d.className.empty()) d.auditAnnotations["class"] = d.className;
  if (d.violations.empty()) return;
  std::string& violation = d.auditAnnotations["violation"];
  violation.clear();
  appendFirstWithCount(violation, d.violations, any, 1000);
  std::string& rules = d.auditAnnotations["violation-rules"];
  rules.clear();
  for (const auto& v : d.violations) (rules.empty() ? rules : rules.append(",")).append(v.rule);
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
  const auto enforced = [&](const Violation& v) {
    return (d.mode == policy::Mode::Enforce && !v.advisory) || v.rule == kQuotaUnavailableRule;
  };
  recordViolations(d);
  if (std::any_of(d.violations.begin(), d.violations.end(), enforced)) {
    appendFirstWithCount(d.denial.emplace().message, d.violations, enforced, 2000);
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
    for (const auto& v : d.violations) prefixed(kWarnModePrefix, v);
  if (d.mode == policy::Mode::Enforce)  // only advisory ones are left: nothing was enforced
    for (const auto& v : d.violations) prefixed("gpu-admission (capacity warning): ", v);
  std::rotate(d.warnings.begin(), d.warnings.begin() + static_cast<std::ptrdiff_t>(notices),
              d.warnings.end());
  capWarnings(d.warnings);
}

}  // namespace gpua::engine
