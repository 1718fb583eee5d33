#include "admission/request_parser.hpp"

#include "engine/pod/pod_fields.hpp"
#include "engine/pod/workload_kinds.hpp"
#include "kube/json.hpp"
#include "kube/json_parse.hpp"
#include "kube/object_names.hpp"

namespace gpua::admission {

namespace {

constexpr std::string_view kApiVersion = "admission.k8s.io/v1";
constexpr std::string_view kReviewKind = "AdmissionReview";

using rapidjson::Value;

using kube::json::member;

// The string at `key`, or nullopt when absent or not a string.
std::optional<std::string_view> stringAt(const Value& v, const char* key) {
  const Value* m = member(v, key);
  if (m == nullptr || !m->IsString()) return std::nullopt;
  return std::string_view(m->GetString(), m->GetStringLength());
}

std::string_view viewOr(const Value& v, const char* key) {
  return stringAt(v, key).value_or(std::string_view());
}

// Assigns rather than constructs: a request reused from request to request keeps its strings'
// capacity (a uid is longer than the short-string buffer).
void assignString(std::string& out, const Value& v, const char* key) {
  out = viewOr(v, key);
}

// Quotes a caller-supplied value for a message, cut short so a message stays one short line.
std::string quoted(std::optional<std::string_view> s) {
  if (!s) return "(missing)";
  std::string out = "\"";
  for (char c : s->substr(0, 64)) out.push_back(static_cast<unsigned char>(c) < 0x20 ? '?' : c);
  return out + (s->size() > 64 ? "...\"" : "\"");
}

RequestError error(std::string kind, std::string message) {
  return RequestError{std::move(kind), std::move(message)};
}

std::optional<RequestError> checkEnvelope(const Value& root) {
  if (!root.IsObject()) return error("not-object", "AdmissionReview must be a JSON object");
  const auto apiVersion = stringAt(root, "apiVersion");
  if (apiVersion != kApiVersion)
    return error("wrong-api-version", "apiVersion " + quoted(apiVersion) +
                                          " is not served; send admission.k8s.io/v1 "
                                          "(admissionReviewVersions: [v1])");
  const auto kind = stringAt(root, "kind");
  if (kind != kReviewKind)
    return error("wrong-kind", "kind " + quoted(kind) + " is not AdmissionReview");
  const Value* request = member(root, "request");
  if (request == nullptr || !request->IsObject())
    return error("missing-request", "AdmissionReview has no request object");
  const auto uid = stringAt(*request, "uid");
  if (!uid || uid->empty()) return error("missing-uid", "request.uid is missing or empty");
  return std::nullopt;
}

std::string_view objectName(const AdmissionRequest& r) {
  if (r.object == nullptr) return {};
  const Value* meta = member(*r.object, "metadata");
  if (meta == nullptr) return {};
  const std::string_view name = viewOr(*meta, "name");
  return name.empty() ? viewOr(*meta, "generateName") : name;
}

std::string_view objectNamespace(const AdmissionRequest& r) {
  if (r.object == nullptr) return {};
  const Value* meta = member(*r.object, "metadata");
  return meta == nullptr ? std::string_view() : viewOr(*meta, "namespace");
}

std::optional<RequestError> checkObject(const AdmissionRequest& r, const Value* object) {
  const bool needsObject = r.operation == "CREATE" || r.operation == "UPDATE";
  if (needsObject && (object == nullptr || !object->IsObject()))
    return error("missing-object",
                 r.operation + " request for uid " + r.uid + " has no request.object");
  if (r.group.empty() && r.kind == "Pod" && r.subResource.empty() && object != nullptr &&
      object->IsObject() && member(*object, "kind") != nullptr) {
    const auto objectKind = stringAt(*object, "kind");
    if (objectKind != "Pod")
      return error("object-not-pod",
                   "request.kind is Pod but request.object.kind is " + quoted(objectKind));
  }
  return std::nullopt;
}

void fillContext(AdmissionRequest& r, const Value& request, const engine::UsageSnapshot& usage) {
  auto& c = r.context;
  c.operation = r.operation;
  c.group = r.group;
  c.kind = r.kind;
  assignString(c.namespaceName, request, "namespace");
  if (c.namespaceName.empty()) c.namespaceName = objectNamespace(r);
  // Copy-assigning a map reuses its nodes: the same namespace's labels allocate nothing.
  if (auto it = usage.namespaceLabels.find(c.namespaceName); it != usage.namespaceLabels.end())
    c.namespaceLabels = it->second;
  else
    c.namespaceLabels.clear();
  if (const Value* user = member(request, "userInfo"))
    assignString(c.userName, *user, "username");
  else
    c.userName.clear();
  const Value* dryRun = member(request, "dryRun");
  c.dryRun = dryRun != nullptr && dryRun->IsBool() && dryRun->GetBool();
}

// The apiserver sends a UUID; the uid is echoed in the response and logged, so a request that
// carries kilobytes of it, or bytes no apiserver sends, is refused.
constexpr std::size_t kMaxUidBytes = 128;

bool isPrintableAscii(std::string_view s) {
  for (char c : s)
    if (c <= ' ' || c > '~') return false;
  return true;
}

// What a request names becomes a metric label and log fields: only names an apiserver could
// have sent get that far (an unbounded namespace label was a memory and cardinality attack).
std::optional<RequestError> checkNames(const AdmissionRequest& r) {
  if (r.uid.size() > kMaxUidBytes || !isPrintableAscii(r.uid))
    return error("invalid-uid", "request.uid " + quoted(r.uid) + " (" +
                                    std::to_string(r.uid.size()) +
                                    " bytes) is not a uid an apiserver sends: at most " +
                                    std::to_string(kMaxUidBytes) + " printable ASCII bytes");
  const auto& ns = r.context.namespaceName;
  if (!ns.empty() && !kube::isDnsLabel(ns))
    return error("invalid-namespace",
                 "request.namespace " + quoted(ns) + " (" + std::to_string(ns.size()) +
                     " bytes) is not a namespace name: a DNS label, at most 63 lowercase "
                     "letters, digits and '-'");
  if (r.name.size() > kube::kMaxDnsSubdomainBytes)
    return error("invalid-name", "request.name " + quoted(r.name) + " (" +
                                     std::to_string(r.name.size()) +
                                     " bytes) is longer than any object name (253 bytes)");
  return std::nullopt;
}

// What the codec reads of an AdmissionReview (readAdmissionRequest above), and request.object
// as objectTable chooses. request.kind's group and kind are captured for the choice.
enum Capture { kKindObject, kKindGroup, kKindKind };
using kube::JsonField;
using kube::JsonKeep;
using kube::kKeepAll;
constexpr JsonKeep kGroup = kube::captured(kKindGroup);
constexpr JsonKeep kKindName = kube::captured(kKindKind);
constexpr JsonField kKindFields[] = {{"group", &kGroup}, {"kind", &kKindName}};
constexpr JsonKeep kKind{JsonKeep::Kind::Fields, kKindFields, nullptr, kKindObject};
constexpr JsonField kUserFields[] = {{"username", &kKeepAll}};
constexpr JsonKeep kUser{JsonKeep::Kind::Fields, kUserFields};
constexpr JsonField kRequestFields[] = {
    {"uid", &kKeepAll},   {"kind", &kKind},         {"subResource", &kKeepAll},
    {"name", &kKeepAll},  {"namespace", &kKeepAll}, {"operation", &kKeepAll},
    {"userInfo", &kUser}, {"dryRun", &kKeepAll},    {"object", &kube::kKeepChosen},
};
constexpr JsonKeep kRequest{JsonKeep::Kind::Fields, kRequestFields};
constexpr JsonField kReviewFields[] = {
    {"apiVersion", &kKeepAll}, {"kind", &kKeepAll}, {"request", &kRequest}};
constexpr JsonKeep kReview{JsonKeep::Kind::Fields, kReviewFields};

// A Pod's fields only when request.kind, seen once before the object and unambiguous, says Pod
// as readAdmissionRequest will read it; any other kind, order or doubt keeps the object whole.
const JsonKeep& objectTable(const kube::JsonCaptures& c) {
  const bool coreGroup =
      c.seen[kKindGroup] == 0 ||
      (c.seen[kKindGroup] == 1 && c.isString[kKindGroup] && c.value[kKindGroup].empty());
  const bool pod = c.seen[kKindObject] == 1 && c.seen[kKindKind] == 1 && c.isString[kKindKind] &&
                   c.value[kKindKind] == "Pod" && coreGroup;
  return pod ? engine::pod_fields::kPod : kKeepAll;
}

kube::JsonParseResult parseWith(std::string& buffer, rapidjson::Document& doc,
                                ReviewReader reader) {
  using kube::InSituReader;
  if (reader == ReviewReader::FullDocument)
    return kube::parseJsonInSitu(buffer, doc, kube::kMaxJsonDepth, InSituReader::RapidJson);
  if (reader == ReviewReader::ScannedDocument)
    return kube::parseJsonInSitu(buffer, doc, kube::kMaxJsonDepth, InSituReader::Scanner);
  return kube::parseJsonInSitu(buffer, doc, kReview, objectTable);
}

}  // namespace

std::optional<RequestError> parseJsonInSitu(std::string& buffer, rapidjson::Document& doc,
                                            ReviewReader reader) {
  if (buffer.find_first_not_of(" \t\r\n") == std::string::npos)
    return error("invalid-json", "empty request body");
  const kube::JsonParseResult parsed = parseWith(buffer, doc, reader);
  if (parsed.ok()) return std::nullopt;
  const bool tooDeep = parsed.problem == kube::JsonParseResult::Problem::TooDeep;
  return error(tooDeep ? "too-deep" : "invalid-json", parsed.message);
}

std::optional<RequestError> readAdmissionRequest(const rapidjson::Value& root,
                                                 const engine::UsageSnapshot& usage,
                                                 AdmissionRequest& r) {
  if (auto e = checkEnvelope(root)) return e;
  const Value& request = *member(root, "request");
  assignString(r.uid, request, "uid");
  assignString(r.operation, request, "operation");
  if (const Value* kind = member(request, "kind")) {
    assignString(r.group, *kind, "group");
    assignString(r.kind, *kind, "kind");
  } else {
    r.group.clear();
    r.kind.clear();
  }
  assignString(r.subResource, request, "subResource");
  const Value* object = member(request, "object");
  r.object = nullptr;
  if (auto e = checkObject(r, object)) return e;
  if (object != nullptr && object->IsObject()) r.object = object;
  assignString(r.name, request, "name");
  if (r.name.empty()) r.name = objectName(r);
  fillContext(r, request, usage);
  return checkNames(r);
}

std::variant<AdmissionRequest, RequestError> readAdmissionRequest(
    const rapidjson::Value& root, const engine::UsageSnapshot& usage) {
  AdmissionRequest r;
  if (auto e = readAdmissionRequest(root, usage, r)) return std::move(*e);
  return r;
}

bool routesToEngine(const AdmissionRequest& r, const policy::PolicySet& policy) {
  if (!r.subResource.empty() || r.object == nullptr) return false;
  // An UPDATE only of a workload whose templates the policy mutates (spec.mutateTemplates).
  if (r.operation == "UPDATE") return policy.mutatesTemplates(r.group, r.kind);
  return r.operation == "CREATE" && engine::isReviewableKind(r.group, r.kind, policy);
}

}  // namespace gpua::admission
