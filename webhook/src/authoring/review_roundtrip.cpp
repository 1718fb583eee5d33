#include "authoring/review_roundtrip.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <atomic>

#include "admission/review.hpp"
#include "admission/warning_split.hpp"
#include "authoring/documents.hpp"
#include "engine/classify/priority_tier.hpp"
#include "engine/mutate/json_patch_apply.hpp"
#include "engine/pod/workload_kinds.hpp"
#include "kube/base64.hpp"
#include "kube/json.hpp"
#include "kube/json_parse.hpp"

namespace gpua::authoring {
namespace {

using rapidjson::Value;

std::string describedPriority(const engine::Decision& d, const policy::PolicySet& policy) {
  const policy::WorkloadClass* cls = policy.findClass(d.className);
  if (cls == nullptr || d.priorityClass.empty()) return {};
  return engine::describePriority(d.priorityClass, *cls, policy);
}

std::string stringAt(const Value& obj, const char* key) {
  return std::string(kube::json::stringMember(&obj, key));
}

using kube::json::member;

// "Deployment" -> "deployments", "Policy" -> "policies": good enough for request.resource,
// which the engine does not read but a real request always carries.
std::string pluralOf(std::string kind) {
  for (auto& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!kind.empty() && kind.back() == 'y') return kind.substr(0, kind.size() - 1) + "ies";
  if (!kind.empty() && kind.back() == 's') return kind + "es";
  return kind + "s";
}

void identify(const Value& object, ReviewReport& r) {
  if (!object.IsObject()) throw ReviewError("not a Kubernetes object (expected a mapping)");
  const std::string apiVersion = stringAt(object, "apiVersion");
  r.kind = stringAt(object, "kind");
  if (apiVersion.empty() || r.kind.empty())
    throw ReviewError("not a Kubernetes object: apiVersion and kind are required");
  const auto slash = apiVersion.find('/');
  r.group = slash == std::string::npos ? "" : apiVersion.substr(0, slash);
  r.version = slash == std::string::npos ? apiVersion : apiVersion.substr(slash + 1);
}

void fillNames(const ReviewRequest& req, ReviewReport& r) {
  const Value* meta = member(*req.object, "metadata");
  const std::string metaNs = meta ? stringAt(*meta, "namespace") : "";
  r.namespaceName = requestNamespace(*req.object, req.namespaceName);
  if (!req.namespaceName.empty() && !metaNs.empty() && metaNs != req.namespaceName)
    throw ReviewError("metadata.namespace \"" + metaNs + "\" does not match " +
                      req.namespaceOrigin + " \"" + req.namespaceName +
                      "\" (the API server would reject it)");
  const std::string name = meta ? stringAt(*meta, "name") : "";
  const std::string generateName = meta ? stringAt(*meta, "generateName") : "";
  r.displayName = !name.empty() ? name : !generateName.empty() ? generateName + "*" : "<unnamed>";
}

// The API server fills metadata.namespace before admission; so do we.
void prepareSent(const ReviewRequest& req, ReviewReport& r) {
  auto& a = r.sent.GetAllocator();
  r.sent.CopyFrom(*req.object, a);
  if (!r.sent.HasMember("metadata")) r.sent.AddMember("metadata", Value(rapidjson::kObjectType), a);
  Value& meta = r.sent["metadata"];
  if (!meta.IsObject()) throw ReviewError("metadata is not a mapping");
  if (!meta.HasMember("namespace") && r.kind != "Namespace")
    meta.AddMember("namespace", Value(r.namespaceName.c_str(), a), a);
}

std::string buildRequest(const ReviewRequest& req, const ReviewReport& r) {
  static std::atomic<unsigned> counter{0};
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  auto str = [&](const std::string& s) { return Value(s.c_str(), a); };
  auto gvk = [&](const char* kindKey, const std::string& kindValue) {
    Value v(rapidjson::kObjectType);
    v.AddMember("group", str(r.group), a);
    v.AddMember("version", str(r.version), a);
    v.AddMember(Value(kindKey, a), str(kindValue), a);
    return v;
  };
  Value request(rapidjson::kObjectType);
  request.AddMember("uid", str("gpu-admission-cli-" + std::to_string(++counter)), a);
  request.AddMember("kind", gvk("kind", r.kind), a);
  request.AddMember("resource", gvk("resource", pluralOf(r.kind)), a);
  request.AddMember("requestKind", gvk("kind", r.kind), a);
  request.AddMember("requestResource", gvk("resource", pluralOf(r.kind)), a);
  const Value* meta = member(r.sent, "metadata");
  if (std::string name = meta ? stringAt(*meta, "name") : ""; !name.empty())
    request.AddMember("name", str(name), a);
  request.AddMember("namespace", str(r.namespaceName), a);
  request.AddMember("operation", str(req.operation), a);
  Value user(rapidjson::kObjectType);
  user.AddMember("username", str(req.userName), a);
  request.AddMember("userInfo", user, a);
  Value object;
  object.CopyFrom(r.sent, a);
  if (req.operation == "DELETE") {
    request.AddMember("object", Value(rapidjson::kNullType), a);
    request.AddMember("oldObject", object, a);
  } else {
    if (req.operation == "UPDATE") request.AddMember("oldObject", Value(r.sent, a), a);
    request.AddMember("object", object, a);
  }
  request.AddMember("dryRun", false, a);
  d.AddMember("apiVersion", "admission.k8s.io/v1", a);
  d.AddMember("kind", "AdmissionReview", a);
  d.AddMember("request", request, a);
  return toJson(d, false);
}

engine::Patch decodePatchArray(const Value& arr) {
  engine::Patch patch;
  if (!arr.IsArray()) throw ReviewError("response patch is not a JSON array");
  for (const auto& op : arr.GetArray()) {
    engine::PatchOp p;
    const std::string kind = stringAt(op, "op");
    if (kind == "add") {
      p.kind = engine::PatchOp::Kind::Add;
    } else if (kind == "remove") {
      p.kind = engine::PatchOp::Kind::Remove;
    } else if (kind == "replace") {
      p.kind = engine::PatchOp::Kind::Replace;
    } else {
      throw ReviewError("response patch has an unsupported op \"" + kind + "\"");
    }
    p.path = stringAt(op, "path");
    if (const Value* v = member(op, "value")) p.valueJson = toJson(*v, false);
    patch.push_back(std::move(p));
  }
  return patch;
}

void decodePatch(const Value& resp, ReviewReport& r) {
  const std::string b64 = stringAt(resp, "patch");
  if (b64.empty()) return;
  if (stringAt(resp, "patchType") != "JSONPatch")
    throw ReviewError("response has a patch without patchType JSONPatch");
  auto raw = kube::base64Decode(b64);
  if (!raw) throw ReviewError("response patch is not valid base64");
  rapidjson::Document arr;
  if (!kube::parseJson(*raw, arr).ok()) throw ReviewError("response patch is not valid JSON");
  r.patch = decodePatchArray(arr);
  r.patchJson = *raw;
}

void decodeResponse(const std::string& body, ReviewReport& r) {
  if (!kube::parseJson(body, r.response).ok())
    throw ReviewError("the webhook answered with invalid JSON");
  const Value* resp = member(r.response, "response");
  if (!resp || !resp->IsObject()) throw ReviewError("the webhook's answer has no response");
  const Value* allowed = member(*resp, "allowed");
  if (!allowed || !allowed->IsBool()) throw ReviewError("response.allowed is missing");
  r.allowed = allowed->GetBool();
  if (const Value* st = member(*resp, "status"); st && st->IsObject()) {
    if (const Value* c = member(*st, "code"); c && c->IsInt()) r.statusCode = c->GetInt();
    r.statusReason = stringAt(*st, "reason");
    r.statusMessage = stringAt(*st, "message");
  }
  if (const Value* w = member(*resp, "warnings"); w && w->IsArray()) {
    std::vector<std::string> lines;
    for (const auto& s : w->GetArray())
      if (s.IsString()) lines.emplace_back(s.GetString(), s.GetStringLength());
    r.warnings = admission::joinWarningLines(lines);  // the apiserver gets them in short lines
  }
  if (const Value* aa = member(*resp, "auditAnnotations"); aa && aa->IsObject())
    for (const auto& m : aa->GetObject())
      if (m.value.IsString()) r.auditAnnotations[m.name.GetString()] = m.value.GetString();
  decodePatch(*resp, r);
}

}  // namespace

std::string requestNamespace(const rapidjson::Value& object, const std::string& given) {
  if (!given.empty()) return given;
  const Value* meta = member(object, "metadata");
  const std::string metaNs = meta ? stringAt(*meta, "namespace") : "";
  return metaNs.empty() ? "default" : metaNs;
}

ReviewReport runReview(const ReviewRequest& req, const policy::PolicySet& policy,
                       const engine::UsageSnapshot& usage) {
  return runReview(req, policy, usage, engine::noSupply());
}

ReviewReport runReview(const ReviewRequest& req, const policy::PolicySet& policy,
                       const engine::UsageSnapshot& usage, const engine::SupplySnapshot& supply) {
  ReviewReport r;
  identify(*req.object, r);
  if (!engine::isReviewableKind(r.group, r.kind, policy))
    throw ReviewError("kind " + r.kind + (r.group.empty() ? "" : " (" + r.group + ")") +
                      " is not a Pod or a workload with a pod template; templateKinds in the "
                      "policy add custom resources");
  fillNames(req, r);
  prepareSent(req, r);
  auto result =
      admission::review(buildRequest(req, r), admission::Endpoint::Both, policy, usage, supply);
  if (result.httpStatus != 200)
    throw ReviewError("the webhook rejected the request with HTTP " +
                      std::to_string(result.httpStatus) + " (" + result.errorKind +
                      "): " + result.body);
  r.decision = std::move(result.decision);
  r.priority = describedPriority(*r.decision, policy);
  decodeResponse(result.body, r);
  r.patched.CopyFrom(r.sent, r.patched.GetAllocator());
  if (auto err = engine::applyPatch(r.patched, r.patch))
    throw ReviewError("the webhook's patch does not apply to the object: " + *err);
  return r;
}

std::string patchToPrettyJson(const ReviewReport& report) {
  if (report.patchJson.empty()) return "[]";
  rapidjson::Document d;
  kube::parseJson(report.patchJson, d);  // decoded and checked by decodePatch
  return toJson(d, true);
}

}  // namespace gpua::authoring
