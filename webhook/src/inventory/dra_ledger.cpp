#include "inventory/dra_ledger.hpp"

#include <concepts>
#include <optional>
#include <utility>

#include "kube/json.hpp"

namespace gpua::inventory {

namespace json = kube::json;

namespace {

constexpr std::string_view kClassAnnotation = "gpu-admission.io/class";

// The key of a decoded object in its map, and the object; nullopt when it does not decode.
template <class Info>
std::optional<std::pair<std::string, Info>> keyed(std::optional<Info> info) {
  if (!info) return std::nullopt;
  std::string key;
  if constexpr (requires { info->namespaceName; })
    key = engine::draKey(info->namespaceName, info->name);
  else
    key = info->name;
  return std::pair{std::move(key), std::move(*info)};
}

std::string sliceName(const rapidjson::Value& v) {
  return std::string(json::path(v, "metadata", "name"));
}

}  // namespace

template <class Map, class Decode>
ListSink DraLedger::sinkFor(StagedList<Map>& list, Decode decode) {
  auto put = [decode](Map& into, const rapidjson::Value& object) {
    if (auto entry = decode(object)) into.insert_or_assign(entry->first, std::move(entry->second));
  };
  return {[this, &list] {
            list.begin();
            objects_.reset();
          },
          [&list, put](const rapidjson::Value& items) {
            if (!items.IsArray()) return;
            for (const auto& item : items.GetArray()) put(list.staged(), item);
          },
          [this, &list] {
            list.commit();
            objects_.reset();
          },
          [this, &list, decode](EventType type, const rapidjson::Value& object) {
            auto entry = decode(object);
            if (!entry) return;
            auto& live = list.live();
            const auto it = live.find(entry->first);
            if (type == EventType::Deleted) {
              if (it != live.end()) live.erase(it);
            } else if constexpr (std::equality_comparable<typename Map::mapped_type>) {
              // Pods change often and rarely in what is kept of them: no rebuild for those.
              if (it != live.end() && it->second == entry->second) return;
              live.insert_or_assign(entry->first, std::move(entry->second));
            } else {
              live.insert_or_assign(entry->first, std::move(entry->second));
            }
            objects_.reset();
          }};
}

ListSink DraLedger::deviceClassSink() {
  return sinkFor(classes_, [](const rapidjson::Value& v) { return keyed(decodeDeviceClass(v)); });
}

ListSink DraLedger::claimSink() {
  return sinkFor(claims_, [](const rapidjson::Value& v) { return keyed(decodeResourceClaim(v)); });
}

ListSink DraLedger::templateSink() {
  return sinkFor(templates_,
                 [](const rapidjson::Value& v) { return keyed(decodeClaimTemplate(v)); });
}

ListSink DraLedger::sliceSink() {
  return sinkFor(slices_, [](const rapidjson::Value& v) {
    std::optional<std::pair<std::string, SliceInfo>> out;
    std::string name = sliceName(v);
    if (name.empty()) return out;
    if (auto slice = decodeResourceSlice(v)) out.emplace(std::move(name), std::move(*slice));
    return out;
  });
}

ListSink DraLedger::podSink() {
  return sinkFor(pods_, [](const rapidjson::Value& v) {
    std::optional<std::pair<std::string, PodFacts>> out;
    const auto uid = json::path(v, "metadata", "uid");
    if (uid.empty()) return out;
    PodFacts facts;
    const auto* annotations = json::objectMember(json::objectMember(&v, "metadata"), "annotations");
    facts.className = std::string(json::stringMember(annotations, kClassAnnotation));
    const auto* status = json::objectMember(&v, "status");
    const auto claim = json::stringMember(json::objectMember(status, "extendedResourceClaimStatus"),
                                          "resourceClaimName");
    if (!claim.empty())
      facts.extendedResourceClaim = engine::draKey(json::path(v, "metadata", "namespace"), claim);
    out.emplace(std::string(uid), std::move(facts));
    return out;
  });
}

std::shared_ptr<const engine::DraObjects> DraLedger::objects() {
  if (objects_) return objects_;
  auto o = std::make_shared<engine::DraObjects>();
  o->known = true;
  for (const auto& [k, v] : classes_.live()) o->deviceClasses.emplace(k, v);
  for (const auto& [k, v] : claims_.live()) o->claims.emplace(k, v);
  for (const auto& [k, v] : templates_.live()) o->templates.emplace(k, v);
  for (const auto& [name, slice] : slices_.live())
    for (const auto& [key, attrs] : slice.devices) {
      if (!slice.nodeName.empty()) o->deviceNodes.insert_or_assign(key, slice.nodeName);
      o->deviceAttributes.insert_or_assign(key, attrs);
    }
  for (const auto& [uid, facts] : pods_.live()) {
    if (!facts.className.empty()) o->podClasses.emplace(uid, facts.className);
    if (!facts.extendedResourceClaim.empty())
      o->extendedResourceClaims.insert(facts.extendedResourceClaim);
  }
  objects_ = std::move(o);
  return objects_;
}

}  // namespace gpua::inventory
