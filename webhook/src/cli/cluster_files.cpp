#include "cli/cluster_files.hpp"

#include <chrono>

#include "authoring/documents.hpp"
#include "engine/classify/claim_usage.hpp"
#include "engine/context/dra_supply.hpp"
#include "engine/context/supply.hpp"
#include "inventory/dra_decode.hpp"
#include "inventory/node_decode.hpp"
#include "inventory/supply_ledger.hpp"
#include "inventory/usage_file.hpp"

namespace gpua::cli {
namespace {

// The pod items of every file, in one array (Namespace items are left to the ledger to skip).
rapidjson::Document podItems(const std::vector<std::string>& files) {
  rapidjson::Document all(rapidjson::kArrayType);
  for (const auto& f : files) {
    const rapidjson::Document d = authoring::readDocumentFile(f);
    const rapidjson::Value* items = &d;
    if (d.IsObject() && d.HasMember("items")) items = &d["items"];
    if (!items->IsArray()) continue;  // a single object: not a list of pods
    for (const auto& item : items->GetArray())
      all.PushBack(rapidjson::Value(item, all.GetAllocator()), all.GetAllocator());
  }
  return all;
}

}  // namespace

engine::UsageSnapshot ClusterFileReader::usage(const std::vector<std::string>& files,
                                               const policy::PolicySet& policy) const {
  try {
    return inventory::usageFromFiles(files, policy);
  } catch (const inventory::UsageFileError& e) {
    throw authoring::InputError(e.what());
  }
}

engine::SupplySnapshot ClusterFileReader::supply(const std::vector<std::string>& nodesFiles,
                                                 const std::vector<std::string>& podsFiles,
                                                 const policy::PolicySet& policy,
                                                 const engine::DraObjects* dra) const {
  std::vector<engine::NodeSupply> nodes;
  const auto filter = inventory::nodeResourceFilter(policy);
  for (const auto& f : nodesFiles) {
    try {
      for (auto& n : inventory::loadNodesFile(f, filter)) nodes.push_back(std::move(n));
    } catch (const inventory::NodesFileError& e) {
      throw authoring::InputError(e.what());
    }
  }
  const rapidjson::Document pods = podItems(podsFiles);
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  engine::NodeInventory raw = inventory::supplyFromLists(std::move(nodes), pods, policy, now);
  if (dra != nullptr) engine::addDraSupply(raw.nodes, *dra, policy);
  return engine::summarizeSupply(std::move(raw), policy);
}

void ClusterFileReader::addDra(const std::vector<std::string>& files,
                               const policy::PolicySet& policy,
                               engine::UsageSnapshot& usage) const {
  auto out = std::make_shared<engine::DraObjects>();
  for (const auto& f : files) {
    const rapidjson::Document d = authoring::readDocumentFile(f);
    if (inventory::addDraObjects(d, *out) == 0)
      throw authoring::InputError(
          f +
          ": no DeviceClass, ResourceClaim, ResourceClaimTemplate or ResourceSlice found "
          "(kubectl get deviceclasses,resourceclaims,resourceclaimtemplates,resourceslices "
          "-A -o json)");
  }
  usage.dra = std::move(out);
  engine::addClaimUsage(usage, policy);
}

}  // namespace gpua::cli
