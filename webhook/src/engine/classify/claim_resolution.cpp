#include "engine/classify/claim_resolution.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

#include "engine/classify/gpu_usage.hpp"
#include "engine/core/device_selectors.hpp"
#include "engine/core/json_util.hpp"
#include "engine/core/text.hpp"

namespace gpua::engine {

namespace {

std::string quotedSource(std::string_view kind, std::string_view name) {
  return std::string(kind) + " " + text::quoted(text::oneLine(name, 80));
}

struct Resolver {
  std::string_view ns;
  const DraObjects& dra;
  const policy::PolicySet& policy;
  ClaimDemand& out;

  // The MIG profiles the selectors (the request's, then the DeviceClass object's) pin.
  std::vector<std::string> profilesFromSelectors(const DeviceAlternative& alt,
                                                 const policy::DraDeviceClass& dc) const {
    for (const auto& expr : alt.selectors)
      if (auto v = pinnedAttributeValues(expr, dc.profileAttribute); !v.empty()) return v;
    if (auto it = dra.deviceClasses.find(alt.deviceClass); it != dra.deviceClasses.end())
      for (const auto& expr : it->second.selectors)
        if (auto v = pinnedAttributeValues(expr, dc.profileAttribute); !v.empty()) return v;
    return {};
  }

  // The resource one device counts as, and its GPU-equivalents; "" when the profile is unknown.
  // With several possible profiles the largest counts (the most the claim can hold).
  std::string countsAs(const policy::DraDeviceClass& dc, const std::vector<std::string>& profiles) {
    if (!dc.countsByProfile()) return dc.countsAs;
    std::string best;
    double bestGe = -1;
    for (const auto& p : profiles) {
      std::string resource = dc.resourceFor(p);
      const double ge = gpuEquivalentsOf(resource, 1, policy);
      if (ge > bestGe) {
        bestGe = ge;
        best = std::move(resource);
      }
    }
    return best;
  }

  void addUnits(const ClaimedDevices& d, bool held) {
    if (d.all || d.countsAs.empty()) out.unknownSize = true;
    if (!held && !d.countsAs.empty() && d.count > 0) {
      auto it = out.units.find(d.countsAs);
      if (it == out.units.end()) it = out.units.emplace(d.countsAs, 0).first;
      it->second = engine::addUnits(it->second, d.count);
    }
    out.gpus.push_back(d);
  }

  void noteClass(const std::string& deviceClass) {
    if (std::find(out.deviceClasses.begin(), out.deviceClasses.end(), deviceClass) ==
        out.deviceClasses.end())
      out.deviceClasses.push_back(deviceClass);
  }

  // A pending request: its largest GPU alternative (by GPU-equivalents), or none.
  void foldRequest(const std::string& claim, const std::string& source, const DeviceRequest& req,
                   bool held) {
    std::optional<ClaimedDevices> best;
    double bestGe = -1;
    for (const auto& alt : req.alternatives) {
      noteClass(alt.deviceClass);
      const policy::DraDeviceClass* dc = policy.dra.find(alt.deviceClass);
      if (dc == nullptr) continue;  // not a GPU class
      ClaimedDevices d{claim,
                       source,
                       alt.name,
                       alt.deviceClass,
                       alt.all ? 0 : alt.count,
                       alt.all,
                       countsAs(*dc, profilesFromSelectors(alt, *dc))};
      const double ge = d.countsAs.empty() ? 0 : gpuEquivalentsOf(d.countsAs, d.count, policy);
      if (ge > bestGe) {
        bestGe = ge;
        best = std::move(d);
      }
    }
    if (best) addUnits(*best, held);
  }

  const DeviceAlternative* alternativeOf(const ResourceClaimInfo& c, std::string_view result) {
    const std::size_t slash = result.find('/');
    const std::string_view request = result.substr(0, slash);
    const std::string_view sub =
        slash == std::string_view::npos ? std::string_view() : result.substr(slash + 1);
    for (const auto& r : c.requests) {
      if (r.name != request) continue;
      for (const auto& alt : r.alternatives)
        if (sub.empty() || alt.name == sub) return &alt;
    }
    return nullptr;
  }

  // An allocated claim: one device per result, counted by the device's own profile.
  void foldAllocated(const std::string& claim, const std::string& source,
                     const ResourceClaimInfo& c, bool held) {
    for (const auto& dev : c.devices) {
      const DeviceAlternative* alt = alternativeOf(c, dev.request);
      if (alt == nullptr) continue;
      noteClass(alt->deviceClass);
      const policy::DraDeviceClass* dc = policy.dra.find(alt->deviceClass);
      if (dc == nullptr) continue;
      std::vector<std::string> profiles;
      if (dc->countsByProfile()) {
        auto attrs = dra.deviceAttributes.find(deviceKey(dev.driver, dev.pool, dev.device));
        if (attrs != dra.deviceAttributes.end())
          if (auto p = attrs->second.find(dc->profileAttribute); p != attrs->second.end())
            profiles.push_back(p->second);
        if (profiles.empty()) profiles = profilesFromSelectors(*alt, *dc);
      }
      addUnits({claim, source, dev.request, alt->deviceClass, 1, false, countsAs(*dc, profiles)},
               held);
    }
  }

