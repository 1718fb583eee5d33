#include "inventory/pod_demand.hpp"

#include <map>
#include <string>

#include "engine/pod/pod_request_fold.hpp"
#include "engine/pod/quantity.hpp"
#include "kube/json.hpp"

namespace gpua::inventory {

namespace json = kube::json;

namespace {

// requests, with limits filling the names requests lack.
engine::ResourceUnits containerRequests(const rapidjson::Value& container,
                                        const NodeResourceFilter& filter) {
  engine::ResourceUnits out;
  const auto* resources = json::member(container, "resources");
  for (const char* field : {"requests", "limits"}) {
    const auto* m = json::member(resources, field);
    if (m == nullptr || !m->IsObject()) continue;
    for (const auto& e : m->GetObject()) {
      const std::string_view name(e.name.GetString(), e.name.GetStringLength());
      if (!filter.keeps(name) || out.find(name) != out.end()) continue;
      out.emplace(name, engine::parseWholeQuantity(e.value).value_or(0));
    }
  }
  return out;
}

engine::ContainerRole roleOf(const rapidjson::Value& container, bool init) {
  if (!init) return engine::ContainerRole::App;
  return json::string(json::member(container, "restartPolicy")) == "Always"
             ? engine::ContainerRole::Sidecar
             : engine::ContainerRole::Init;
}

}  // namespace

engine::ResourceUnits podNodeDemand(const rapidjson::Value& pod, const NodeResourceFilter& filter) {
  const auto* spec = json::member(pod, "spec");
  // One fold per resource; a container that does not ask for a resource adds 0, which changes
  // no fold, so only the resources it names are added. Init containers in spec order.
  std::map<std::string, engine::PodRequestFold, std::less<>> folds;
  for (const bool init : {false, true}) {
    const auto* list = json::member(spec, init ? "initContainers" : "containers");
    if (list == nullptr || !list->IsArray()) continue;
    for (const auto& c : list->GetArray())
      for (const auto& [name, units] : containerRequests(c, filter)) {
        auto it = folds.find(name);
        if (it == folds.end()) it = folds.emplace(name, engine::PodRequestFold{}).first;
        it->second.add(roleOf(c, init), units);
      }
  }
  engine::ResourceUnits total;
  for (const auto& [name, fold] : folds)
    if (fold.total() > 0) total.emplace(name, fold.total());
  return total;
}

}  // namespace gpua::inventory
