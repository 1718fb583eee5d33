#include "inventory/usage_file.hpp"

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "inventory/ledger.hpp"
#include "kube/json.hpp"
#include "kube/json_parse.hpp"

namespace gpua::inventory {

namespace json = kube::json;

namespace {

// Splits a list's items into pods and namespaces, by kind.
void collect(const rapidjson::Value& list, rapidjson::Value& pods, rapidjson::Value& namespaces,
             rapidjson::Document::AllocatorType& alloc) {
  if (list.IsArray()) {
    for (const auto& item : list.GetArray()) collect(item, pods, namespaces, alloc);
    return;
  }
  if (!list.IsObject()) return;
  if (const auto* items = json::member(list, "items"); items != nullptr && items->IsArray()) {
    const auto kind = json::string(json::member(list, "kind"));
    // Items of a typed list lack kind: the list's kind says what they are.
    const bool namespaceList = kind == "NamespaceList";
    for (const auto& item : items->GetArray()) {
      if (namespaceList && json::member(item, "kind") == nullptr)
        namespaces.PushBack(rapidjson::Value(item, alloc), alloc);
      else
        collect(item, pods, namespaces, alloc);
    }
    return;
  }
  if (json::string(json::member(list, "kind")) == "Namespace")
    namespaces.PushBack(rapidjson::Value(list, alloc), alloc);
  else
    pods.PushBack(rapidjson::Value(list, alloc), alloc);
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageFileError(path + ": cannot read usage file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

engine::UsageSnapshot snapshotOf(const rapidjson::Value& pods, const rapidjson::Value& namespaces,
                                 const policy::PolicySet& policy) {
  // The ledger wants shared ownership; the caller's policy outlives it, so alias it.
  Ledger ledger(std::shared_ptr<const policy::PolicySet>(std::shared_ptr<void>(), &policy));
  ledger.applyPodList(pods);
  ledger.applyNamespaceList(namespaces);
  return *ledger.snapshot(true, "");
}

}  // namespace

engine::UsageSnapshot usageFromPodList(const rapidjson::Value& list,
                                       const policy::PolicySet& policy) {
  rapidjson::Document scratch;
  rapidjson::Value pods(rapidjson::kArrayType), namespaces(rapidjson::kArrayType);
  collect(list, pods, namespaces, scratch.GetAllocator());
  return snapshotOf(pods, namespaces, policy);
}

engine::UsageSnapshot usageFromFiles(const std::vector<std::string>& paths,
                                     const policy::PolicySet& policy) {
  rapidjson::Document scratch;
  auto& alloc = scratch.GetAllocator();
  rapidjson::Value pods(rapidjson::kArrayType), namespaces(rapidjson::kArrayType);
  for (const auto& path : paths) {
    const auto text = readFile(path);
    rapidjson::Document doc;
    if (const auto parsed = kube::parseJson(text, doc); !parsed.ok())
      throw UsageFileError(path + ": " + parsed.message);
    if (!doc.IsObject() && !doc.IsArray())
      throw UsageFileError(path + ": expected a JSON list (kubectl get pods -A -o json)");
    collect(doc, pods, namespaces, alloc);
  }
  return snapshotOf(pods, namespaces, policy);
}

}  // namespace gpua::inventory
