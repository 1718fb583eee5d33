// The class's `containers` rules on the pods of its `appliesTo` (container-resources-missing,
// qos-not-guaranteed, qos-best-effort, resources-per-gpu-exceeded, limit-request-ratio-exceeded,
// container-resources-exceeded, required-env-missing). Quantities are compared exactly, with
// Kubernetes' semantics: "500m" is "0.5", "1Gi" is "1073741824". The pod is judged as it will be
// admitted: requests the apiserver defaults from limits, and the class's per-GPU defaults when it
// writes them.
#include "engine/classify/class_placement.hpp"
#include "engine/core/json_util.hpp"
#include "engine/core/text.hpp"
#include "engine/pod/container_resources.hpp"
#include "engine/pod/pod_demand.hpp"
#include "engine/validate/validate.hpp"
#include "policy/rule_ids.hpp"

namespace gpua::engine {

namespace rules = policy::rules;

namespace {

using policy::ContainerRules;
using policy::QosClass;

constexpr const char* kCpuMemory[] = {"cpu", "memory"};
constexpr Nanos kMi = (Nanos{1} << 20) * 1000000000;  // 1Mi of memory, in nanos

struct Check {
  const ValidationInput& in;
  const ContainerRules& rules;
  bool defaults;  // the class writes its container defaults into this pod

