#include "authoring/review_output.hpp"

#include "authoring/documents.hpp"
#include "kube/json_parse.hpp"

namespace gpua::authoring {
namespace {

using rapidjson::Value;

std::string indent(const std::string& text, const std::string& prefix) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += prefix + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

std::string decisionLines(const engine::Decision& d, const std::string& priority) {
  std::string out = "outcome: " + std::string(engine::outcomeName(d.outcome));
  if (!d.className.empty()) out += ", class " + d.className;
  out += ", mode " + std::string(engine::modeName(d.mode)) + "\n";
  if (!d.reason.empty()) out += "reason:  " + d.reason + "\n";
  if (!priority.empty()) out += "priority: " + priority + "\n";
  for (const auto& v : d.violations) out += "rule broken: " + v.rule + ": " + v.message + "\n";
  return out;
}

}  // namespace

std::string reportText(const ReviewReport& r) {
  std::string out = r.kind + " " + r.namespaceName + "/" + r.displayName + ": ";
  out += r.allowed ? "ADMITTED\n"
                   : "DENIED (" + std::to_string(r.statusCode) + " " + r.statusReason + ")\n";
  if (!r.allowed) out += "message: " + r.statusMessage + "\n";
  if (r.decision) out += decisionLines(*r.decision, r.priority);
  if (!r.warnings.empty()) {
    out += "warnings:\n";
    for (const auto& w : r.warnings) out += "  - " + w + "\n";
  }
  if (!r.auditAnnotations.empty()) {
    out += "audit annotations:\n";
    for (const auto& [k, v] : r.auditAnnotations) out += "  " + k + ": " + v + "\n";
  }
  if (r.patch.empty()) {
    out += "patch: none\n";
    return out;
  }
  out += "patch (" + std::to_string(r.patch.size()) + " ops, RFC 6902):\n";
  out += indent(patchToPrettyJson(r), "  ");
  out += "patched " + r.kind + ":\n---\n" + toYaml(r.patched);
  return out;
}

void reportJson(const ReviewReport& r, Value& out, rapidjson::Document::AllocatorType& a) {
  auto str = [&](const std::string& s) { return Value(s.c_str(), a); };
  out.SetObject();
  Value object(rapidjson::kObjectType);
  object.AddMember("kind", str(r.kind), a);
  object.AddMember("namespace", str(r.namespaceName), a);
  object.AddMember("name", str(r.displayName), a);
  out.AddMember("object", object, a);
  out.AddMember("allowed", r.allowed, a);
  if (!r.allowed) {
    Value status(rapidjson::kObjectType);
    status.AddMember("code", r.statusCode, a);
    status.AddMember("reason", str(r.statusReason), a);
    status.AddMember("message", str(r.statusMessage), a);
    out.AddMember("status", status, a);
  }
  if (r.decision) {
    out.AddMember("outcome", str(engine::outcomeName(r.decision->outcome)), a);
    out.AddMember("class", str(r.decision->className), a);
    out.AddMember("reason", str(r.decision->reason), a);
    out.AddMember("mode", str(engine::modeName(r.decision->mode)), a);
    if (!r.priority.empty()) out.AddMember("priority", str(r.priority), a);
    Value violations(rapidjson::kArrayType);
    for (const auto& v : r.decision->violations) {
      Value item(rapidjson::kObjectType);
      item.AddMember("rule", str(v.rule), a);
      item.AddMember("message", str(v.message), a);
      violations.PushBack(item, a);
    }
    out.AddMember("violations", violations, a);
  }
  Value warnings(rapidjson::kArrayType);
  for (const auto& w : r.warnings) warnings.PushBack(str(w), a);
  out.AddMember("warnings", warnings, a);
  Value audit(rapidjson::kObjectType);
  for (const auto& [k, v] : r.auditAnnotations) audit.AddMember(str(k), str(v), a);
  out.AddMember("auditAnnotations", audit, a);
  rapidjson::Document patch;
  kube::parseJson(r.patchJson.empty() ? "[]" : r.patchJson, patch);  // our own serialization
  out.AddMember("patch", Value(patch, a), a);
  out.AddMember("patchedObject", Value(r.patched, a), a);
}

}  // namespace gpua::authoring