  // `what` is "claim" or "template": the object the pod names and the webhook lacks.
  void foldClaim(const std::string& claim, const std::string& source, const ResourceClaimInfo& c,
                 bool held) {
    if (c.allocated) return foldAllocated(claim, source, c, held);
    for (const auto& r : c.requests) foldRequest(claim, source, r, held);
  }

  void unresolved(const std::string& claim, std::string source, std::string_view what) {
    std::string why = dra.known ? "no such " + std::string(what) + " in namespace " +
                                      text::quoted(text::oneLine(ns, 64))
                                : "the webhook knows no DRA objects (no watch of "
                                  "resource.k8s.io, no --dra-from)";
    out.unresolved.push_back({claim, std::move(source), std::move(why)});
  }

  void entry(const rapidjson::Value& e) {
    const std::string claim(text::oneLine(json::stringMember(&e, "name"), 64));
    const std::string_view claimName = json::stringMember(&e, "resourceClaimName");
    const std::string_view templateName = json::stringMember(&e, "resourceClaimTemplateName");
    if (!claimName.empty()) {
      std::string source = quotedSource("ResourceClaim", claimName);
      auto it = dra.claims.find(draKey(ns, claimName));
      if (it == dra.claims.end()) return unresolved(claim, std::move(source), "claim");
      // A claim that exists is counted where it is, once, however many pods share it
      // (addClaimUsage): the pod adds no units of its own.
      return foldClaim(claim, source, it->second, true);
    }
    if (!templateName.empty()) {
      std::string source = quotedSource("ResourceClaimTemplate", templateName);
      auto it = dra.templates.find(draKey(ns, templateName));
      if (it == dra.templates.end()) return unresolved(claim, std::move(source), "template");
      for (const auto& r : it->second.requests) foldRequest(claim, source, r, false);
      return;
    }
    out.unresolved.push_back(
        {claim, "", "it names neither resourceClaimName nor resourceClaimTemplateName"});
  }
};

}  // namespace

ClaimDemand resolveClaims(const PodView& pod, std::string_view ns, const DraObjects& dra,
                          const policy::PolicySet& policy) {
  ClaimDemand out;
  if (!policy.dra.declared) return out;
  out.resolved = true;
  const rapidjson::Value* claims = json::arrayMember(pod.spec, "resourceClaims");
  if (claims == nullptr) return out;
  Resolver r{ns, dra, policy, out};
  for (const auto& e : claims->GetArray())
    if (e.IsObject()) r.entry(e);
  return out;
}

namespace {

// Whether the container uses (resources.claims) a claim that holds GPUs or is unknown.
bool usesGpuClaim(const ContainerGpu& c, const ClaimDemand& claims) {
  const rapidjson::Value* used = json::arrayMember(c.resources, "claims");
  if (used == nullptr) return false;
  for (const auto& u : used->GetArray()) {
    const std::string_view name = json::stringMember(&u, "name");
    for (const auto& g : claims.gpus)
      if (g.claim == name) return true;
    for (const auto& x : claims.unresolved)
      if (x.claim == name) return true;
  }
  return false;
}

}  // namespace

std::string describeClaimedGpus(const ClaimDemand& claims) {
  if (claims.gpus.empty()) return "";
  const ClaimedDevices& d = claims.gpus.front();
  const std::string count = d.all ? "all" : std::to_string(d.count);
  return "claim " + text::quoted(text::oneLine(d.claim, 64)) + " (" + d.source + ") asks for " +
         count + " " + d.deviceClass + (d.count == 1 && !d.all ? " device" : " devices");
}

ClaimDemand claimDemandOf(const ResourceClaimInfo& claim, const DraObjects& dra,
                          const policy::PolicySet& policy) {
  ClaimDemand out;
  out.resolved = policy.dra.declared;
  if (!out.resolved) return out;
  Resolver r{claim.namespaceName, dra, policy, out};
  r.foldClaim(claim.name, quotedSource("ResourceClaim", claim.name), claim, false);
  return out;
}

void attachClaims(PodGpu& gpu, ClaimDemand claims) {
  if (claims.resolved) {
    bool containersAsk = false;
    for (auto& c : gpu.containers) {
      for (const auto& e : c.gpus) containersAsk = containersAsk || e.wantsGpu();
      c.hasClaims = usesGpuClaim(c, claims);
    }
    gpu.hasResourceClaims = claims.asksForGpus();
    gpu.hasGpu = containersAsk || claims.asksForGpus();
  }
  gpu.claims = std::move(claims);
}

}  // namespace gpua::engine
