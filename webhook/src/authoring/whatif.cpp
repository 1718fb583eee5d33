#include "authoring/whatif.hpp"

#include "authoring/documents.hpp"
#include "authoring/review_roundtrip.hpp"

namespace gpua::authoring {
namespace {

using rapidjson::Value;

// The class name, or the outcome in parentheses for pods no class took: "(NoGpu)", "(Exempt)".
std::string groupOf(const ReviewReport& r) {
  if (!r.decision) return "(unknown)";
  if (!r.decision->className.empty()) return r.decision->className;
  return std::string("(") + engine::outcomeName(r.decision->outcome) + ")";
}

// Live lists carry kind on each item, but `kubectl get -o json` of a single kind may not.
void defaultKind(rapidjson::Document& pod) {
  if (!pod.IsObject()) return;
  auto& a = pod.GetAllocator();
  if (!pod.HasMember("apiVersion")) pod.AddMember("apiVersion", "v1", a);
  if (!pod.HasMember("kind")) pod.AddMember("kind", "Pod", a);
}

void nameFromMetadata(const rapidjson::Document& pod, PodResult& res) {
  if (!pod.IsObject() || !pod.HasMember("metadata") || !pod["metadata"].IsObject()) return;
  const Value& m = pod["metadata"];
  if (m.HasMember("namespace") && m["namespace"].IsString())
    res.namespaceName = m["namespace"].GetString();
  if (m.HasMember("name") && m["name"].IsString()) res.name = m["name"].GetString();
}

void fillFromReport(const ReviewReport& r, PodResult& res) {
  if (res.namespaceName.empty()) res.namespaceName = r.namespaceName;
  if (res.name.empty()) res.name = r.displayName;
  res.group = groupOf(r);
  res.outcome = r.decision ? engine::outcomeName(r.decision->outcome) : "";
  res.className = r.decision ? r.decision->className : "";
  res.warnings = r.warnings.size();
  res.brokeRules = r.allowed && r.decision && !r.decision->violations.empty();
  res.patchOps = r.patch.size();
  res.verdict = !r.allowed        ? Verdict::Denied
                : r.patch.empty() ? Verdict::Unchanged
                                  : Verdict::Mutated;
  res.message = !r.allowed       ? r.statusMessage
                : res.brokeRules ? r.decision->violations.front().message
                                 : "";
}

void count(const PodResult& p, WhatifRow& row) {
  ++row.pods;
  row.warned += p.brokeRules ? 1 : 0;
  switch (p.verdict) {
    case Verdict::Mutated:
      ++row.mutated;
      break;
    case Verdict::Denied:
      ++row.denied;
      break;
    case Verdict::Unchanged:
      ++row.unchanged;
      break;
    case Verdict::Error:
      ++row.errors;
      break;
  }
}

// Namespace labels from the namespaces file and, with usage files, the usage they count.
engine::UsageSnapshot usageOf(const WhatifInputs& in, const policy::PolicySet& policy,
                              const SnapshotReader& files) {
  std::vector<std::string> paths;
  if (in.namespacesFile) paths.push_back(*in.namespacesFile);
  paths.insert(paths.end(), in.usageFiles.begin(), in.usageFiles.end());
  engine::UsageSnapshot usage = paths.empty() ? emptyUsage() : files.usage(paths, policy);
  if (!in.draFiles.empty()) files.addDra(in.draFiles, policy, usage);
  if (in.usageFiles.empty()) usage.namespaces.clear();  // labels only (claims too)
  return usage;
}

}  // namespace

const char* verdictName(Verdict v) {
  switch (v) {
    case Verdict::Mutated:
      return "mutated";
    case Verdict::Denied:
      return "denied";
    case Verdict::Unchanged:
      return "unchanged";
    case Verdict::Error:
      return "error";
  }
  return "error";
}

const Value& podItems(const Value& list, const std::string& file) {
  if (list.IsArray()) return list;
  if (list.IsObject() && list.HasMember("items") && list["items"].IsArray()) return list["items"];
  throw InputError(file + ": not a pod list (expected {\"items\": [...]} or an array)");
}

PodResult reviewPod(const Value& item, const policy::PolicySet& policy,
                    const engine::UsageSnapshot& usage, const engine::SupplySnapshot& supply) {
  rapidjson::Document pod;
  pod.CopyFrom(item, pod.GetAllocator());
  defaultKind(pod);
  PodResult res;
  nameFromMetadata(pod, res);
  try {
    ReviewRequest req;
    req.object = &pod;
    fillFromReport(runReview(req, policy, usage, supply), res);
  } catch (const ReviewError& e) {
    res.group = "(error)";
    res.verdict = Verdict::Error;
    res.message = e.what();
  }
  return res;
}

WhatifSummary summarize(const std::vector<PodResult>& pods) {
  WhatifSummary rows;
  for (const auto& p : pods) count(p, rows[{p.namespaceName, p.group}]);
  return rows;
}

std::vector<PodResult> runWhatif(const WhatifInputs& inputs, const policy::PolicySet& policy,
                                 const SnapshotReader& files) {
  const rapidjson::Document list = readDocumentFile(inputs.podsFile);
  const Value& items = podItems(list, inputs.podsFile);
  const engine::UsageSnapshot usage = usageOf(inputs, policy, files);
  const engine::SupplySnapshot supply =
      inputs.nodesFiles.empty()
          ? engine::SupplySnapshot{}
          : files.supply(inputs.nodesFiles, {inputs.podsFile}, policy, usage.dra.get());
  std::vector<PodResult> results;
  for (const auto& item : items.GetArray()) {
    if (item.IsObject() && item.HasMember("kind") && item["kind"] == "Namespace") continue;
    results.push_back(reviewPod(item, policy, usage, supply));
  }
  return results;
}

}  // namespace gpua::authoring
