#include "authoring/case_checks.hpp"

#include <rapidjson/pointer.h>

#include <algorithm>

#include "authoring/documents.hpp"
#include "authoring/json_diff.hpp"
#include "authoring/review_roundtrip.hpp"
#include "text/ascii.hpp"

namespace gpua::authoring {
namespace {

using rapidjson::Value;

// Where a case's namespace comes from, for the mismatch message (test has no --namespace).
constexpr const char* kCaseNamespace = "the case's namespace";

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

std::string joined(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const auto& s : items) out += (out.size() > 1 ? ", " : "") + quoted(s);
  return out + "]";
}

using text::equalsIgnoreCase;

// Erases `ptr` from `doc`, then each map above it that the erasure left empty (not the root):
// ignoring the only annotation leaves no `annotations: {}` to compare, as the API server, which
// drops empty maps, would not return one. A map that was empty before is left as it was.
void eraseIgnored(Value& doc, const std::string& ptr) {
  const rapidjson::Pointer p(ptr.c_str());
  if (!p.Erase(doc)) return;
  for (std::size_t n = p.GetTokenCount() - 1; n > 0; --n) {
    const rapidjson::Pointer parent(p.GetTokens(), n);
    const Value* v = parent.Get(doc);
    if (!v || !v->IsObject() || v->MemberCount() != 0) return;
    parent.Erase(doc);
  }
}

class Checker {
 public:
  explicit Checker(const ReviewReport& r) : r_(r) {}
  std::vector<CheckFailure> failures;

  void fail(std::string what, std::vector<std::string> diff = {}) {
    failures.push_back({std::move(what), std::move(diff)});
  }

  void decision(const CaseExpect& e) {
    if (e.allowed && *e.allowed != r_.allowed)
      fail(std::string("allowed: expected ") + (*e.allowed ? "true" : "false") + ", got " +
           (r_.allowed ? "true" : "false") +
           (r_.allowed ? "" : " (denied: " + r_.statusMessage + ")"));
    const auto& d = r_.decision;
    const std::string outcome = d ? engine::outcomeName(d->outcome) : "";
    const std::string cls = d ? d->className : "";
    const std::string mode = d ? engine::modeName(d->mode) : "";
    if (e.outcome && !equalsIgnoreCase(*e.outcome, outcome))
      fail("outcome: expected " + *e.outcome + ", got " + outcome);
    if (e.className && *e.className != cls)
      fail("class: expected " + quoted(*e.className) + ", got " + quoted(cls));
    if (e.mode && !equalsIgnoreCase(*e.mode, mode))
      fail("mode: expected " + *e.mode + ", got " + mode);
    for (const auto& want : e.messageContains)
      if (r_.statusMessage.find(want) == std::string::npos)
        fail("message: expected to contain " + quoted(want) + ", got " + quoted(r_.statusMessage));
  }

  void warnings(const CaseExpect& e) {
    for (const auto& want : e.warningsContain) {
      bool found = std::any_of(r_.warnings.begin(), r_.warnings.end(),
                               [&](const std::string& w) { return w.find(want) != w.npos; });
      if (!found)
        fail("warnings: expected one containing " + quoted(want) + ", got " + joined(r_.warnings));
    }
    if (e.noWarnings && !r_.warnings.empty())
      fail("warnings: expected none, got " + joined(r_.warnings));
    if (e.warningCount && *e.warningCount != r_.warnings.size())
      fail("warnings: expected " + std::to_string(*e.warningCount) + ", got " +
           std::to_string(r_.warnings.size()) + " " + joined(r_.warnings));
  }

  void violations(const CaseExpect& e) {
    std::vector<std::string> rules;
    if (r_.decision)
      for (const auto& v : r_.decision->violations) rules.push_back(v.rule);
    auto has = [&](const std::string& rule) {
      return std::find(rules.begin(), rules.end(), rule) != rules.end();
    };
    for (const auto& want : e.violations)
      if (!has(want)) fail("violations: expected rule " + quoted(want) + ", got " + joined(rules));
    for (const auto& unwanted : e.notViolations)
      if (has(unwanted))
        fail("violations: expected no rule " + quoted(unwanted) + ", got " + joined(rules));
    if (!e.violationsExactly) return;
    // A multiset comparison: the engine reports one violation per container, so order is noise
    // but counts are not.
    auto want = *e.violationsExactly, got = rules;
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    if (want == got) return;
    if (want.empty())
      fail("violations: expected none, got " + joined(rules));
    else
      fail("violations: expected exactly " + joined(*e.violationsExactly) + ", got " +
           joined(rules));
  }

  void auditAnnotations(const CaseExpect& e) {
    for (const auto& [key, want] : e.auditAnnotations) {
      const auto it = r_.auditAnnotations.find(key);
      if (!want && it != r_.auditAnnotations.end())
        fail("auditAnnotations." + key + ": expected absent, got " + quoted(it->second));
      else if (want && it == r_.auditAnnotations.end())
        fail("auditAnnotations." + key + ": expected " + quoted(*want) + ", got none");
      else if (want && it->second != *want)
        fail("auditAnnotations." + key + ": expected " + quoted(*want) + ", got " +
             quoted(it->second));
    }
  }

