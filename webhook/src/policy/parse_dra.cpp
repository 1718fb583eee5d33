// spec.dra: which Dynamic Resource Allocation device classes hold GPUs and what one of their
// devices counts as, so claims join the one GPU ledger (quotas, GPU-equivalents, class limits).
#include "policy/gpu_models.hpp"
#include "policy/parse.hpp"

namespace gpua::policy {

namespace {

constexpr std::string_view kProfileSlot = "{profile}";
constexpr std::string_view kMigPrefix = "nvidia.com/mig-";

// countsAs: an extended resource name, or "nvidia.com/mig-{profile}" (the profile read from the
// device). A literal MIG name must be a well-formed profile, as everywhere else.
void checkCountsAs(YamlReader& r, const YAML::Node& node, const std::string& path,
                   const std::string& countsAs) {
  const auto slot = countsAs.find(kProfileSlot);
  if (slot != std::string::npos) {
    if (countsAs != std::string(kMigPrefix) + std::string(kProfileSlot))
      r.error(node, path, "'{profile}' only works as 'nvidia.com/mig-{profile}'",
              "write countsAs: nvidia.com/mig-{profile}, or a fixed resource name");
    return;
  }
  if (countsAs.find('/') == std::string::npos)
    r.error(node, path, "'" + countsAs + "' is not an extended resource name",
            "extended resources have a domain, e.g. nvidia.com/gpu");
  else if (countsAs.starts_with(kMigPrefix) &&
           !migProfileSlices(std::string_view(countsAs).substr(kMigPrefix.size())))
    r.error(node, path, "malformed MIG resource '" + countsAs + "'",
            "MIG resources look like nvidia.com/mig-<slices>g.<memory>gb, e.g. "
            "nvidia.com/mig-1g.10gb");
}

void parseDeviceClass(YamlReader& r, const YAML::Node& node, const std::string& path,
                      Draft& draft) {
  MapReader m(r, node, path, {"name", "countsAs", "profileAttribute"});
  if (!m.valid()) return;
  DraDeviceClass dc;
  auto name = m.require("name") ? r.name(m.get("name"), m.path("name")) : std::nullopt;
  auto countsAs =
      m.require("countsAs") ? r.name(m.get("countsAs"), m.path("countsAs")) : std::nullopt;
  if (!name || !countsAs) return;
  dc.name = *name;
  dc.countsAs = *countsAs;
  checkCountsAs(r, m.get("countsAs"), m.path("countsAs"), dc.countsAs);
  if (m.has("profileAttribute")) {
    auto attr = r.name(m.get("profileAttribute"), m.path("profileAttribute"));
    if (attr && attr->find('/') == std::string::npos)
      r.error(m.get("profileAttribute"), m.path("profileAttribute"),
              "'" + *attr + "' has no domain",
              "qualify it with the driver's domain, e.g. gpu.nvidia.com/profile");
    else if (attr && !dc.countsByProfile())
      r.error(m.get("profileAttribute"), m.path("profileAttribute"),
              "profileAttribute is read only when countsAs is nvidia.com/mig-{profile}",
              "remove it, or count the devices by their profile");
    else if (attr)
      dc.profileAttribute = *attr;
  }
  draft.set.dra.deviceClasses.push_back(std::move(dc));
  draft.draDeviceClasses.push_back(m.loc("name"));
}

}  // namespace

void parseDra(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft) {
  MapReader m(r, node, path, {"deviceClasses", "unresolvedClaims"});
  if (!m.valid()) return;
  draft.set.dra.declared = true;
  if (m.has("unresolvedClaims"))
    if (auto mode = r.enumeration<UnresolvedClaims>(
            m.get("unresolvedClaims"), m.path("unresolvedClaims"),
            {{"warn", UnresolvedClaims::Warn}, {"deny", UnresolvedClaims::Deny}}))
      draft.set.dra.unresolvedClaims = *mode;
  if (!m.require("deviceClasses")) return;
  const YAML::Node list = m.get("deviceClasses");
  if (!r.expectList(list, m.path("deviceClasses"))) return;
  for (std::size_t i = 0; i < list.size(); ++i)
    parseDeviceClass(r, list[i], indexPath(m.path("deviceClasses"), i), draft);
}

}  // namespace gpua::policy
