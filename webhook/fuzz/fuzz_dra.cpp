// The DRA decoders (inventory/dra_decode.hpp) and the claim resolution the engine runs on them
// (engine/classify/claim_resolution.hpp), without the network. The input is one JSON document
// as `kubectl get deviceclasses,resourceclaims,resourceclaimtemplates,resourceslices,pods -A -o
// json` prints it: its DRA objects are decoded, and each Pod item is decided against them under
// the DRA policy of policy-tests/fixtures/dra. Oracles:
//   - no crash, and every decoded list within the apiserver's bounds (kMax*);
//   - decoding is idempotent: the same objects decoded twice give the same maps;
//   - a resolved pod's units are positive, its GPU-equivalents finite and non-negative, and a
//     claim is either counted, unresolved, or not a GPU: a pod with claims under spec.dra never
//     loses them silently.
#include <rapidjson/document.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/classify/claim_resolution.hpp"
#include "engine/decide.hpp"
#include "inventory/dra_decode.hpp"
#include "policy/loader.hpp"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "dra oracle: %s\n", what.c_str());
  std::abort();
}

const gpua::policy::PolicySet& draPolicy() {
  static const auto policy = [] {
    auto loaded = gpua::policy::loadPolicyPaths({GPUA_DRA_POLICY_DIR});
    if (!loaded.ok()) fail(std::string("cannot load ") + GPUA_DRA_POLICY_DIR);
    return loaded.policy;
  }();
  return *policy;
}

void checkBounds(const gpua::engine::DraObjects& dra) {
  using namespace gpua::inventory;
  for (const auto& [key, c] : dra.claims) {
    if (c.requests.size() > kMaxDeviceRequests || c.devices.size() > kMaxAllocatedDevices ||
        c.reservedFor.size() > kMaxReservedFor)
      fail("claim " + key + " beyond the API's bounds");
    for (const auto& r : c.requests)
      if (r.alternatives.empty() || r.alternatives.size() > kMaxAlternatives)
        fail("request alternatives out of bounds in " + key);
  }
  for (const auto& [key, attrs] : dra.deviceAttributes)
    if (attrs.size() > kMaxDeviceAttributes) fail("device attributes beyond bounds");
}

void judgePods(const rapidjson::Value& items, const gpua::engine::DraObjects& dra) {
  gpua::engine::UsageSnapshot usage;
  usage.available = true;
  usage.dra = std::make_shared<gpua::engine::DraObjects>(dra);
  for (const auto& item : items.GetArray()) {
    if (!item.IsObject() || !item.HasMember("kind") || item["kind"] != "Pod") continue;
    gpua::engine::RequestContext ctx;
    ctx.namespaceName = "ml";
    const auto d = gpua::engine::decide(item, ctx, draPolicy(), usage);
    if (!std::isfinite(d.gpuEquivalents) || d.gpuEquivalents < 0)
      fail("GPU-equivalents not finite and non-negative");
    const auto view = gpua::engine::podViewOf(item);
    const auto claims = gpua::engine::resolveClaims(view, "ml", dra, draPolicy());
    for (const auto& [resource, units] : claims.units)
      if (units <= 0) fail("claim units of " + resource + " not positive");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rapidjson::Document doc;
  doc.Parse(reinterpret_cast<const char*>(data), size);
  if (doc.HasParseError()) return 0;
  gpua::engine::DraObjects first, second;
  gpua::inventory::addDraObjects(doc, first);
  gpua::inventory::addDraObjects(doc, second);
  checkBounds(first);
  if (first.claims.size() != second.claims.size() ||
      first.templates.size() != second.templates.size() ||
      first.deviceClasses.size() != second.deviceClasses.size() ||
      first.deviceAttributes != second.deviceAttributes)
    fail("decoding the same objects twice differs");
  const rapidjson::Value* items = &doc;
  if (doc.IsObject() && doc.HasMember("items") && doc["items"].IsArray()) items = &doc["items"];
  if (items->IsArray()) judgePods(*items, first);
  return 0;
}
