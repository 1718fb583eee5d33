#include "cluster/pod_demand.hpp"

#include <algorithm>

#include "cluster/json_util.hpp"
#include "engine/gpu_request.hpp"
#include "engine/quantity.hpp"

namespace gpua::cluster {

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

void add(engine::ResourceUnits& into, const engine::ResourceUnits& more) {
  for (const auto& [name, units] : more) {
    auto& v = into[name];
    v = engine::addUnits(v, units);
  }
}

void raise(engine::ResourceUnits& into, const engine::ResourceUnits& candidate) {
  for (const auto& [name, units] : candidate) {
    auto& v = into[name];
    v = std::max(v, units);
  }
}

bool restartsAlways(const rapidjson::Value& container) {
  return json::string(json::member(container, "restartPolicy")) == "Always";
}

}  // namespace

engine::ResourceUnits podNodeDemand(const rapidjson::Value& pod, const NodeResourceFilter& filter) {
  const auto* spec = json::member(pod, "spec");
  engine::ResourceUnits total;
  if (const auto* cs = json::member(spec, "containers"); cs != nullptr && cs->IsArray())
    for (const auto& c : cs->GetArray()) add(total, containerRequests(c, filter));
  // Init containers run in order; a sidecar keeps running, so it adds to every later step and
  // to the app containers.
  engine::ResourceUnits sidecars, initPeak;
  if (const auto* ics = json::member(spec, "initContainers"); ics != nullptr && ics->IsArray()) {
    for (const auto& c : ics->GetArray()) {
      const auto requests = containerRequests(c, filter);
      if (restartsAlways(c)) {
        add(total, requests);
        add(sidecars, requests);
        raise(initPeak, sidecars);
      } else {
        auto step = sidecars;
        add(step, requests);
        raise(initPeak, step);
      }
    }
  }
  raise(total, initPeak);
  std::erase_if(total, [](const auto& e) { return e.second <= 0; });
  return total;
}

}  // namespace gpua::cluster
