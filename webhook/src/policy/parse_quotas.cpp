// spec.quotas, spec.rollout and spec.templates.
#include "policy/parse.hpp"

namespace gpua::policy {

namespace {

void parsePerClass(YamlReader& r, const MapReader& m, Quota& q, QuotaOrigin& origin) {
  const YAML::Node map = m.get("perClass");
  if (!r.expectMap(map, m.path("perClass"))) return;
  for (auto it = map.begin(); it != map.end(); ++it) {
    auto cls = r.name(it->first, m.path("perClass"));
    if (!cls) continue;
    const std::string path = m.path("perClass") + "." + *cls;
    auto limit = r.number(it->second, path, 0);
    if (!limit) continue;
    if (!q.perClass.emplace(*cls, *limit).second) {
      r.error(it->first, path, "duplicate key '" + *cls + "'");
      continue;
    }
    origin.perClass.emplace(*cls, r.loc(it->first, path));
  }
}

void parsePerResource(YamlReader& r, const MapReader& m, Quota& q) {
  const YAML::Node map = m.get("perResource");
  if (!r.expectMap(map, m.path("perResource"))) return;
  for (auto it = map.begin(); it != map.end(); ++it) {
    auto resource = r.name(it->first, m.path("perResource"));
    if (!resource) continue;
    const std::string path = m.path("perResource") + "." + *resource;
    auto limit = r.integer(it->second, path, 0);
    if (limit && !q.perResource.emplace(*resource, *limit).second)
      r.error(it->first, path, "duplicate key '" + *resource + "'");
  }
}

void parseQuota(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft) {
  MapReader m(r, node, path,
              {"name", "namespaces", "scope", "gpuEquivalents", "perClass", "perResource"});
  if (!m.valid()) return;
  Quota q;
  QuotaOrigin origin{m.loc("name"), {}};
  auto name = m.require("name") ? r.name(m.get("name"), m.path("name")) : std::nullopt;
  if (m.has("namespaces")) {
    auto sel = parseNamespaceSelector(r, m.get("namespaces"), m.path("namespaces"));
    if (sel) q.namespaces = *sel;
  }
  if (m.has("scope")) {
    auto scope = r.enumeration<Quota::Scope>(
        m.get("scope"), m.path("scope"),
        {{"shared", Quota::Scope::Shared}, {"perNamespace", Quota::Scope::PerNamespace}});
    if (scope) q.scope = *scope;
  }
  if (m.has("gpuEquivalents"))
    q.gpuEquivalents = r.number(m.get("gpuEquivalents"), m.path("gpuEquivalents"), 0);
  if (m.has("perClass")) parsePerClass(r, m, q, origin);
  if (m.has("perResource")) parsePerResource(r, m, q);
  if (!m.has("gpuEquivalents") && !m.has("perClass") && !m.has("perResource"))
    r.error(node, path, "quota '" + name.value_or("") + "' sets no limit",
            "set gpuEquivalents, perClass or perResource");
  if (!name) return;
  q.name = *name;
  draft.set.quotas.push_back(std::move(q));
  draft.quotas.push_back(std::move(origin));
}

void parseRolloutRule(YamlReader& r, const YAML::Node& node, const std::string& path,
                      Draft& draft) {
  MapReader m(r, node, path, {"namespaces", "mode"});
  if (!m.valid()) return;
  RolloutRule rule;
  if (m.has("namespaces"))
    rule.namespaces = parseNamespaceSelector(r, m.get("namespaces"), m.path("namespaces"));
  if (!m.require("mode")) return;
  auto mode = r.enumeration<Mode>(m.get("mode"), m.path("mode"),
                                  {{"enforce", Mode::Enforce},
                                   {"warn", Mode::Warn},
                                   {"audit", Mode::Audit},
                                   {"observe", Mode::Observe}});
  if (!mode || (m.has("namespaces") && !rule.namespaces)) return;
  rule.mode = *mode;
  draft.set.rollout.push_back(std::move(rule));
  draft.rollout.push_back(m.loc());
}

bool validTemplatePath(const std::string& p) {
  if (p.empty() || p.front() == '.' || p.back() == '.') return false;
  return p.find("..") == std::string::npos;
}

// A label value of podLabels: literal text plus the placeholders $(name) and $(replica).
// $(replica) needs a '*' in every path it applies to (`paths` lists them).
void checkPlaceholders(YamlReader& r, const YAML::Node& node, const std::string& keyPath,
                       const std::string& value, const std::vector<std::string>& paths) {
  for (std::size_t at = value.find("$("); at != std::string::npos; at = value.find("$(", at + 2)) {
    const std::size_t end = value.find(')', at);
    const std::string token = end == std::string::npos ? "" : value.substr(at + 2, end - at - 2);
    if (token != "name" && token != "replica") {
      r.error(node, keyPath, "unknown placeholder in '" + value + "'",
              "use $(name) for the object's name or $(replica) for the key a '*' matched");
      return;
    }
    if (token != "replica") continue;
    for (const auto& p : paths)
      if (p.find('*') == std::string::npos) {
        r.error(
            node, keyPath, "$(replica) needs a '*' in path '" + p + "'",
            "use $(replica) only for paths with a '*', e.g. spec.pytorchReplicaSpecs.*.template");
        return;
      }
  }
}

std::map<std::string, std::string> parsePodLabels(YamlReader& r, const YAML::Node& node,
                                                  const std::string& keyPath,
                                                  const std::vector<std::string>& paths) {
  auto labels = r.stringMap(node, keyPath);
  if (!node.IsMap()) return labels;
  for (auto it = node.begin(); it != node.end(); ++it)
    if (it->first.IsScalar() && it->second.IsScalar())
      checkPlaceholders(r, it->second, keyPath + "." + it->first.Scalar(), it->second.Scalar(),
                        paths);
  return labels;
}

void parsePodLabelsByPath(YamlReader& r, const MapReader& m, TemplateKind& t) {
  const YAML::Node map = m.get("podLabelsByPath");
  if (!r.expectMap(map, m.path("podLabelsByPath"))) return;
  for (auto it = map.begin(); it != map.end(); ++it) {
    auto key = r.name(it->first, m.path("podLabelsByPath"));
    if (!key) continue;
    const std::string keyPath = m.path("podLabelsByPath") + "." + *key;
    bool listed = false;
    for (const auto& p : t.templatePaths) listed = listed || p == *key;
    if (!listed) {
      r.error(it->first, keyPath, "'" + *key + "' is not one of the kind's paths",
              "each key of podLabelsByPath must be written exactly as in paths");
      continue;
    }
    auto labels = parsePodLabels(r, it->second, keyPath, {*key});
    if (!t.podLabelsByPath.emplace(*key, std::move(labels)).second)
      r.error(it->first, keyPath, "duplicate key '" + *key + "'");
  }
}

void parseTemplate(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft) {
  MapReader m(r, node, path, {"apiGroup", "kind", "paths", "podLabels", "podLabelsByPath"});
  if (!m.valid()) return;
  TemplateKind t;
  std::optional<std::string> group = "";  // "" = the core group, as in Kubernetes
  if (m.has("apiGroup")) group = r.string(m.get("apiGroup"), m.path("apiGroup"));
  auto kind = m.require("kind") ? r.name(m.get("kind"), m.path("kind")) : std::nullopt;
  if (m.require("paths")) {
    const YAML::Node list = m.get("paths");
    t.templatePaths = r.stringList(list, m.path("paths"));
    for (std::size_t i = 0; list.IsSequence() && i < list.size(); ++i)
      if (list[i].IsScalar() && !validTemplatePath(list[i].Scalar()))
        r.error(list[i], indexPath(m.path("paths"), i),
                "malformed template path '" + list[i].Scalar() + "'",
                "dot-separated keys from the object root, '*' for every key or element, e.g. "
                "spec.pytorchReplicaSpecs.*.template");
    if (list.IsSequence() && list.size() == 0)
      r.error(list, m.path("paths"), "paths must not be empty");
  }
  if (m.has("podLabels"))
    t.podLabels = parsePodLabels(r, m.get("podLabels"), m.path("podLabels"), t.templatePaths);
  if (m.has("podLabelsByPath")) parsePodLabelsByPath(r, m, t);
  if (!group || !kind) return;
  t.apiGroup = *group;
  t.kind = *kind;
  draft.set.templateKinds.push_back(std::move(t));
  draft.templates.push_back(m.loc("kind"));
}

template <typename F>
void eachElement(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft,
                 F parseOne) {
  if (!r.expectList(node, path)) return;
  for (std::size_t i = 0; i < node.size(); ++i) parseOne(r, node[i], indexPath(path, i), draft);
}

}  // namespace

void parseQuotas(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft) {
  eachElement(r, node, path, draft, parseQuota);
}

void parseRollout(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft) {
  draft.set.rolloutDeclared = true;
  eachElement(r, node, path, draft, parseRolloutRule);
}

void parseTemplates(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft) {
  eachElement(r, node, path, draft, parseTemplate);
}

}  // namespace gpua::policy
