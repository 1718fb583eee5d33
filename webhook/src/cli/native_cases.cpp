#include "cli/native_cases.hpp"

#include <chrono>
#include <cstdio>
#include <thread>

#include "authoring/documents.hpp"
#include "cli/command_line.hpp"
#include "cluster/blocking_call.hpp"
#include "cluster/list_watch.hpp"
#include "engine/classify/classify.hpp"
#include "kube/json.hpp"
#include "kube/json_parse.hpp"
#include "native/compile.hpp"

namespace gpua::cli {

namespace {

namespace json = kube::json;
using namespace std::chrono_literals;
using Result = authoring::NativeComparison::Result;

constexpr auto kTimeout = 10s;
constexpr std::string_view kAdmissionApi = "/apis/admissionregistration.k8s.io/v1/";

std::string toJson(const rapidjson::Value& v) {
  return authoring::toJson(v, false);  // escapes every control byte (authoring/documents.hpp)
}

rapidjson::Document parsed(const cluster::ApiResponse& r, const std::string& what) {
  rapidjson::Document d;
  if (!kube::parseJson(r.body, d).ok() || !d.IsObject())
    throw std::runtime_error(what + ": the apiserver's answer is not a JSON object");
  return d;
}

// The labels a case sets, without the one the apiserver sets itself on every namespace.
kube::Labels ownLabels(kube::Labels labels) {
  labels.erase("kubernetes.io/metadata.name");
  return labels;
}

rapidjson::Value labelsJson(const kube::Labels& labels, rapidjson::Document::AllocatorType& a) {
  rapidjson::Value out(rapidjson::kObjectType);
  for (const auto& [k, v] : labels)
    out.AddMember(rapidjson::Value(k.c_str(), a), rapidjson::Value(v.c_str(), a), a);
  return out;
}

}  // namespace

NativeCases::NativeCases(cluster::ApiConfig api, bool verbose)
    : client_(api), server_(api.url()), verbose_(verbose) {
  const std::string ours =
      "?labelSelector=" + cluster::urlEncode("app.kubernetes.io/name=gpu-admission");
  for (const char* kind : {"validatingwebhookconfigurations", "mutatingwebhookconfigurations"}) {
    const auto r = call("GET", std::string(kAdmissionApi) + kind + ours);
    if (r.status != 200)
      throw UsageError("--against-native: listing " + std::string(kind) + " in " + server_ + ": " +
                       r.message());
    const auto list = parsed(r, kind);
    if (const auto* items = json::arrayMember(&list, "items"); items && !items->Empty())
      throw UsageError(
          "--against-native: the webhook is registered in " + server_ + " too (" + kind + " " +
          std::string(json::path((*items)[0], "metadata", "name")) +
          "), so the dry runs would ask it as well: compare in a cluster that runs the compiled "
          "policies alone (kubectl delete validatingwebhookconfigurations,"
          "mutatingwebhookconfigurations -l app.kubernetes.io/name=gpu-admission)");
  }
  const auto r =
      call("GET", std::string(kAdmissionApi) + "validatingadmissionpolicies" + "?labelSelector=" +
                      cluster::urlEncode(std::string(native::kManagedByLabel) + "=" +
                                         std::string(native::kManagedBy)));
  if (r.status != 200)
    throw UsageError("--against-native: listing validatingadmissionpolicies in " + server_ + ": " +
                     r.message());
  const auto list = parsed(r, "validatingadmissionpolicies");
  const auto* items = json::arrayMember(&list, "items");
  if (items && !items->Empty())
    installedRevision_ = json::stringMember(
        json::objectMember(json::objectMember(&(*items)[0], "metadata"), "annotations"),
        engine::kPolicyRevisionAnnotation);
  if (installedRevision_.empty())
    throw UsageError("--against-native: " + server_ +
                     " runs no compiled policy: gpu-admission compile --to native -o DIR, then "
                     "kubectl apply -f DIR");
}

cluster::ApiResponse NativeCases::call(const std::string& method, const std::string& target,
                                       std::string body) {
  auto r = cluster::callBlocking(client_, method, target, std::move(body), kTimeout);
  if (r.status == 0) throw std::runtime_error(method + " " + server_ + target + ": " + r.body);
  return r;
}

const std::set<std::string, std::less<>>& NativeCases::compiledRules(
    const policy::PolicySet& policy) {
  auto [it, added] = compiledByRevision_.try_emplace(policy.revision);
  if (added)
    for (const auto& rule : native::compileNative(policy).rules)
      if (rule.compiled) it->second.insert(rule.rule);
  return it->second;
}

void NativeCases::ensureNamespace(const std::string& name, const kube::Labels& labels) {
  if (auto it = namespaces_.find(name); it != namespaces_.end() && it->second == labels) return;
  const std::string target = "/api/v1/namespaces/" + name;
  const auto got = call("GET", target);
  if (got.status == 404) {
    rapidjson::Document ns(rapidjson::kObjectType);
    auto& a = ns.GetAllocator();
    ns.AddMember("apiVersion", "v1", a).AddMember("kind", "Namespace", a);
    rapidjson::Value meta(rapidjson::kObjectType);
    meta.AddMember("name", rapidjson::Value(name.c_str(), a), a);
    meta.AddMember("labels", labelsJson(labels, a), a);
    ns.AddMember("metadata", meta, a);
    const auto r = call("POST", "/api/v1/namespaces", toJson(ns));
    if (r.status != 201)
      throw std::runtime_error("creating namespace " + name + ": " + r.message());
    // Pods need the namespace's default ServiceAccount, which a controller creates.
    for (int i = 0; i < 150 && call("GET", target + "/serviceaccounts/default").status != 200; ++i)
      std::this_thread::sleep_for(200ms);
  } else if (got.status == 200) {
    auto ns = parsed(got, "namespace " + name);
    if (!ns.HasMember("metadata") || !ns["metadata"].IsObject())
      throw std::runtime_error("namespace " + name + " has no metadata");
    if (ownLabels(json::labelsOf(ns)) != labels) {
      auto& meta = ns["metadata"];
      meta.RemoveMember("labels");
      meta.AddMember("labels", labelsJson(labels, ns.GetAllocator()), ns.GetAllocator());
      const auto r = call("PUT", target, toJson(ns));
      if (r.status != 200)
        throw std::runtime_error("labelling namespace " + name + ": " + r.message());
      // Admission policies read namespace labels from the apiserver's informer, a moment
      // behind the write.
      std::this_thread::sleep_for(2s);
    }
  } else {
    throw std::runtime_error("reading namespace " + name + ": " + got.message());
  }
  namespaces_[name] = labels;
}

// The ServiceAccount admission plugin refuses a pod whose ServiceAccount does not exist, which
// says nothing about the policies: the pod's own one is created (empty) when missing.
void NativeCases::ensureServiceAccount(const std::string& ns, const rapidjson::Value& pod) {
  const auto* spec = json::objectMember(&pod, "spec");
  std::string_view name = json::stringMember(spec, "serviceAccountName");
  if (name.empty()) name = json::stringMember(spec, "serviceAccount");
  if (name.empty() || name == "default") return;
  const std::string key = ns + "/" + std::string(name);
  if (serviceAccounts_.contains(key)) return;
  const std::string collection = "/api/v1/namespaces/" + ns + "/serviceaccounts";
  if (call("GET", collection + "/" + std::string(name)).status == 404) {
    rapidjson::Document sa(rapidjson::kObjectType);
    auto& a = sa.GetAllocator();
    sa.AddMember("apiVersion", "v1", a).AddMember("kind", "ServiceAccount", a);
    rapidjson::Value meta(rapidjson::kObjectType);
    meta.AddMember(
        "name", rapidjson::Value(name.data(), static_cast<rapidjson::SizeType>(name.size()), a), a);
    sa.AddMember("metadata", meta, a);
    const auto r = call("POST", collection, toJson(sa));
    if (r.status != 201 && r.status != 409)
      throw std::runtime_error("creating ServiceAccount " + key + ": " + r.message());
  }
  serviceAccounts_.insert(key);
}

authoring::NativeAnswer NativeCases::dryRunCreate(const std::string& ns,
                                                  const rapidjson::Value& pod) {
  const auto r = call("POST", "/api/v1/namespaces/" + ns + "/pods?dryRun=All", toJson(pod));
  return authoring::nativeAnswerOf(r.status, r.body);
}

std::vector<authoring::CheckFailure> NativeCases::check(const authoring::TestCase& c,
                                                        const policy::PolicySet& policy,
                                                        const authoring::ReviewReport& webhook) {
  if (c.operation != "CREATE" || webhook.kind != "Pod" || !webhook.group.empty()) {
    ++notPods_;
    return {};
  }
  if (policy.revision != installedRevision_) {
    ++otherPolicy_;
    return {};
  }
  authoring::NativeComparison cmp;
  try {
    ensureNamespace(webhook.namespaceName, ownLabels(c.namespaceLabels));
    ensureServiceAccount(webhook.namespaceName, webhook.sent);
    cmp = authoring::compareWithNative(webhook, dryRunCreate(webhook.namespaceName, webhook.sent),
                                       compiledRules(policy));
  } catch (const std::exception& e) {
    return {{std::string("against the native policies: ") + e.what(), {}}};
  }
  ++compared_;
  ++results_[cmp.result];
  if (verbose_)
    std::printf("     native %s:%s: %s\n", c.file.c_str(), c.name.c_str(), cmp.text.c_str());
  if (cmp.result != Result::Differ) return {};
  return {{"against the native policies: " + cmp.text, {}}};
}

std::string NativeCases::summary() const {
  auto n = [&](Result r) {
    auto it = results_.find(r);
    return std::to_string(it == results_.end() ? 0 : it->second);
  };
  return "against the native policies in " + server_ + " (policy revision " + installedRevision_ +
         "): " + std::to_string(compared_) + " cases compared: " + n(Result::Agree) + " agree, " +
         n(Result::WebhookOnly) + " denied by the webhook alone (rules not compiled), " +
         n(Result::NotCompared) + " refused by the apiserver itself, " + n(Result::Differ) +
         " differ; not compared: " + std::to_string(otherPolicy_) + " cases of other policies, " +
         std::to_string(notPods_) + " not pod CREATEs";
}

}  // namespace gpua::cli
