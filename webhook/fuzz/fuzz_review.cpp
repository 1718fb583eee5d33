// AdmissionReview decoding plus the full engine decision under the shipped policies, with an
// oracle for every admitted pod that gets a patch:
//   - the patch applies with the project's strict RFC 6902 applier (the apiserver's rules);
//   - the patched pod, sent again (reinvocation), needs no further operations;
//   - a pod that kept Kubernetes' extended-resource rules (whole quantities, requests equal to
//     limits) still keeps them after the patch.
// Any bytes must give an answer (200, or 4xx for bad input), never a crash; a raw control byte
// is refused as invalid-json (RFC 8259); every warning line keeps the apiserver's limits; a
// review into a result kept from earlier inputs answers as a fresh thread does.
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "admission/review.hpp"
#include "engine/core/patch_op.hpp"
#include "engine/mutate/json_patch_apply.hpp"
#include "engine/pod/quantity.hpp"
#include "kube/depth_limited_parse.hpp"
#include "policy/loader.hpp"
#include "shipped_policy.hpp"
#include "text/utf8.hpp"

namespace {

using namespace gpua;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "review oracle: %s\n", what.c_str());
  std::abort();
}

using fuzz::shippedPolicy;

// Live usage with namespace labels the shipped rollout and quotas select on, and no usage.
const engine::UsageSnapshot& usage(bool live) {
  static const engine::UsageSnapshot known = [] {
    engine::UsageSnapshot u;
    u.available = true;
    u.namespaceLabels["team-a"] = {{"env", "dev"}, {"team", "vision"}};
    u.namespaceLabels["ml-prod"] = {{"env", "prod"}};
    u.namespaces["team-a"].gpuEquivalents = 3;
    return u;
  }();
  static const engine::UsageSnapshot unknown = [] {
    engine::UsageSnapshot u;
    u.unavailableReason = "fuzz: usage unknown";
    return u;
  }();
  return live ? known : unknown;
}

std::string toJson(const rapidjson::Value& v) {
  rapidjson::StringBuffer b;
  rapidjson::Writer<rapidjson::StringBuffer> w(b);
  v.Accept(w);
  return {b.GetString(), b.GetSize()};
}

const rapidjson::Value* member(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return nullptr;
  const auto it = v.FindMember(key);
  return it == v.MemberEnd() ? nullptr : &it->value;
}

// Kubernetes' IsExtendedResourceName: outside the kubernetes.io domain, not a quota "requests."
bool extended(std::string_view name) {
  return name.find('/') != std::string_view::npos && !name.starts_with("requests.") &&
         !name.starts_with("kubernetes.io/") &&
         name.find(".kubernetes.io/") == std::string_view::npos;
}

bool wholeQuantity(const rapidjson::Value& v) {
  const auto q = engine::quantityFromJson(v);
  return q && q->whole() && !q->negative();
}

// Every container's extended resources: whole numbers, and each request has an equal limit.
bool keepsExtendedResourceRules(const rapidjson::Value& pod) {
  const auto* spec = member(pod, "spec");
  for (const char* list : {"containers", "initContainers"}) {
    const auto* containers = spec ? member(*spec, list) : nullptr;
    if (containers == nullptr || !containers->IsArray()) continue;
    for (const auto& c : containers->GetArray()) {
      const auto* resources = member(c, "resources");
      const auto* requests = resources ? member(*resources, "requests") : nullptr;
      const auto* limits = resources ? member(*resources, "limits") : nullptr;
      if (limits != nullptr && limits->IsObject())
        for (const auto& l : limits->GetObject())
          if (extended(l.name.GetString()) && !wholeQuantity(l.value)) return false;
      if (requests == nullptr || !requests->IsObject()) continue;
      for (const auto& r : requests->GetObject()) {
        if (!extended(r.name.GetString())) continue;
        const auto* limit = limits ? member(*limits, r.name.GetString()) : nullptr;
        if (!wholeQuantity(r.value) || limit == nullptr) return false;
        const auto a = engine::quantityFromJson(r.value), b = engine::quantityFromJson(*limit);
        if (!a || !b || *a != *b) return false;
      }
    }
  }
  return true;
}

void checkPatch(std::string_view body, const admission::ReviewResult& first, bool live) {
  const engine::Decision& d = *first.decision;
  // Read the body as the server did (in situ, depth-limited: RapidJSON's in-situ reader is the
  // one the request path uses), so the patch is applied to the object the engine saw.
  rapidjson::Document review;
  std::string text(body);
  kube::parseInSituWithDepthLimit(text, review);
  if (!review.IsObject()) fail("a patch for a body that is not an object");
  const auto request = review.FindMember("request");
  if (request == review.MemberEnd() || !request->value.IsObject())
    fail("a patch for a review without a request");
  const auto object = request->value.FindMember("object");
  if (object == request->value.MemberEnd()) fail("a patch without an object");
  rapidjson::Document pod;
  pod.CopyFrom(object->value, pod.GetAllocator());
  const bool obeyedBefore = keepsExtendedResourceRules(pod);
  if (const auto error = engine::applyPatch(pod, d.patch))
    fail("the patch does not apply: " + *error + "\npatch: " + engine::serializePatch(d.patch));
  if (obeyedBefore && !keepsExtendedResourceRules(pod))
    fail("the patch broke the extended-resource rules: " + engine::serializePatch(d.patch));
  object->value.CopyFrom(pod, review.GetAllocator());
  const std::string again = toJson(review);
  const auto second =
      admission::review(again, admission::Endpoint::Mutate, shippedPolicy(), usage(live));
  if (second.httpStatus != 200 || !second.decision)
    fail("the patched pod is not reviewable: " + std::to_string(second.httpStatus) + " " +
         second.body.substr(0, 300) +
         " near: " + again.substr(again.size() > 1200 ? 1120 : 0, 100));
  if (!second.decision->patch.empty())
    fail("not idempotent: " + engine::serializePatch(second.decision->patch) +
         "\nafter: " + engine::serializePatch(d.patch));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  shippedPolicy();
  return 0;
}

