#include "inventory/dra_decode.hpp"

#include "kube/json.hpp"

namespace gpua::inventory {

namespace json = kube::json;

namespace {

std::string str(const rapidjson::Value* v) {
  return std::string(json::string(v));
}

// selectors[].cel.expression, bounded.
std::vector<std::string> selectorsOf(const rapidjson::Value* owner) {
  std::vector<std::string> out;
  const auto* list = json::arrayMember(owner, "selectors");
  if (list == nullptr) return out;
  for (const auto& s : list->GetArray()) {
    if (out.size() == kMaxSelectors) break;
    const auto expr = json::string(json::member(json::objectMember(&s, "cel"), "expression"));
    if (!expr.empty()) out.emplace_back(expr);
  }
  return out;
}

// `exactly` or one firstAvailable entry: deviceClassName, allocationMode, count, selectors.
std::optional<engine::DeviceAlternative> alternativeOf(const rapidjson::Value& v,
                                                       std::string_view name) {
  if (!v.IsObject()) return std::nullopt;
  engine::DeviceAlternative a;
  a.name = std::string(name);
  a.deviceClass = str(json::member(v, "deviceClassName"));
  if (a.deviceClass.empty()) return std::nullopt;
  a.all = json::string(json::member(v, "allocationMode")) == "All";
  // ExactCount's count defaults to 1; a count the API would refuse reads as 1, not as 0 GPUs.
  if (const auto* c = json::member(v, "count"); c != nullptr && c->IsInt64() && c->GetInt64() > 0)
    a.count = c->GetInt64();
  a.selectors = selectorsOf(&v);
  return a;
}

std::vector<engine::DeviceRequest> requestsOf(const rapidjson::Value* devices) {
  std::vector<engine::DeviceRequest> out;
  const auto* list = json::arrayMember(devices, "requests");
  if (list == nullptr) return out;
  for (const auto& r : list->GetArray()) {
    if (out.size() == kMaxDeviceRequests) break;
    if (!r.IsObject()) continue;
    engine::DeviceRequest req;
    req.name = str(json::member(r, "name"));
    if (const auto* exactly = json::objectMember(&r, "exactly")) {
      if (auto a = alternativeOf(*exactly, req.name)) req.alternatives.push_back(std::move(*a));
    } else if (const auto* first = json::arrayMember(&r, "firstAvailable")) {
      for (const auto& alt : first->GetArray()) {
        if (req.alternatives.size() == kMaxAlternatives) break;
        if (auto a = alternativeOf(alt, json::string(json::member(alt, "name"))))
          req.alternatives.push_back(std::move(*a));
      }
    }
    if (!req.alternatives.empty()) out.push_back(std::move(req));
  }
  return out;
}

void readAllocation(const rapidjson::Value& claim, engine::ResourceClaimInfo& out) {
  const auto* status = json::objectMember(&claim, "status");
  const auto* allocation = json::objectMember(status, "allocation");
  out.allocated = allocation != nullptr;
  const auto* results = json::arrayMember(json::objectMember(allocation, "devices"), "results");
  if (results != nullptr)
    for (const auto& r : results->GetArray()) {
      if (out.devices.size() == kMaxAllocatedDevices) break;
      out.devices.push_back({str(json::member(r, "request")), str(json::member(r, "driver")),
                             str(json::member(r, "pool")), str(json::member(r, "device"))});
    }
  if (const auto* reserved = json::arrayMember(status, "reservedFor"))
    for (const auto& r : reserved->GetArray()) {
      if (out.reservedFor.size() == kMaxReservedFor) break;
      if (auto uid = json::string(json::member(r, "uid")); !uid.empty())
        out.reservedFor.emplace_back(uid);
    }
}

// An attribute value as text: string, version, int or bool (the four kinds the API has).
std::optional<std::string> attributeText(const rapidjson::Value& v) {
  if (!v.IsObject()) return std::nullopt;
  if (const auto* s = json::member(v, "string"); s != nullptr && s->IsString()) return str(s);
  if (const auto* s = json::member(v, "version"); s != nullptr && s->IsString()) return str(s);
  if (const auto* i = json::member(v, "int"); i != nullptr && i->IsInt64())
    return std::to_string(i->GetInt64());
  if (const auto* b = json::member(v, "bool"); b != nullptr && b->IsBool())
    return b->GetBool() ? "true" : "false";
  return std::nullopt;
}

// metadata.name (and metadata.namespace for the namespaced kinds, which have namespaceName):
// false when one is missing, so such an object is dropped.
template <typename Info>
bool named(const rapidjson::Value& v, Info& out) {
  if (!v.IsObject()) return false;
  out.name = std::string(json::path(v, "metadata", "name"));
  if constexpr (requires { out.namespaceName; }) {
    out.namespaceName = std::string(json::path(v, "metadata", "namespace"));
    if (out.namespaceName.empty()) return false;
  }
  return !out.name.empty();
}

}  // namespace

std::optional<engine::DeviceClassInfo> decodeDeviceClass(const rapidjson::Value& v) {
  engine::DeviceClassInfo out;
  if (!named(v, out)) return std::nullopt;
  const auto* spec = json::objectMember(&v, "spec");
  out.extendedResourceName = str(json::member(spec, "extendedResourceName"));
  out.selectors = selectorsOf(spec);
  return out;
}

std::optional<engine::ResourceClaimInfo> decodeResourceClaim(const rapidjson::Value& v) {
  engine::ResourceClaimInfo out;
  if (!named(v, out)) return std::nullopt;
  out.requests = requestsOf(json::objectMember(json::objectMember(&v, "spec"), "devices"));
  readAllocation(v, out);
  return out;
}

std::optional<engine::ClaimTemplateInfo> decodeClaimTemplate(const rapidjson::Value& v) {
  engine::ClaimTemplateInfo out;
  if (!named(v, out)) return std::nullopt;
  const auto* inner = json::objectMember(json::objectMember(&v, "spec"), "spec");
  out.requests = requestsOf(json::objectMember(inner, "devices"));
  return out;
}

std::optional<SliceInfo> decodeResourceSlice(const rapidjson::Value& v) {
  if (!v.IsObject()) return std::nullopt;
  const auto* spec = json::objectMember(&v, "spec");
  const auto driver = json::string(json::member(spec, "driver"));
  const auto pool = json::string(json::member(json::objectMember(spec, "pool"), "name"));
  if (driver.empty()) return std::nullopt;
  SliceInfo out;
  out.nodeName = str(json::member(spec, "nodeName"));
  const auto* devices = json::arrayMember(spec, "devices");
  if (devices == nullptr) return out;
  for (const auto& d : devices->GetArray()) {
    if (out.devices.size() == kMaxSliceDevices) break;
    const auto name = json::string(json::member(d, "name"));
    if (name.empty()) continue;
    auto& attrs = out.devices[engine::deviceKey(driver, pool, name)];
    const auto* list = json::objectMember(&d, "attributes");
    if (list == nullptr) continue;
    for (const auto& a : list->GetObject()) {
      if (attrs.size() == kMaxDeviceAttributes) break;
      std::string key(a.name.GetString(), a.name.GetStringLength());
      // A bare name is in the driver's domain (resource.k8s.io's QualifiedName rule).
      if (key.find('/') == std::string::npos) key = std::string(driver) + "/" + key;
      if (auto text = attributeText(a.value)) attrs.emplace(std::move(key), std::move(*text));
    }
  }
  return out;
}

namespace {

bool take(const rapidjson::Value& v, std::string_view kind, engine::DraObjects& out) {
  if (kind == "DeviceClass") {
    if (auto c = decodeDeviceClass(v)) return out.deviceClasses.insert_or_assign(c->name, *c), true;
  } else if (kind == "ResourceClaim") {
    if (auto c = decodeResourceClaim(v)) {
      out.claims.insert_or_assign(engine::draKey(c->namespaceName, c->name), std::move(*c));
      return true;
    }
  } else if (kind == "ResourceClaimTemplate") {
    if (auto t = decodeClaimTemplate(v)) {
      out.templates.insert_or_assign(engine::draKey(t->namespaceName, t->name), std::move(*t));
      return true;
    }
  } else if (kind == "ResourceSlice") {
    if (auto slice = decodeResourceSlice(v)) {
      for (auto& [key, attrs] : slice->devices) {
        if (!slice->nodeName.empty()) out.deviceNodes.insert_or_assign(key, slice->nodeName);
        out.deviceAttributes.insert_or_assign(key, attrs);
      }
      return true;
    }
  }
  return false;
}

// Items of a <Kind>List carry no kind of their own in `kubectl get -o json` of one resource.
std::size_t collect(const rapidjson::Value& v, std::string_view listKind, engine::DraObjects& out) {
  if (v.IsArray()) {
    std::size_t n = 0;
    for (const auto& item : v.GetArray()) n += collect(item, listKind, out);
    return n;
  }
  if (!v.IsObject()) return 0;
  std::string_view kind = json::string(json::member(v, "kind"));
  if (const auto* items = json::arrayMember(&v, "items")) {
    const std::string_view itemKind =
        kind.ends_with("List") && kind != "List" ? kind.substr(0, kind.size() - 4) : "";
    std::size_t n = 0;
    for (const auto& item : items->GetArray()) n += collect(item, itemKind, out);
    return n;
  }
  if (kind.empty()) kind = listKind;
  return take(v, kind, out) ? 1 : 0;
}

}  // namespace

std::size_t addDraObjects(const rapidjson::Value& v, engine::DraObjects& out) {
  out.known = true;
  return collect(v, "", out);
}

}  // namespace gpua::inventory