  ContainerAmount amount(const ContainerGpu& c, std::string_view resource) const {
    return containerAmount(rules, c, resource, defaults);
  }
  std::string head(const ContainerGpu& c) const { return in.pod.subject + " " + containerLabel(c); }
};

bool positive(const std::optional<Quantity>& q) {
  return q && !q->negative() && !q->zero();
}

std::string words(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

// "cpu and memory requests and memory limits"
std::string requirementWords(const ContainerRules& rules) {
  std::string out;
  if (!rules.requireRequests.empty()) out = words(rules.requireRequests) + " requests";
  if (!rules.requireLimits.empty())
    out += (out.empty() ? "" : " and ") + words(rules.requireLimits) + " limits";
  return out;
}

// requireRequests / requireLimits, on every container and init container.
void checkPresence(const Check& k, Violations& out) {
  if (k.rules.requireRequests.empty() && k.rules.requireLimits.empty()) return;
  for (const auto& c : k.in.gpu.containers) {
    std::vector<std::string> missing, fields;
    // The field path, for messages only: built when something is missing.
    const auto base = [&] { return resourcesField(k.in.pod, c); };
    for (const auto& r : k.rules.requireRequests) {
      const ContainerAmount a = k.amount(c, r);
      if (a.requestWritten || a.limitWritten || a.defaulted) continue;
      missing.push_back("no " + r + " request");
      fields.push_back(base() + ".requests." + r);
    }
    for (const auto& r : k.rules.requireLimits) {
      const ContainerAmount a = k.amount(c, r);
      if (a.limitWritten || a.limitDefaulted) continue;
      missing.push_back("no " + r + " limit");
      fields.push_back(base() + ".limits." + r);
    }
    if (missing.empty()) continue;
    out.push_back({rules::kContainerResourcesMissing,
                   k.head(c) + ": " + text::join(missing) + "; " + ruleOwner(k.in.cls) +
                       " requires " + requirementWords(k.rules) + " on every container of its " +
                       (k.in.gpu.hasGpu ? "GPU pods" : "pods") + ": set " + text::join(fields)});
  }
}

// Kubernetes' ComputePodQOS for cpu and memory: Guaranteed when every container (init
// containers included) has a positive cpu and memory limit and, summed over the pod, the
// positive requests equal the limits.
void checkGuaranteed(const Check& k, Violations& out) {
  // For messages only: built when a container falls short.
  const auto why = [&] {
    return "; " + ruleOwner(k.in.cls) +
           " runs Guaranteed pods (cpu and memory limits on every container, requests equal to "
           "them): set ";
  };
  Nanos requests[2] = {0, 0}, limits[2] = {0, 0};
  for (const auto& c : k.in.gpu.containers)
    for (int i = 0; i < 2; ++i) {
      const ContainerAmount a = k.amount(c, kCpuMemory[i]);
      const std::string field = resourcesField(k.in.pod, c) + ".limits." + kCpuMemory[i];
      if (!positive(a.limit)) {
        out.push_back({rules::kQosNotGuaranteed, k.head(c) + ": no " + kCpuMemory[i] + " limit" +
                                                     why() + field +
                                                     " (and the request equal to it)"});
        return;
      }
      limits[i] += nanosOf(*a.limit);
      if (positive(a.request)) requests[i] += nanosOf(*a.request);
    }
  for (int i = 0; i < 2; ++i) {
    if (requests[i] == limits[i]) continue;
    for (const auto& c : k.in.gpu.containers) {
      const ContainerAmount a = k.amount(c, kCpuMemory[i]);
      if (a.request && a.limit && *a.request == *a.limit) continue;
      const std::string r = kCpuMemory[i];
      out.push_back({rules::kQosNotGuaranteed,
                     k.head(c) + ": " + r + " request " +
                         (a.request ? showQuantity(*a.request, r) : std::string("none")) +
                         " is not its limit " + showQuantity(*a.limit, r) + why() +
                         resourcesField(k.in.pod, c) + ".requests." + r + " to " +
                         showQuantity(*a.limit, r)});
      return;
    }
  }
}

// qos: Burstable: not BestEffort, i.e. some container sets a positive cpu or memory amount.
void checkNotBestEffort(const Check& k, Violations& out) {
  const ContainerGpu* first = nullptr;
  for (const auto& c : k.in.gpu.containers) {
    if (first == nullptr && c.wantsGpu()) first = &c;
    for (const char* r : kCpuMemory) {
      const ContainerAmount a = k.amount(c, r);
      if (positive(a.request) || positive(a.limit)) return;
    }
  }
  if (first == nullptr) first = &k.in.gpu.containers.front();
  out.push_back({rules::kQosBestEffort,
                 k.in.pod.subject +
                     " is BestEffort (no container sets a cpu or memory request or limit), the "
                     "first pod evicted when its node runs short; " +
                     ruleOwner(k.in.cls) + " needs at least Burstable: set " +
                     resourcesField(k.in.pod, *first) + ".requests cpu and memory"});
}

int64_t gpuUnits(const ValidationInput& in) {
  int64_t gpus = 0;
  for (const auto& [resource, units] : effectiveUnits(in.gpu, in.rewriteTo))
    gpus = addUnits(gpus, units);
  return gpus;
}

Quantity fromMilli(int64_t milli) {
  return Quantity{milli / 1000, static_cast<int32_t>((milli % 1000) * 1000000)};
}

// "16.5" cpu or "16.5Gi" memory: a readable per-GPU figure (exact ones are shown exactly).
std::string perGpuText(int64_t totalMilli, int64_t gpus, std::string_view resource) {
  if (totalMilli % gpus == 0) return showQuantity(fromMilli(totalMilli / gpus), resource);
  const double perGpu = static_cast<double>(totalMilli) / 1000.0 / static_cast<double>(gpus);
  if (resource == "memory") return "about " + text::number(perGpu / (1 << 30)) + "Gi";
  return "about " + text::number(perGpu);
}

// maxPerGpu: the pod's request (Kubernetes' PodRequests: app containers and native sidecars
// summed, or the largest init container beside the sidecars before it when larger), in
// thousandths as the scheduler counts, against the maximum times the pod's GPU units.
void checkPerGpu(const Check& k, Violations& out) {
  if (k.rules.maxPerGpu.empty()) return;
  const int64_t gpus = gpuUnits(k.in);
  if (gpus <= 0) return;  // GPUs only through DRA claims: no count to divide by
  for (const auto& [resource, max] : k.rules.maxPerGpu) {
    PodRequestFold fold;
    const ContainerGpu* largest = nullptr;
    int64_t largestMilli = 0;
    for (const auto& c : k.in.gpu.containers) {
      const ContainerAmount a = k.amount(c, resource);
      const int64_t milli =
          positive(a.request) ? a.request->milliValue().value_or(int64_t{1} << 60) : 0;
      fold.add(roleOf(c), milli);
      if (milli > largestMilli) {
        largest = &c;
        largestMilli = milli;
      }
    }
    const int64_t total = fold.total();
    const int64_t maxMilli = max.value.milliValue().value_or(0);
    if ((total + gpus - 1) / gpus <= maxMilli) continue;
    const std::string units = std::to_string(gpus) + (gpus == 1 ? " GPU" : " GPUs");
    const int64_t allowed =
        maxMilli > (int64_t{1} << 60) / gpus ? int64_t{1} << 60 : maxMilli * gpus;
    out.push_back({rules::kResourcesPerGpuExceeded,
                   k.in.pod.subject + " requests " + showQuantity(fromMilli(total), resource) +
                       " " + resource + " for " + units + " (" + perGpuText(total, gpus, resource) +
                       " per GPU), above the " + max.text + " per GPU of " + ruleOwner(k.in.cls) +
                       ": request at most " + showQuantity(fromMilli(allowed), resource) + " " +
                       resource + " in all (the most in " + containerLabel(*largest) + ": " +
                       showQuantity(fromMilli(largestMilli), resource) +
                       "), or ask for more GPUs"});
  }
}

// maxLimitRequestRatio (LimitRange's rule), per container that sets a limit: limit <= ratio x
// request, exactly (limit x 1000 <= ratio in thousandths x request, in nanos).
void checkRatios(const Check& k, Violations& out) {
  for (const auto& [resource, ratio] : k.rules.maxLimitRequestRatio) {
    const Nanos ratioMilli = ratio.value.milliValue().value_or(1000);
    for (const auto& c : k.in.gpu.containers) {
      const ContainerAmount a = k.amount(c, resource);
      if (!a.limit || !a.request || a.limit->negative() || a.request->negative()) continue;
      const Nanos limit = nanosOf(*a.limit), request = nanosOf(*a.request);
      if (limit * 1000 <= ratioMilli * request) continue;
      const std::string base = resourcesField(k.in.pod, c);
      const std::string observed =
          request == 0
              ? "with a request of 0"
              : "is " + text::number(static_cast<double>(limit) / static_cast<double>(request)) +
                    "x the request " + showQuantity(*a.request, resource);
      // Suggestions rounded to what people write: Mi for memory, thousandths for cpu.
      const Nanos step = resource == "memory" && limit >= kMi ? kMi : Nanos{1000000};
      const auto maxLimit = quantityOfNanos(ratioMilli * request / 1000 / step * step);
      const auto minRequest =
          quantityOfNanos(((limit * 1000 + ratioMilli - 1) / ratioMilli + step - 1) / step * step);
      out.push_back({rules::kLimitRequestRatioExceeded,
                     k.head(c) + ": " + resource + " limit " + showQuantity(*a.limit, resource) +
                         " " + observed + ", above the " + toDecimalString(ratio.value) + "x " +
                         ruleOwner(k.in.cls) + " allows: lower " + base + ".limits." + resource +
                         " to " + showQuantity(maxLimit.value_or(Quantity{}), resource) +
                         " or raise " + base + ".requests." + resource + " to " +
                         showQuantity(minRequest.value_or(Quantity{}), resource)});
    }
  }
}

// maxPerContainer (LimitRange's max), per container and init container: its limit and its
// request as admitted (a default counts) are at most the maximum. One finding per container,
// naming every amount over.
void checkPerContainer(const Check& k, Violations& out) {
  if (k.rules.maxPerContainer.empty()) return;
  for (const auto& c : k.in.gpu.containers) {
    std::vector<std::string> over, fixes;
    for (const auto& [resource, max] : k.rules.maxPerContainer) {
      const ContainerAmount a = k.amount(c, resource);
      const bool limitOver = a.limit && max.value < *a.limit;
      const bool requestOver = a.request && max.value < *a.request;
      if (!limitOver && !requestOver) continue;
      over.push_back(resource + (limitOver ? " limit " : " request ") +
                     showQuantity(limitOver ? *a.limit : *a.request, resource) + " is above the " +
                     max.text + " per container");
      fixes.push_back(resourcesField(k.in.pod, c) + (limitOver ? ".limits." : ".requests.") +
                      resource + " to at most " + max.text);
    }
    if (over.empty()) continue;
    out.push_back({rules::kContainerResourcesExceeded,
                   k.head(c) + ": " + text::join(over) + " of " + ruleOwner(k.in.cls) + ": lower " +
                       text::join(fixes) + ", or split the work across containers or pods"});
  }
}

// The env entry a container ends up with for `name` (the last one wins, as in the kubelet).
const rapidjson::Value* envEntry(const ContainerGpu& c, std::string_view name) {
  const rapidjson::Value* env = json::arrayMember(c.container, "env");
  const rapidjson::Value* found = nullptr;
  if (env != nullptr)
    for (const auto& e : env->GetArray())
      if (json::stringMember(&e, "name") == name) found = &e;
  return found;
}

// requiredEnv, on the containers that ask for a GPU (Kyverno's check-nvidia-gpu looks at those);
// in a pod without GPUs (a class whose rules judge such pods), on every app container.
void checkEnv(const Check& k, Violations& out) {
  if (k.rules.requiredEnv.empty()) return;
  const bool gpuPod = k.in.gpu.hasGpu;
  for (const auto& c : k.in.gpu.containers) {
    if (gpuPod ? !c.wantsGpu() : c.init) continue;
    std::vector<std::string> wrong, fixes;
    for (const auto& want : k.rules.requiredEnv) {
      const rapidjson::Value* e = envEntry(c, want.name);
      const rapidjson::Value* value = json::member(e, "value");
      if (e != nullptr && (!want.value || (value != nullptr && json::view(*value) == *want.value)))
        continue;
      if (e == nullptr)
        wrong.push_back("no " + want.name);
      else if (value == nullptr)
        wrong.push_back(want.name + " from valueFrom");
      else
        wrong.push_back(want.name + "=" + text::quoted(text::oneLine(json::view(*value), 60)));
      fixes.push_back("{\"name\":" + json::quoteString(want.name) +
                      (want.value ? ",\"value\":" + json::quoteString(*want.value) : "") + "}");
    }
    if (wrong.empty()) continue;
    const std::string field = containerField(k.in.pod, c) + ".env";
    out.push_back({rules::kRequiredEnvMissing,
                   k.head(c) + (gpuPod ? " asks for a GPU but sets " : " sets ") +
                       text::join(wrong) + "; " + ruleOwner(k.in.cls) + " requires it on " +
                       (gpuPod ? "GPU containers" : "its containers") + ": set in " + field + ": " +
                       text::join(fixes) + " (envFrom is not visible at admission)"});
  }
}

}  // namespace

void validateContainerResources(const ValidationInput& in, Violations& out) {
  const ContainerRules& rules = in.cls.containers;
  if (rules.empty() || in.gpu.containers.empty() || !inRuleScope(rules.appliesTo, in.cls, in.gpu))
    return;
  const bool defaults =
      !in.validateOnly && in.cls.effects.resourceRequests == policy::EffectMode::Mutate;
  const Check k{in, rules, defaults};
  checkPresence(k, out);
  if (rules.qos == QosClass::Guaranteed) checkGuaranteed(k, out);
  if (rules.qos == QosClass::Burstable) checkNotBestEffort(k, out);
  checkPerGpu(k, out);
  checkRatios(k, out);
  checkPerContainer(k, out);
  checkEnv(k, out);
}

}  // namespace gpua::engine
