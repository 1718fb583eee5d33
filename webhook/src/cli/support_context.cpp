#include "cli/support_context.hpp"

#include <chrono>
#include <cstdio>

#include "cli/support_args.hpp"
#include "cli/support_document.hpp"
#include "engine/supply.hpp"
#include "inventory/node_decode.hpp"
#include "inventory/supply_ledger.hpp"
#include "inventory/usage_file.hpp"
#include "policy/loader.hpp"

namespace gpua::cli {

std::shared_ptr<const policy::PolicySet> loadPolicies(const std::vector<std::string>& paths) {
  auto result = policy::loadPolicyPaths(paths);
  if (result.ok()) return result.policy;
  for (const auto& d : result.errors) std::fprintf(stderr, "%s\n", d.format().c_str());
  std::string joined;
  for (const auto& p : paths) joined += (joined.empty() ? "" : ", ") + p;
  throw InputError("policy " + joined + " does not load: " + std::to_string(result.errors.size()) +
                   " error(s) above (run 'gpu-admission lint' for hints)");
}

kube::Labels parseLabelList(const std::string& text) {
  kube::Labels labels;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    if (!item.empty()) {
      const auto eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
        throw UsageError("label \"" + item + "\" is not key=value");
      labels[item.substr(0, eq)] = item.substr(eq + 1);
    }
    start = end + 1;
  }
  return labels;
}

engine::UsageSnapshot emptyUsage() {
  engine::UsageSnapshot u;
  u.available = true;
  return u;
}

engine::UsageSnapshot unavailableUsage(std::string reason) {
  engine::UsageSnapshot u;
  u.available = false;
  u.unavailableReason = std::move(reason);
  return u;
}

engine::UsageSnapshot usageFromFiles(const std::vector<std::string>& paths,
                                     const policy::PolicySet& policy) {
  try {
    return inventory::usageFromFiles(paths, policy);
  } catch (const inventory::UsageFileError& e) {
    throw InputError(e.what());
  }
}

namespace {

// The pod items of every file, in one array (Namespace items are left to the ledger to skip).
rapidjson::Document podItems(const std::vector<std::string>& files) {
  rapidjson::Document all(rapidjson::kArrayType);
  for (const auto& f : files) {
    const rapidjson::Document d = readDocumentFile(f);
    const rapidjson::Value* items = &d;
    if (d.IsObject() && d.HasMember("items")) items = &d["items"];
    if (!items->IsArray()) continue;  // a single object: not a list of pods
    for (const auto& item : items->GetArray())
      all.PushBack(rapidjson::Value(item, all.GetAllocator()), all.GetAllocator());
  }
  return all;
}

}  // namespace

engine::SupplySnapshot supplyFromFiles(const std::vector<std::string>& nodesFiles,
                                       const std::vector<std::string>& podsFiles,
                                       const policy::PolicySet& policy) {
  std::vector<engine::NodeSupply> nodes;
  const auto filter = inventory::nodeResourceFilter(policy);
  for (const auto& f : nodesFiles) {
    try {
      for (auto& n : inventory::loadNodesFile(f, filter)) nodes.push_back(std::move(n));
    } catch (const inventory::NodesFileError& e) {
      throw InputError(e.what());
    }
  }
  const rapidjson::Document pods = podItems(podsFiles);
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  engine::NodeInventory raw = inventory::supplyFromLists(std::move(nodes), pods, policy, now);
  return engine::summarizeSupply(std::move(raw), policy);
}

}  // namespace gpua::cli