  void patch(const CaseExpect& e) {
    if (e.noPatch && !r_.patch.empty())
      fail("patch: expected none, got " + std::to_string(r_.patch.size()) + " op(s)",
           {r_.patchJson});
    for (const auto& [ptr, want] : e.patched) {
      const Value* got = rapidjson::Pointer(ptr.c_str()).Get(r_.patched);
      if (!got)
        fail(ptr + ": expected " + shortJson(*want) + ", missing in the patched object");
      else if (*got != *want)
        fail(ptr + ": expected " + shortJson(*want) + ", got " + shortJson(*got),
             want->IsObject() || want->IsArray() ? jsonDiff(*want, *got)
                                                 : std::vector<std::string>{});
    }
    for (const auto& [ptr, unwanted] : e.notPatched)
      if (const Value* got = rapidjson::Pointer(ptr.c_str()).Get(r_.patched);
          got && *got == *unwanted)
        fail(ptr + ": expected anything but " + shortJson(*unwanted) + ", got it");
    for (const auto& ptr : e.absent)
      if (const Value* got = rapidjson::Pointer(ptr.c_str()).Get(r_.patched))
        fail(ptr + ": expected absent, got " + shortJson(*got));
  }

  void wholeObject(const std::string& file, const std::vector<std::string>& ignore) {
    rapidjson::Document want, got;
    got.CopyFrom(r_.patched, got.GetAllocator());
    try {
      want = readDocumentFile(file);
    } catch (const InputError& e) {
      fail(std::string("patchedPod: ") + e.what());
      return;
    }
    for (const auto& ptr : ignore) {
      eraseIgnored(want, ptr);
      eraseIgnored(got, ptr);
    }
    if (want != got) fail("patched object differs from " + file, jsonDiff(want, got));
  }

 private:
  const ReviewReport& r_;
};

void checkPointers(const TestCase& c, std::vector<CheckFailure>& out) {
  for (const auto& [key, values] :
       {std::pair{"patched", &c.expect.patched}, std::pair{"notPatched", &c.expect.notPatched}})
    for (const auto& [ptr, v] : *values)
      if (!rapidjson::Pointer(ptr.c_str()).IsValid())
        out.push_back({std::string("expect.") + key + ": invalid JSON pointer " + quoted(ptr), {}});
  for (const auto* list : {&c.expect.absent, &c.expect.ignore})
    for (const auto& ptr : *list)
      if (!rapidjson::Pointer(ptr.c_str()).IsValid())
        out.push_back({"expect.absent/ignore: invalid JSON pointer " + quoted(ptr), {}});
}

// The API server re-runs the mutating chain when any webhook changed the pod, so our own output
// comes back to us: the second pass must not change it again.
void checkIdempotent(const TestCase& c, const ReviewReport& first, const policy::PolicySet& policy,
                     const engine::UsageSnapshot& usage, const engine::SupplySnapshot& supply,
                     std::vector<CheckFailure>& out) {
  if (!first.allowed || first.patch.empty()) return;
  ReviewRequest again{.object = &first.patched,
                      .namespaceName = c.namespaceName,
                      .namespaceOrigin = kCaseNamespace,
                      .operation = c.operation};
  ReviewReport second = runReview(again, policy, usage, supply);
  if (!second.allowed)
    out.push_back(
        {"idempotence: the patched object is denied on re-run: " + second.statusMessage, {}});
  else if (!second.patch.empty())
    out.push_back({"idempotence: expected no patch on re-run, got " +
                       std::to_string(second.patch.size()) + " op(s)",
                   {second.patchJson}});
}

}  // namespace

std::vector<CheckFailure> checkCase(const TestCase& c, const policy::PolicySet& policy,
                                    const SnapshotReader& files, const MoreChecks& more) {
  std::vector<CheckFailure> out;
  // A fixture the case names that is not there: the case cannot run, the others of its file can.
  for (const auto& e : c.fixtureErrors) out.push_back({e, {}});
  if (out.empty() && !c.object) out.push_back({"no object to review", {}});
  if (!out.empty()) return out;
  checkPointers(c, out);
  if (!out.empty()) return out;
  // A fixture that is there but does not read names the case key that named it.
  auto naming = [](const char* key, auto read) {
    try {
      return read();
    } catch (const InputError& e) {
      throw InputError(std::string(key) + ": " + e.what());
    }
  };
  try {
    engine::UsageSnapshot usage =
        naming("usage.podsFile", [&] { return caseUsage(c, policy, files); });
    // Labels belong to the namespace the request goes to: the case's, else the object's own.
    if (!c.namespaceLabels.empty())
      usage.namespaceLabels[requestNamespace(*c.object, c.namespaceName)] = c.namespaceLabels;
    const engine::SupplySnapshot supply =
        naming("nodes", [&] { return caseSupply(c, policy, files, usage.dra.get()); });
    ReviewReport report = runReview({.object = c.object.get(),
                                     .namespaceName = c.namespaceName,
                                     .namespaceOrigin = kCaseNamespace,
                                     .operation = c.operation},
                                    policy, usage, supply);
    Checker check(report);
    check.decision(c.expect);
    check.warnings(c.expect);
    check.violations(c.expect);
    check.auditAnnotations(c.expect);
    check.patch(c.expect);
    if (c.expect.patchedPodFile) check.wholeObject(*c.expect.patchedPodFile, c.expect.ignore);
    out = std::move(check.failures);
    checkIdempotent(c, report, policy, usage, supply, out);
    if (more)
      for (auto& f : more(report)) out.push_back(std::move(f));
  } catch (const ReviewError& e) {
    out.push_back({std::string("cannot review: ") + e.what(), {}});
  } catch (const InputError& e) {
    out.push_back({e.what(), {}});
  }
  return out;
}

}  // namespace gpua::authoring
