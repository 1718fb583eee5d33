#include "authoring/native_comparison.hpp"

#include <cctype>
#include <vector>

#include "engine/core/text.hpp"
#include "kube/json.hpp"
#include "kube/json_parse.hpp"

namespace gpua::authoring {

namespace {

namespace json = kube::json;
using Result = NativeComparison::Result;

// How the apiserver words a ValidatingAdmissionPolicy's denial.
constexpr std::string_view kPolicyDenial = "ValidatingAdmissionPolicy '";

// The webhook's denying findings: the violations of a denied decision that deny.
std::vector<const engine::Violation*> denying(const ReviewReport& r) {
  std::vector<const engine::Violation*> out;
  if (r.allowed || !r.decision) return out;
  for (const auto& v : r.decision->violations)
    if (!v.advisory) out.push_back(&v);
  return out;
}

std::string rulesOf(const std::vector<const engine::Violation*>& vs) {
  std::vector<std::string> ids;
  for (const auto* v : vs) ids.push_back(v->rule);
  return engine::text::join(ids);
}

// The apiserver names a generateName-only pod before validating admission, so the compiled
// policies say `pod "resnet-train-hnctm"` where the webhook, reviewing the case as written, says
// `pod "resnet-train-" (generateName)`: the native message is read back in the webhook's words.
std::string inWebhookNames(std::string message, const ReviewReport& webhook) {
  const auto* meta = json::objectMember(&webhook.sent, "metadata");
  const auto generate = json::stringMember(meta, "generateName");
  if (generate.empty() || !json::stringMember(meta, "name").empty()) return message;
  constexpr std::size_t kSuffix = 5;  // the apiserver's random suffix
  const std::string quoted = "\"" + std::string(generate);
  for (auto at = message.find(quoted); at != std::string::npos; at = message.find(quoted, at + 1)) {
    const std::size_t suffix = at + quoted.size();
    if (suffix + kSuffix >= message.size() || message[suffix + kSuffix] != '"') continue;
    bool alnum = true;
    for (std::size_t i = suffix; i < suffix + kSuffix; ++i)
      alnum = alnum && std::isalnum(static_cast<unsigned char>(message[i]));
    if (alnum) message.replace(suffix, kSuffix + 1, "\" (generateName)");
  }
  return message;
}

}  // namespace

NativeAnswer nativeAnswerOf(int httpStatus, std::string_view body) {
  if (httpStatus == 200 || httpStatus == 201) return {NativeAnswer::Kind::Admitted, {}};
  rapidjson::Document status;
  std::string message;
  if (kube::parseJson(body, status).ok()) message = json::stringMember(&status, "message");
  if (message.empty()) message = "HTTP " + std::to_string(httpStatus) + ": " + std::string(body);
  const bool byPolicy = message.find(kPolicyDenial) != std::string::npos;
  return {byPolicy ? NativeAnswer::Kind::DeniedByPolicy : NativeAnswer::Kind::RefusedOtherwise,
          std::move(message)};
}

NativeComparison compareWithNative(const ReviewReport& webhook, const NativeAnswer& native,
                                   const std::set<std::string, std::less<>>& compiledRules) {
  using Kind = NativeAnswer::Kind;
  if (native.kind == Kind::RefusedOtherwise)
    return {Result::NotCompared, "the apiserver refuses the pod itself: " + native.message};
  const auto denies = denying(webhook);
  std::vector<const engine::Violation*> compiled;
  for (const auto* v : denies)
    if (compiledRules.contains(v->rule) && !v->readsOtherObjects) compiled.push_back(v);

  if (denies.empty()) {
    if (native.kind == Kind::Admitted) return {Result::Agree, "both admit"};
    return {Result::Differ, "the webhook admits but the native policies deny: " + native.message};
  }
  if (compiled.empty()) {
    if (native.kind == Kind::Admitted)
      return {Result::WebhookOnly, "the webhook alone denies (" + rulesOf(denies) +
                                       ": not compiled, see compile --explain)"};
    return {Result::Differ, "the native policies deny for another reason than the webhook (" +
                                rulesOf(denies) + "): " + native.message};
  }
  if (native.kind == Kind::Admitted)
    return {Result::Differ, "the webhook denies (" + rulesOf(compiled) +
                                ", compiled) but the native policies admit"};
  const std::string said = inWebhookNames(native.message, webhook);
  for (const auto* v : compiled)
    if (said.find(v->message) != std::string::npos)
      return {Result::Agree, "both deny (" + v->rule + ")"};
  return {Result::Differ, "both deny, but the native message is not the webhook's (" +
                              rulesOf(compiled) + "): the webhook says \"" +
                              compiled.front()->message + "\"; the apiserver says \"" +
                              native.message + "\""};
}

}  // namespace gpua::authoring
