// The cluster client's decoders of watch streams and list pages, without the network: each
// input line is what the API server sends, either one watch event ({"type":..,"object":..}) or
// one list page ({"items":[..],"metadata":{..}}), decoded the way the client decodes it and fed
// to the usage ledger (pods and namespaces). Oracle: no crash, and usage never goes negative,
// whatever order of adds, modifications and deletions arrives.
#include <rapidjson/document.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "cluster/ledger.hpp"
#include "policy/loader.hpp"

namespace {

using gpua::cluster::EventType;
using gpua::cluster::Ledger;

std::shared_ptr<const gpua::policy::PolicySet> shippedPolicy() {
  static const auto policy = [] {
    auto loaded = gpua::policy::loadPolicyPaths({GPUA_POLICIES_DIR});
    if (!loaded.ok()) {
      std::fprintf(stderr, "cannot load %s\n", GPUA_POLICIES_DIR);
      std::abort();
    }
    return loaded.policy;
  }();
  return policy;
}

bool isNamespace(const rapidjson::Value& object) {
  const auto it = object.FindMember("kind");
  return it != object.MemberEnd() && it->value.IsString() &&
         std::string_view(it->value.GetString()) == "Namespace";
}

void applyLine(Ledger& ledger, std::string_view line) {
  rapidjson::Document doc;
  doc.Parse(line.data(), line.size());
  if (doc.HasParseError() || !doc.IsObject()) return;  // the client drops the stream
  if (const auto items = doc.FindMember("items"); items != doc.MemberEnd()) {
    const bool namespaces = doc.HasMember("kind") && doc["kind"].IsString() &&
                            std::string_view(doc["kind"].GetString()) == "NamespaceList";
    if (namespaces) {
      ledger.beginNamespaceList();
      ledger.addNamespacePage(items->value);
      ledger.commitNamespaceList();
    } else {
      ledger.beginPodList();
      ledger.addPodPage(items->value);
      ledger.commitPodList();
    }
    return;
  }
  const auto object = doc.FindMember("object");
  if (object == doc.MemberEnd() || !object->value.IsObject()) return;
  const auto typeIt = doc.FindMember("type");
  const std::string_view type = typeIt != doc.MemberEnd() && typeIt->value.IsString()
                                    ? std::string_view(typeIt->value.GetString())
                                    : std::string_view();
  if (type == "ERROR" || type == "BOOKMARK") return;
  const EventType kind = type == "ADDED"     ? EventType::Added
                         : type == "DELETED" ? EventType::Deleted
                                             : EventType::Modified;
  if (isNamespace(object->value))
    ledger.applyNamespaceEvent(kind, object->value);
  else
    ledger.applyPodEvent(kind, object->value);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  double clock = 0;
  Ledger ledger(shippedPolicy(), [&clock] { return clock; });
  std::size_t start = 0;
  while (start <= input.size()) {
    const std::size_t end = std::min(input.find('\n', start), input.size());
    applyLine(ledger, input.substr(start, end - start));
    clock += 1;
    start = end + 1;
  }
  const auto snapshot = ledger.snapshot(true, "");
  for (const auto& [ns, usage] : snapshot->namespaces) {
    if (usage.gpuEquivalents < -1e-9) std::abort();
    for (const auto& [cls, ge] : usage.byClass)
      if (ge < -1e-9) std::abort();
    for (const auto& [resource, units] : usage.byResource)
      if (units < 0) std::abort();
  }
  for (const auto& g : ledger.geSeconds())
    if (g.seconds < -1e-6 || g.gpuEquivalents < -1e-9) std::abort();
  return 0;
}
