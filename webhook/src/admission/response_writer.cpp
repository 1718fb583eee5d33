#include "admission/response_writer.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstring>

#include "admission/audit_annotations.hpp"
#include "admission/text_sanitizer.hpp"
#include "admission/warnings.hpp"
#include "engine/core/patch_op.hpp"
#include "kube/base64.hpp"

namespace gpua::admission {

namespace {

// rapidjson's own buffer: the Writer reserves once per token and then stores characters
// without a capacity check each (a std::string sink pays a push_back per character). One per
// thread, so it keeps its capacity across requests.
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

void key(JsonWriter& w, std::string_view k) {
  w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
}

void string(JsonWriter& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

bool carriesPatch(const engine::Decision& d, Endpoint endpoint) {
  return endpoint != Endpoint::Validate && d.allowed() && !d.patch.empty();
}

void writeStatus(JsonWriter& w, const engine::Denial& denial) {
  key(w, "status");
  w.StartObject();
  key(w, "code");
  w.Int(denial.code);
  key(w, "reason");
  string(w, denial.reason.empty() ? std::string_view("Forbidden") : denial.reason);
  key(w, "message");
  // The engine's message is nearly always clean already: written as it is (what the sanitizer
  // would give), without a sanitized copy.
  if (isCleanLine(denial.message, kMaxDenialMessageBytes))
    string(w, denial.message);
  else
    string(w, sanitizeLine(denial.message, kMaxDenialMessageBytes));
  w.EndObject();
}

void writePatch(JsonWriter& w, rapidjson::StringBuffer& out, const engine::Patch& patch) {
  key(w, "patchType");
  string(w, "JSONPatch");
  key(w, "patch");
  // Base64 has no characters JSON must escape: it goes into the output in one copy, between
  // quotes. RawValue writes the opening quote (and keeps the writer's separators right): the
  // writer copies raw values a character at a time, which for a patch of a kilobyte or more
  // cost more than the encoding itself.
  thread_local std::string serialized;  // both keep their capacity across requests
  thread_local std::string encoded;
  serialized.clear();
  engine::appendPatch(serialized, patch);
  encoded.clear();
  kube::base64Append(encoded, serialized);
  w.RawValue("\"", 1, rapidjson::kStringType);
  std::memcpy(out.Push(encoded.size()), encoded.data(), encoded.size());
  out.Put('"');
}

void writeStrings(JsonWriter& w, std::string_view name, std::span<const std::string> items) {
  if (items.empty()) return;
  key(w, name);
  w.StartArray();
  for (const auto& s : items) string(w, s);
  w.EndArray();
}

void writeAnnotations(JsonWriter& w, const engine::AnnotationMap& annotations) {
  if (annotations.empty()) return;
  key(w, "auditAnnotations");
  w.StartObject();
  for (const auto& [k, v] : annotations) {
    key(w, k);
    string(w, v);
  }
  w.EndObject();
}

// The engine's annotations and warnings are nearly always clean already: written as they are
// (the same bytes the sanitizers would give), without building sanitized copies.
void writeAuditAnnotations(JsonWriter& w, const engine::AnnotationMap& raw) {
  if (auditAnnotationsAreClean(raw)) return writeAnnotations(w, raw);
  writeAnnotations(w, sanitizeAuditAnnotations(raw));
}

void writeWarnings(JsonWriter& w, const engine::Decision& d, Endpoint endpoint) {
  const bool asTheEngineSaidThem = endpoint != Endpoint::Validate || d.patch.empty();
  if (asTheEngineSaidThem && warningsAreClean(d.warnings))
    return writeStrings(w, "warnings", d.warnings);
  writeStrings(w, "warnings", warningsFor(d, endpoint));
}

std::string joined(std::span<const std::string> items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : "; ") + s;
  return out;
}

}  // namespace

bool defersDenial(const engine::Decision& d, Endpoint endpoint) {
  return endpoint == Endpoint::Mutate && !d.allowed();
}

std::vector<std::string> warningsFor(const engine::Decision& d, Endpoint endpoint) {
  if (endpoint != Endpoint::Validate || d.patch.empty()) return sanitizeWarnings(d.warnings);
  std::vector<std::string> out;
  if (d.mode == policy::Mode::Warn)
    for (const auto& v : d.violations) out.push_back(v.message);
  // The engine's notices (the fail-open "GPU quota not checked: ...") hold whether or not the
  // pod was mutated: keep them, word for word as /mutate sends them, so that when both webhooks
  // ran the apiserver drops the repeat and kubectl shows each once. What the engine's list
  // holds besides them: the change summary first (when there are changes), then the warn-mode
  // violations; both are replaced above.
  for (std::size_t i = d.changes.empty() ? 0 : 1; i < d.warnings.size(); ++i)
    if (!d.warnings[i].starts_with(engine::kWarnModePrefix)) out.push_back(d.warnings[i]);
  out.push_back(
      "gpu-admission: the mutating webhook did not run; changes not applied: " +
      (d.changes.empty() ? std::to_string(d.patch.size()) + " patch op(s)" : joined(d.changes)));
  return sanitizeWarnings(out);
}

void writeResponse(std::string_view uid, const engine::Decision* decision, Endpoint endpoint,
                   std::string& out) {
  // The buffer and the writer (whose nesting stack is heap memory) live as long as the thread:
  // once warm, a response costs no allocation here.
  thread_local rapidjson::StringBuffer buffer;
  thread_local JsonWriter w(buffer);
  buffer.Clear();
  w.Reset(buffer);
  w.StartObject();
  key(w, "apiVersion");
  string(w, "admission.k8s.io/v1");
  key(w, "kind");
  string(w, "AdmissionReview");
  key(w, "response");
  w.StartObject();
  key(w, "uid");
  string(w, uid);
  key(w, "allowed");
  w.Bool(decision == nullptr || decision->allowed() || defersDenial(*decision, endpoint));
  if (decision != nullptr && !defersDenial(*decision, endpoint)) {
    if (decision->denial) writeStatus(w, *decision->denial);
    if (carriesPatch(*decision, endpoint)) writePatch(w, buffer, decision->patch);
    writeWarnings(w, *decision, endpoint);
    writeAuditAnnotations(w, decision->auditAnnotations);
  }
  w.EndObject();
  w.EndObject();
  out.assign(buffer.GetString(), buffer.GetSize());
}

std::string writeResponse(std::string_view uid, const engine::Decision* decision,
                          Endpoint endpoint) {
  std::string out;
  writeResponse(uid, decision, endpoint, out);
  return out;
}

}  // namespace gpua::admission