// The apiserver's JSON encoder only writes valid UTF-8 and escapes every control character. A
// body with invalid UTF-8 is still answered (never a 500, checked below), but the patch oracle
// re-serializes the object, which is only meaningful for the bodies an apiserver can send. A
// body with a raw control byte (other than whitespace between tokens) is refused (below).
bool validUtf8(std::string_view s) {
  uint32_t cp = 0;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = text::utf8Sequence(s, i, cp);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

bool hasRawControlByte(std::string_view s) {
  for (const char c : s)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') return true;
  return false;
}

// The limits on AdmissionResponse.warnings (docs/policy-reference.md): lines of at most 120
// characters, valid UTF-8 without control characters (the apiserver drops those), 4 KiB in all.
// Valid UTF-8 without C0 or C1 control characters (DEL included).
bool printableLine(std::string_view s) {
  uint32_t cp = 0;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = text::utf8Sequence(s, i, cp);
    if (n == 0 || cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) return false;
    i += n;
  }
  return true;
}

void checkWarnings(const std::string& responseBody) {
  rapidjson::Document d;
  d.Parse(responseBody.data(), responseBody.size());
  const auto* response = d.IsObject() ? member(d, "response") : nullptr;
  const auto* warnings = response ? member(*response, "warnings") : nullptr;
  if (warnings == nullptr) return;
  if (!warnings->IsArray()) fail("warnings is not an array");
  std::size_t total = 0;
  for (const auto& w : warnings->GetArray()) {
    const std::string_view line(w.GetString(), w.GetStringLength());
    if (line.empty() || line.size() > 120 || !printableLine(line))
      fail("a warning line breaks the apiserver's rules: " + std::string(line));
    total += line.size();
  }
  if (total > 4096) fail("warnings exceed 4 KiB: " + std::to_string(total));
}

// The server reviews into one result per thread, kept from request to request: reviewed into
// the result every earlier input left behind, this input must get what a thread that never
// reviewed anything gives it (no field of an earlier request may remain).
void checkKeptResult(std::string_view body, bool live, const admission::ReviewResult& expected) {
  static admission::ReviewResult kept;
  admission::review(body, admission::Endpoint::Mutate, shippedPolicy(), usage(live),
                    engine::noSupply(), kept);
  admission::ReviewResult fresh;
  std::thread([&] {
    fresh = admission::review(body, admission::Endpoint::Mutate, shippedPolicy(), usage(live));
  }).join();
  for (const admission::ReviewResult* r :
       {static_cast<const admission::ReviewResult*>(&kept), &expected}) {
    if (r->httpStatus != fresh.httpStatus || r->body != fresh.body ||
        r->errorKind != fresh.errorKind || r->uid != fresh.uid ||
        r->namespaceName != fresh.namespaceName || r->name != fresh.name || r->kind != fresh.kind ||
        r->operation != fresh.operation || r->group != fresh.group ||
        r->userName != fresh.userName || r->dryRun != fresh.dryRun ||
        r->decision.has_value() != fresh.decision.has_value())
      fail(std::string(r == &kept ? "a kept result" : "the same thread") +
           " answers otherwise than a fresh thread: " + r->body.substr(0, 200) + " vs " +
           fresh.body.substr(0, 200));
    if (r->decision && (r->decision->reason != fresh.decision->reason ||
                        r->decision->changes != fresh.decision->changes ||
                        r->decision->warnings != fresh.decision->warnings))
      fail("a kept decision differs from a fresh thread's: " + r->decision->reason + " vs " +
           fresh.decision->reason);
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const bool live = size % 2 == 0;
  const auto mutated =
      admission::review(body, admission::Endpoint::Mutate, shippedPolicy(), usage(live));
  if (mutated.body.empty()) fail("an empty answer");
  // RFC 8259: every such body is invalid JSON, wherever the byte falls (RapidJSON alone let
  // 0x1A..0x1F through in aligned blocks of a string).
  if (hasRawControlByte(body) && (mutated.httpStatus != 400 || mutated.errorKind != "invalid-json"))
    fail("a raw control byte was not refused as invalid-json: " + mutated.body.substr(0, 200));
  checkKeptResult(body, live, mutated);
  if (mutated.httpStatus != 200) {
    if (mutated.httpStatus < 400 || mutated.httpStatus > 499) fail("status outside 4xx for input");
    return 0;
  }
  checkWarnings(mutated.body);
  const auto validated =
      admission::review(body, admission::Endpoint::Validate, shippedPolicy(), usage(live));
  checkWarnings(validated.body);
  if (mutated.decision && mutated.decision->allowed() && !mutated.decision->patch.empty() &&
      validUtf8(body))
    checkPatch(body, mutated, live);
  return 0;
}
