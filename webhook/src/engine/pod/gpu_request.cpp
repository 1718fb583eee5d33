#include "engine/pod/gpu_request.hpp"
#include "policy/rule_ids.hpp"

#include <algorithm>

#include "engine/core/json_util.hpp"
#include "engine/core/text.hpp"
#include "engine/pod/quantity.hpp"

namespace gpua::engine {

namespace rules = policy::rules;

bool isGpuResource(std::string_view resource, const policy::PolicySet& policy) {
  if (resource == kWholeGpu || resource.starts_with(kMigPrefix)) return true;
  for (const auto& pool : policy.pools)
    if (pool.resource == resource) return true;
  return false;
}

std::string containerLabel(const ContainerGpu& c) {
  return std::string(c.init ? "init container " : "container ") + text::quoted(c.name);
}

std::string containerField(const PodView& pod, const ContainerGpu& c) {
  return pod.fieldPrefix + "spec." + (c.init ? "initContainers" : "containers") + "[" +
         std::to_string(c.index) + "]";
}

namespace {

GpuEntry* findEntry(GpuEntries& entries, std::string_view resource) {
  for (auto& e : entries)
    if (e.resource == resource) return &e;
  return nullptr;
}

// Adds the GPU keys of one requests/limits map to the container's entries.
void collect(ContainerGpu& c, const rapidjson::Value* map, bool isLimit,
             const policy::PolicySet& policy) {
  if (map == nullptr) return;
  for (auto it = map->MemberBegin(); it != map->MemberEnd(); ++it) {
    const std::string_view key = json::view(it->name);
    if (!isGpuResource(key, policy)) continue;
    GpuEntry* e = findEntry(c.gpus, key);
    if (e == nullptr) {
      c.gpus.push_back(GpuEntry{});
      e = &c.gpus.back();
      e->resource = key;
    }
    const auto units = parseWholeQuantity(it->value);
    if (!units) e->invalid = true;
    if (isLimit) {
      e->limit = &it->value;
      e->limitUnits = units;
    } else {
      e->request = &it->value;
      e->requestUnits = units;
    }
  }
}

void report(const PodView& pod, const ContainerGpu& c, const GpuEntry& e, Violations& out) {
  if (e.invalid) {
    const rapidjson::Value* bad = e.requestUnits || e.request == nullptr ? e.limit : e.request;
    const std::string shown =
        bad != nullptr && bad->IsString()
            ? text::quoted(json::view(*bad))
            : (bad != nullptr ? text::oneLine(json::serialize(*bad), 40) : std::string("?"));
    out.push_back({rules::kInvalidGpuQuantity,
                   pod.subject + " " + containerLabel(c) + " asks for " + shown + " " +
                       std::string(e.resource) +
                       " but GPU resources must be whole numbers: request 1 or more whole GPUs, "
                       "or use a class with MIG or shared GPUs for a fraction"});
    return;
  }
  if (e.request != nullptr && e.limit != nullptr && e.requestUnits != e.limitUnits) {
    out.push_back({rules::kRequestsLimitsMismatch,
                   pod.subject + " " + containerLabel(c) + " requests " +
                       std::to_string(e.requestUnits.value_or(0)) + " " + std::string(e.resource) +
                       " but limits it to " + std::to_string(e.limitUnits.value_or(0)) +
                       ": GPU requests must equal limits, set both to the same number"});
  }
}

void readList(const PodView& pod, std::string_view key, bool init, const policy::PolicySet& policy,
              PodGpu& out, Violations* violations) {
  const rapidjson::Value* list = json::arrayMember(pod.spec, key);
  if (list == nullptr) return;
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const rapidjson::Value& container = (*list)[i];
    if (!container.IsObject()) continue;
    ContainerGpu c;
    c.container = &container;
    c.name = json::stringMember(&container, "name");
    c.init = init;
    c.index = i;
    c.resources = json::objectMember(&container, "resources");
    c.requests = json::objectMember(c.resources, "requests");
    c.limits = json::objectMember(c.resources, "limits");
    const rapidjson::Value* claims = json::arrayMember(c.resources, "claims");
    c.hasClaims = claims != nullptr && !claims->Empty();
    collect(c, c.requests, false, policy);
    collect(c, c.limits, true, policy);
    for (const auto& e : c.gpus) {
      if (e.wantsGpu()) out.hasGpu = true;
      if (e.resource.starts_with(kMigPrefix) && e.wantsGpu()) out.requestsMig = true;
      if (violations != nullptr) report(pod, c, e, *violations);
    }
    out.containers.push_back(std::move(c));
  }
}

}  // namespace

PodGpu analyzeGpu(const PodView& pod, const policy::PolicySet& policy, Violations* violations) {
  PodGpu out;
  const auto* containers = json::arrayMember(pod.spec, "containers");
  const auto* inits = json::arrayMember(pod.spec, "initContainers");
  out.containers.reserve((containers ? containers->Size() : 0) + (inits ? inits->Size() : 0));
  readList(pod, "containers", false, policy, out, violations);
  readList(pod, "initContainers", true, policy, out, violations);
  const rapidjson::Value* claims = json::arrayMember(pod.spec, "resourceClaims");
  out.hasResourceClaims = claims != nullptr && !claims->Empty();
  if (out.hasResourceClaims) out.hasGpu = true;
  return out;
}

int64_t& GpuUnits::operator[](std::string_view resource) {
  Entry* entries = size_ <= kInPlace ? inPlace_.data() : spilled_.data();
  Entry* at = std::lower_bound(entries, entries + size_, resource,
                               [](const Entry& e, std::string_view r) { return e.first < r; });
  const auto index = static_cast<std::size_t>(at - entries);
  if (index < size_ && at->first == resource) return at->second;
  if (size_ == kInPlace) spilled_.assign(inPlace_.begin(), inPlace_.end());
  if (size_ >= kInPlace) {
    spilled_.insert(spilled_.begin() + static_cast<std::ptrdiff_t>(index), Entry{resource, 0});
    ++size_;
    return spilled_[index].second;
  }
  std::move_backward(inPlace_.begin() + static_cast<std::ptrdiff_t>(index),
                     inPlace_.begin() + static_cast<std::ptrdiff_t>(size_),
                     inPlace_.begin() + static_cast<std::ptrdiff_t>(size_ + 1));
  inPlace_[index] = Entry{resource, 0};
  ++size_;
  return inPlace_[index].second;
}

const GpuUnits::Entry* GpuUnits::find(std::string_view resource) const {
  for (const auto& e : *this)
    if (e.first == resource) return &e;
  return nullptr;
}

GpuUnits effectiveUnits(const PodGpu& gpu, std::string_view rewriteTo) {
  GpuUnits sums, initMax;
  for (const auto& c : gpu.containers) {
    for (const auto& e : c.gpus) {
      const int64_t units = e.units();
      if (units <= 0) continue;
      std::string_view resource = e.resource;
      if (!rewriteTo.empty() && resource == kWholeGpu) resource = rewriteTo;
      int64_t& total = (c.init ? initMax : sums)[resource];
      total = c.init ? std::max(total, units) : addUnits(total, units);
    }
  }
  for (const auto& [resource, units] : initMax) {
    int64_t& total = sums[resource];
    total = std::max(total, units);
  }
  for (const auto& [resource, units] : gpu.claims.units) {
    int64_t& total = sums[resource];
    total = addUnits(total, units);
  }
  return sums;
}

}  // namespace gpua::engine
